"""DocSets tab: create, rename, describe, delete, upload files, sources, and documents."""

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr
from gradio.events import Dependency

from ragspace.actions import Actions
from ragspace.actions.source_requests import globs
from ragspace.errors import ConflictError
from ragspace.models import DocSet, Document, FolderOptions
from ragspace.sample import SAMPLE_DESCRIPTION, SAMPLE_DOCSET, sample_files
from ragspace.sources.files import UploadedFile
from ragspace_ui.documents_panel import (
    DocumentsPanel,
    layout_documents_panel,
    wire_documents_panel,
)
from ragspace_ui.errors import inline_errors
from ragspace_ui.escape import md, md_code
from ragspace_ui.folder_upload import FOLDER_INPUT_ID, FOLDER_PATHS_ID, folder_files, folder_report
from ragspace_ui.sources_panel import SourcesPanel, layout_sources_panel, wire_sources_panel

DOCSET_HEADERS = ["DocSet", "Description", "Documents", "Chunks", "Embedding model", "Last sync"]


EMPTY_DOCSETS = (
    "**No DocSets yet.** Create one with a name on the left, then add files or a GitHub or "
    "website source, or try RAGSpace right away with the sample DocSet (a few short documents "
    "shipped with the app)."
)
NO_DOCSET_SELECTED = "_Create or select a DocSet to add files to it._"
# Events that set the selected DocSet (create, sample, rename, delete, the list refreshes)
# run one at a time, in the order they were asked for: a refresh asked for when the page
# loaded must not land after a DocSet created since and select nothing again (seen under
# load, after which the dropdown kept firing its change event).
DOCSET_LIST_LANE: dict[str, Any] = {"concurrency_id": "docset-list", "concurrency_limit": 1}


def docset_rows(actions: Actions) -> list[list[Any]]:
    """The DocSets table."""
    return [
        [
            d.name,
            d.description,
            d.document_count,
            d.chunk_count,
            _model_text(actions, d),
            d.last_synced_at.strftime("%Y-%m-%d %H:%M") if d.last_synced_at else "never",
        ]
        for d in actions.docsets.all()
    ]


def _model_text(actions: Actions, docset: DocSet) -> str:
    if docset.target_embedding_model and actions.docsets.needs_reembedding(docset):
        return f"{docset.embedding_model} (re-embedding with {docset.target_embedding_model})"
    if actions.docsets.needs_reembedding(docset):
        return f"{docset.embedding_model} (needs re-embedding)"
    return docset.embedding_model


def size_text(size: int) -> str:
    """A byte count as people say it: 20 MB, 512 KB."""
    for unit, factor in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if size >= factor:
            value = size / factor
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} bytes"


def upload_limits_text(actions: Actions) -> str:
    """The upload limits, shown before anything is uploaded."""
    return (
        f"Up to {size_text(actions.mode.max_upload_bytes)} per file. Text, code, HTML, PDF and "
        "notebooks are indexed, .zip archives unpacked; empty and binary files are skipped."
    )


def upload_report(name: str, documents: list[Document]) -> str:
    """What an upload did: files added (embedding in the background) and files skipped, why."""
    added = [d for d in documents if not d.error_message]
    skipped = [d for d in documents if d.error_message]
    lines: list[str] = []
    if added:
        lines.append(
            f"Added {len(added)} file(s) to **{md(name)}**; embedding runs in the background "
            "(follow it in the Embedding status tab):"
        )
        lines += [f"- {md_code(d.path)}" for d in added]
    else:
        lines.append(f"Nothing was added to **{md(name)}**.")
    if skipped:
        lines.append(f"\nSkipped {len(skipped)} file(s):")
        lines += [f"- {md_code(d.path)}: {md(d.error_message)}" for d in skipped]
    redacted = [item for d in added for item in d.redactions]
    if redacted:  # the text is indexed without them; say so, as a folder's skip list does
        lines.append(f"\nRedacted {len(redacted)} line(s) that look like secrets:")
        lines += [f"- {md_code(item.path)}: {md(item.reason)}" for item in redacted]
    return "\n".join(lines)


def add_sample(actions: Actions) -> tuple[str, list[Document]]:
    """Create the sample DocSet (or refresh its files) from the files the package ships."""
    # added before: its files are added again, unchanged ones are kept as they are
    with contextlib.suppress(ConflictError):
        actions.docsets.create(SAMPLE_DOCSET, SAMPLE_DESCRIPTION)
    return SAMPLE_DOCSET, actions.sources.add_files(SAMPLE_DOCSET, sample_files())


