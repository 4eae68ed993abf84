"""DocSets tab: create, rename, describe, delete, upload files, sources, and documents."""

import contextlib
from dataclasses import dataclass
from typing import Any

import gradio as gr
from gradio.events import Dependency

from ragspace.actions import Actions
from ragspace.errors import ConflictError
from ragspace.models import DocSet, Document
from ragspace.sample import SAMPLE_DESCRIPTION, SAMPLE_DOCSET, sample_files
from ragspace_ui.docset_forms import (
    DOCSET_LIST_LANE,
    ManageForm,
    UploadForm,
    layout_manage_form,
    layout_upload_form,
    required_docset,
    select_docset,
    upload_report,
    wire_manage_form,
    wire_upload_form,
)
from ragspace_ui.documents_panel import (
    DocumentsPanel,
    layout_documents_panel,
    wire_documents_panel,
)
from ragspace_ui.error_messages import inline_errors, user_errors
from ragspace_ui.escape import md
from ragspace_ui.repo_map_view import map_html
from ragspace_ui.sources_panel import SourcesPanel, layout_sources_panel, wire_sources_panel

DOCSET_HEADERS = ["DocSet", "Description", "Documents", "Chunks", "Embedding model", "Last sync"]


EMPTY_DOCSETS = (
    "**No DocSets yet.** Create one with a name on the left, then add files or a GitHub or "
    "website source, or try RAGSpace right away with the sample DocSet (a few short documents "
    "shipped with the app)."
)


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
    uploads: UploadForm
    manage: ManageForm
    sources: SourcesPanel
    documents: DocumentsPanel
    draw_map: gr.Button
    code_map: gr.HTML


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
            uploads = layout_upload_form(actions)
            manage = layout_manage_form()
    with gr.Column(visible=editable):
        gr.Markdown("### Sources\nPreview a GitHub repository, file or website, then confirm.")
        sources = layout_sources_panel()
    documents = layout_documents_panel(actions)
    with gr.Accordion("Code map of the selected DocSet", open=False, elem_id="code-map-panel"):
        draw_map = gr.Button("Draw the code map")
        code_map = gr.HTML(elem_id="repo-map")
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
        uploads=uploads,
        manage=manage,
        sources=sources,
        documents=documents,
        draw_map=draw_map,
        code_map=code_map,
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
        return f"Created DocSet **{md(docset.name)}**.", select_docset(actions, docset.name), "", ""

    @inline_errors(outputs=2)
    def on_sample() -> tuple[str, Any]:
        name, documents = add_sample(actions)
        return upload_report(name, documents), select_docset(actions, name)

    @user_errors
    def on_draw_map(docset: str | None) -> str:
        return map_html(actions.symbols.repo_graph(required_docset(docset)))

    t.draw_map.click(on_draw_map, [t.selected], [t.code_map])
    changed = [
        t.create.click(
            on_create,
            [t.new_name, t.new_description],
            [t.create_message, t.selected, t.new_name, t.new_description],
            **DOCSET_LIST_LANE,
        ),
        *wire_upload_form(actions, t.uploads, t.selected),
        t.sample.click(on_sample, None, [t.sample_message, t.selected], **DOCSET_LIST_LANE),
        *wire_manage_form(actions, t.manage, t.selected),
        *source_events,
        *document_events.removed,
    ]
    document_events.refresh_after(changed)
    return changed
