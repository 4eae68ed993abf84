"""DocSets tab: create, rename, describe, delete, upload files, add and re-sync sources."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from ragspace.models import DocSet
from ragspace.services import RagspaceService
from ragspace.sources.files import UploadedFile
from ragspace_ui.errors import user_errors
from ragspace_ui.sources_panel import build_sources_panel

DOCSET_HEADERS = ["DocSet", "Description", "Documents", "Chunks", "Embedding model", "Last sync"]


@dataclass
class DocsetsTab:
    """Components other tabs refresh or listen to."""

    table: gr.Dataframe
    selected: gr.Dropdown
    changed: list[Any]  # events after which every DocSet list must refresh


def docset_rows(service: RagspaceService) -> list[list[Any]]:
    """The DocSets table."""
    return [
        [
            d.name,
            d.description,
            d.document_count,
            d.chunk_count,
            _model_text(service, d),
            d.last_synced_at.strftime("%Y-%m-%d %H:%M") if d.last_synced_at else "never",
        ]
        for d in service.list_docsets()
    ]


def _model_text(service: RagspaceService, docset: DocSet) -> str:
    if docset.target_embedding_model and service.needs_reembedding(docset):
        return f"{docset.embedding_model} (re-embedding with {docset.target_embedding_model})"
    if service.needs_reembedding(docset):
        return f"{docset.embedding_model} (needs re-embedding)"
    return docset.embedding_model


def build_docsets_tab(service: RagspaceService) -> DocsetsTab:
    """Lay out the DocSets tab and wire its handlers."""
    editable = not service.read_only  # the service refuses changes anyway; this only tidies
    gr.Markdown(
        "Create a DocSet, then upload files (text, code, HTML, PDF, notebooks, .zip) or add "
        "GitHub and website sources. Embedding runs in the background."
        if editable
        else "The DocSets you can search and chat with on the Chat tab."
    )
    table = gr.Dataframe(
        headers=DOCSET_HEADERS,
        label="DocSets",
        interactive=False,
        wrap=True,
        column_widths=["14%", "34%", "10%", "8%", "20%", "14%"],
    )
    with gr.Row(visible=editable):
        with gr.Column():
            gr.Markdown("### New DocSet")
            new_name = gr.Textbox(label="Name", placeholder="e.g. fastapi-docs")
            new_description = gr.Textbox(label="Description", lines=2)
            create = gr.Button("Create DocSet", variant="primary")
        with gr.Column():
            gr.Markdown("### Selected DocSet")
            selected = gr.Dropdown(
                label="DocSet", choices=[], interactive=True, elem_id="docset-select"
            )
            files = gr.File(
                label="Files to add",
                file_count="multiple",
                type="filepath",
                elem_id="docset-files",
            )
            upload = gr.Button("Add files", variant="primary")
            with gr.Accordion("Rename, describe or delete", open=False):
                rename_to = gr.Textbox(label="New name")
                rename = gr.Button("Rename")
                describe_as = gr.Textbox(label="New description", lines=2)
                describe = gr.Button("Save description")
                delete = gr.Button("Delete DocSet…", variant="stop")
                with gr.Row(visible=False) as confirm_row:
                    confirm_text = gr.Markdown()
                    confirm = gr.Button("Yes, delete it", variant="stop")
                    cancel = gr.Button("Cancel")
    status = gr.Markdown()
    with gr.Column(visible=editable):
        gr.Markdown("### Sources\nPreview a GitHub repository, file or website, then confirm.")
        source_events = build_sources_panel(service, selected)

    @user_errors
    def on_create(name: str, description: str) -> tuple[str, Any, str, str]:
        docset = service.create_docset(name, description)
        return f"Created DocSet **{docset.name}**.", _select(service, docset.name), "", ""

    @user_errors
    def on_upload(docset: str | None, paths: list[str] | None) -> tuple[str, None]:
        name = _required(docset)
        uploads = [UploadedFile(Path(p).name, Path(p).read_bytes()) for p in paths or []]
        documents = service.add_files(name, uploads)
        for p in paths or []:  # added: the copy in Gradio's cache must not be served any more
            Path(p).unlink(missing_ok=True)
        lines = [
            f"Added {len(documents)} file(s) to **{name}**; embedding runs in the background "
            "(follow it in the Embedding status tab):"
        ]
        lines += [
            f"- `{d.path}`: {d.embedding_status.value}"
            + (f" ({d.error_message})" if d.error_message else "")
            for d in documents
        ]
        return "\n".join(lines), None

    @user_errors
    def on_rename(docset: str | None, new: str) -> tuple[str, Any, str]:
        renamed = service.rename_docset(_required(docset), new)
        return f"Renamed to **{renamed.name}**.", _select(service, renamed.name), ""

    @user_errors
    def on_describe(docset: str | None, description: str) -> str:
        service.describe_docset(_required(docset), description)
        return "Description saved."

    @user_errors
    def on_delete_request(docset: str | None) -> tuple[Any, str]:
        name = _required(docset)
        return gr.update(visible=True), f"Delete **{name}** and all its documents?"

    @user_errors
    def on_delete(docset: str | None) -> tuple[str, Any, Any]:
        name = _required(docset)
        service.delete_docset(name)
        return f"Deleted DocSet **{name}**.", gr.update(visible=False), gr.update(value=None)

    changed = [
        create.click(
            on_create, [new_name, new_description], [status, selected, new_name, new_description]
        ),
        upload.click(on_upload, [selected, files], [status, files]),
        rename.click(on_rename, [selected, rename_to], [status, selected, rename_to]),
        describe.click(on_describe, [selected, describe_as], [status]),
        confirm.click(on_delete, [selected], [status, confirm_row, selected]),
        *source_events,
    ]
    delete.click(on_delete_request, [selected], [confirm_row, confirm_text])
    cancel.click(lambda: gr.update(visible=False), None, [confirm_row])
    return DocsetsTab(table=table, selected=selected, changed=changed)


def _select(service: RagspaceService, name: str) -> Any:
    """Select a DocSet, sending the choices too: a value outside them fails the next event."""
    return gr.update(choices=[d.name for d in service.list_docsets()], value=name)


def _required(docset: str | None) -> str:
    if not docset:
        raise gr.Error("Select a DocSet first.")
    return docset