# --- layout ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DocsetsTab:
    """The tab's components: for its own wiring and for the lists other tabs refresh."""

    empty_state: gr.Column
    sample: gr.Button
    sample_message: gr.Markdown
    table: gr.Dataframe
    new_name: gr.Textbox
    new_description: gr.Textbox
    create: gr.Button
    create_message: gr.Markdown
    selected: gr.Dropdown
    files: gr.File
    upload: gr.Button
    folder: gr.File
    folder_paths: gr.Textbox
    folder_include: gr.Textbox
    folder_exclude: gr.Textbox
    add_folder: gr.Button
    upload_message: gr.Markdown
    rename_to: gr.Textbox
    rename: gr.Button
    describe_as: gr.Textbox
    describe: gr.Button
    delete: gr.Button
    confirm_row: gr.Row
    confirm_text: gr.Markdown
    confirm: gr.Button
    cancel: gr.Button
    manage_message: gr.Markdown
    sources: SourcesPanel
    documents: DocumentsPanel


def layout_docsets_tab(actions: Actions) -> DocsetsTab:
    """Lay out the DocSets tab (its change forms hidden when read-only)."""
    editable = not actions.read_only  # the actions refuse changes anyway; this only tidies
    gr.Markdown(
        "Create a DocSet, then upload files or add GitHub and website sources. Embedding runs "
        "in the background."
        if editable
        else "The DocSets you can search and chat with on the Chat tab."
    )
    with gr.Column(visible=False, elem_id="docsets-empty") as empty_state:
        gr.Markdown(EMPTY_DOCSETS)
        sample = gr.Button("Add the sample DocSet", variant="primary", visible=editable)
    # outside the empty state, which hides as soon as the sample DocSet is listed
    sample_message = gr.Markdown(elem_id="sample-message")
    table = gr.Dataframe(
        headers=DOCSET_HEADERS,
        label="DocSets",
        interactive=False,
        wrap=True,
        column_widths=["14%", "34%", "10%", "8%", "20%", "14%"],
        elem_classes=["readable-table"],
    )
    with gr.Row(visible=editable):
        with gr.Column():
            gr.Markdown("### New DocSet")
            new_name = gr.Textbox(label="Name", placeholder="e.g. fastapi-docs")
            new_description = gr.Textbox(label="Description", lines=2)
            create = gr.Button("Create DocSet", variant="primary")
            create_message = gr.Markdown(elem_id="create-message")
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
            gr.Markdown(upload_limits_text(actions), elem_id="upload-limits")
            upload = gr.Button("Add files", variant="secondary", interactive=False)
            folder = gr.File(
                label="Or a whole folder (its .gitignore respected, binaries skipped)",
                file_count="directory",
                type="filepath",
                elem_id=FOLDER_INPUT_ID,
            )
            # where each file sits in the folder, filled in by the page (folder_upload.py)
            folder_paths = gr.Textbox(visible="hidden", elem_id=FOLDER_PATHS_ID)
            with gr.Row():
                folder_include = gr.Textbox(label="Folder: include globs", placeholder="src/**")
                folder_exclude = gr.Textbox(label="Folder: exclude globs", placeholder="tests/**")
            add_folder = gr.Button("Add folder", variant="secondary", interactive=False)
            upload_message = gr.Markdown(NO_DOCSET_SELECTED, elem_id="upload-message")
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
                manage_message = gr.Markdown(elem_id="manage-message")
    with gr.Column(visible=editable):
        gr.Markdown("### Sources\nPreview a GitHub repository, file or website, then confirm.")
        sources = layout_sources_panel()
    documents = layout_documents_panel(actions)
    return DocsetsTab(
        empty_state=empty_state,
        sample=sample,
        sample_message=sample_message,
        table=table,
        new_name=new_name,
        new_description=new_description,
        create=create,
        create_message=create_message,
        selected=selected,
        files=files,
        upload=upload,
        folder=folder,
        folder_paths=folder_paths,
        folder_include=folder_include,
        folder_exclude=folder_exclude,
        add_folder=add_folder,
        upload_message=upload_message,
        rename_to=rename_to,
        rename=rename,
        describe_as=describe_as,
        describe=describe,
        delete=delete,
        confirm_row=confirm_row,
        confirm_text=confirm_text,
        confirm=confirm,
        cancel=cancel,
        manage_message=manage_message,
        sources=sources,
        documents=documents,
    )


# --- wiring ---------------------------------------------------------------------------


def wire_docsets_tab(actions: Actions, tab: DocsetsTab) -> list[Dependency]:
    """Attach the tab's handlers (and its panels'); returns the events after which every
    DocSet list must refresh."""
    t = tab
    source_events = wire_sources_panel(actions, t.sources, t.selected)
    document_events = wire_documents_panel(actions, t.documents, t.selected)

    @inline_errors(outputs=4)
    def on_create(name: str, description: str) -> tuple[str, Any, str, str]:
        docset = actions.docsets.create(name, description)
        return f"Created DocSet **{md(docset.name)}**.", _select(actions, docset.name), "", ""

    @inline_errors(outputs=2)
    def on_upload(docset: str | None, paths: list[str] | None) -> tuple[str, None]:
        name = _required(docset)
        uploads = [UploadedFile(Path(p).name, Path(p).read_bytes()) for p in paths or []]
        documents = actions.sources.add_files(name, uploads)
        for p in paths or []:  # added: the copy in Gradio's cache must not be served any more
            Path(p).unlink(missing_ok=True)
        return upload_report(name, documents), None

    @inline_errors(outputs=3)
    def on_add_folder(
        docset: str | None, paths: list[str] | None, listing: str, include: str, exclude: str
    ) -> tuple[str, None, str]:
        name = _required(docset)
        if not paths:
            raise gr.Error("Choose a folder first.")
        folder_name, uploads = folder_files(paths, listing)
        options = FolderOptions(include=globs(include), exclude=globs(exclude))
        report = actions.sources.add_uploaded_folder(name, folder_name, uploads, options)
        for p in paths:  # added: the copies in Gradio's cache must not be served any more
            Path(p).unlink(missing_ok=True)
        return folder_report(name, folder_name, report), None, ""

    @inline_errors(outputs=2)
    def on_sample() -> tuple[str, Any]:
        name, documents = add_sample(actions)
        return upload_report(name, documents), _select(actions, name)

    def on_docset_chosen(docset: str | None, message: str | None) -> tuple[Any, Any, Any]:
        chosen = bool(docset)
        button = gr.update(interactive=chosen, variant="primary" if chosen else "secondary")
        return button, gr.update(interactive=chosen), upload_hint(chosen, message)

    @inline_errors(outputs=3)
    def on_rename(docset: str | None, new: str) -> tuple[str, Any, str]:
        renamed = actions.docsets.rename(_required(docset), new)
        return f"Renamed to **{md(renamed.name)}**.", _select(actions, renamed.name), ""

    @inline_errors(outputs=1)
    def on_describe(docset: str | None, description: str) -> str:
        actions.docsets.describe(_required(docset), description)
        return "Description saved."

    @inline_errors(outputs=3)
    def on_delete_request(docset: str | None) -> tuple[str, Any, str]:
        name = _required(docset)
        return "", gr.update(visible=True), f"Delete **{md(name)}** and all its documents?"

    @inline_errors(outputs=3)
    def on_delete(docset: str | None) -> tuple[str, Any, Any]:
        name = _required(docset)
        actions.docsets.delete(name)
        return f"Deleted DocSet **{md(name)}**.", gr.update(visible=False), gr.update(value=None)

    changed = [
        t.create.click(
            on_create,
            [t.new_name, t.new_description],
            [t.create_message, t.selected, t.new_name, t.new_description],
            **DOCSET_LIST_LANE,
        ),
        t.upload.click(on_upload, [t.selected, t.files], [t.upload_message, t.files]),
        t.add_folder.click(
            on_add_folder,
            [t.selected, t.folder, t.folder_paths, t.folder_include, t.folder_exclude],
            [t.upload_message, t.folder, t.folder_paths],
        ),
        t.sample.click(on_sample, None, [t.sample_message, t.selected], **DOCSET_LIST_LANE),
        t.rename.click(
            on_rename,
            [t.selected, t.rename_to],
            [t.manage_message, t.selected, t.rename_to],
            **DOCSET_LIST_LANE,
        ),
        t.describe.click(on_describe, [t.selected, t.describe_as], [t.manage_message]),
        t.confirm.click(
            on_delete,
            [t.selected],
            [t.manage_message, t.confirm_row, t.selected],
            **DOCSET_LIST_LANE,
        ),
        *source_events,
        *document_events.removed,
    ]
    document_events.refresh_after(changed)
    t.selected.change(
        on_docset_chosen,
        [t.selected, t.upload_message],
        [t.upload, t.add_folder, t.upload_message],
        preprocess=False,
        show_progress="hidden",  # never cover an upload's report with a spinner
    )
    t.delete.click(
        on_delete_request, [t.selected], [t.manage_message, t.confirm_row, t.confirm_text]
    )
    t.cancel.click(lambda: gr.update(visible=False), None, [t.confirm_row])
    return changed


def upload_hint(chosen: bool, message: str | None) -> Any:
    """The upload message once the DocSet selection changed. The list refreshes after every
    change and may select the same DocSet again, or none when it was deleted meanwhile: the
    report or error of the last upload stays until the next one; otherwise the message is
    the hint to choose a DocSet while none is chosen."""
    if message and message != NO_DOCSET_SELECTED:
        return gr.update()
    return "" if chosen else NO_DOCSET_SELECTED


def _select(actions: Actions, name: str) -> Any:
    """Select a DocSet, sending the choices too: a value outside them fails the next event."""
    return gr.update(choices=[d.name for d in actions.docsets.all()], value=name)


def _required(docset: str | None) -> str:
    if not docset:
        raise gr.Error("Select a DocSet first.")
    return docset
