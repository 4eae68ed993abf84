"""The selected DocSet's documents: listed, filtered, opened in the viewer, re-embedded, removed."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr
from gradio.events import Dependency

from ragspace.actions import Actions
from ragspace.errors import NotFoundError
from ragspace.models import Document, Source, SourceKind
from ragspace_ui.amounts import size_text
from ragspace_ui.error_messages import inline_errors
from ragspace_ui.escape import md
from ragspace_ui.viewer import EMPTY_VIEWER, open_document

DOCUMENT_HEADERS = ["Path", "Source", "Status", "Chunks", "Size", "Last sync", "Reason"]
UPLOADED = "upload"
NOTHING_CHOSEN = "Choose one or more documents in the list above first."
MAX_LISTED = 500


@dataclass(frozen=True)
class DocumentRow:
    """One line of the documents table, as shown."""

    path: str
    source: str
    status: str
    chunks: int
    size: str
    last_sync: str
    reason: str
    ref: str = ""  # the GitHub ref of a versioned DocSet's document ('' otherwise)

    @property
    def key(self) -> str:
        """What the row is chosen by: its path, with the ref when it has one."""
        return document_key(self.path, self.ref)

    def cells(self) -> list[Any]:
        return [
            self.key,
            self.source,
            self.status,
            self.chunks,
            self.size,
            self.last_sync,
            self.reason,
        ]

    def matches(self, needle: str) -> bool:
        """True when the filter text is in the path, source, status or reason (any case)."""
        folded = needle.strip().casefold()
        haystack = (self.key, self.source, self.status, self.reason)
        return not folded or any(folded in field.casefold() for field in haystack)


def document_key(path: str, ref: str) -> str:
    """`path`, or `path @ ref` for a document of one ref of a versioned DocSet."""
    return f"{path} @ {ref}" if ref else path


def chosen_documents(actions: Actions, docset: str, keys: list[str]) -> list[Document]:
    """The documents of a DocSet chosen by their keys (see `document_key`), in that order."""
    documents = {document_key(d.path, d.ref): d for d in actions.documents.all(docset)}
    return [documents[key] for key in keys if key in documents]


def source_label(source: Source) -> str:
    """Where a source's documents come from: `GitHub owner/repo@ref`, `folder flask`, ..."""
    if source.kind is SourceKind.UPLOAD:
        if source.is_folder:
            return f"folder {source.location}"
        return f"upload of {source.created_at:%Y-%m-%d %H:%M}"
    if source.kind is SourceKind.WEB:
        return f"web {source.location}"
    ref = source.github_options.ref
    return f"GitHub {source.location}" + (f"@{ref}" if ref else "")


def document_rows(actions: Actions, docset: str) -> list[DocumentRow]:
    """Every document of a DocSet, sorted by path (then ref)."""
    sources = {s.id: source_label(s) for s in actions.sources.all(docset)}
    documents = sorted(actions.documents.all(docset), key=lambda d: (d.path, d.ref))
    return [_row(d, sources) for d in documents]


def _row(document: Document, sources: dict[int, str]) -> DocumentRow:
    source = UPLOADED if document.source_id is None else sources.get(document.source_id, "")
    return DocumentRow(
        path=document.path,
        source=source,
        status=document.embedding_status.value,
        chunks=document.chunk_count,
        size=size_text(document.size_bytes),
        last_sync=document.updated_at.strftime("%Y-%m-%d %H:%M"),
        reason=document.error_message or "",
        ref=document.ref,
    )


def listing(actions: Actions, docset: str | None, needle: str) -> tuple[Any, Any, str]:
    """The filtered table, the paths to choose from, and a one-line summary."""
    if not docset:
        return [], gr.update(choices=[], value=[]), "_Select a DocSet to list its documents._"
    rows = document_rows(actions, docset)
    matching = [row for row in rows if row.matches(needle or "")]
    shown = matching[:MAX_LISTED]  # a browser table of thousands of rows is no use to anyone
    summary = f"{len(matching)} of {len(rows)} document(s) of **{md(docset)}**"
    if len(rows) and not matching:
        summary += " match the filter"
    if len(shown) < len(matching):
        summary += f"; the first {len(shown)} are listed, narrow them with the filter"
    paths = [row.key for row in shown]
    return [row.cells() for row in shown], gr.update(choices=paths, value=[]), summary + "."


# --- layout ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentsPanel:
    """The panel's components the wiring needs."""

    accordion: gr.Accordion
    needle: gr.Textbox
    refresh: gr.Button
    summary: gr.Markdown
    table: gr.Dataframe
    chosen: gr.Dropdown
    open_button: gr.Button
    reembed: gr.Button
    remove: gr.Button
    confirm_row: gr.Row
    confirm_text: gr.Markdown
    confirm: gr.Button
    cancel: gr.Button
    message: gr.Markdown
    viewer: gr.HTML

    @property
    def listed(self) -> list[Any]:
        """What a listing fills: the table, the documents to choose from, the summary."""
        return [self.table, self.chosen, self.summary]


def layout_documents_panel(actions: Actions) -> DocumentsPanel:
    """Lay out the panel under the DocSets tab (its change buttons hidden when read-only)."""
    editable = not actions.read_only
    with gr.Accordion(
        "Documents of the selected DocSet", open=False, elem_id="documents-panel"
    ) as accordion:
        with gr.Row():
            needle = gr.Textbox(
                label="Filter",
                placeholder="part of a path, a source, a status (error, pending…) or a reason",
                scale=4,
            )
            refresh = gr.Button("Refresh list", scale=1)
        summary = gr.Markdown(elem_id="documents-summary")
        table = gr.Dataframe(
            headers=DOCUMENT_HEADERS,
            label="Documents",
            interactive=False,
            wrap=True,
            elem_id="documents-table",
            elem_classes=["readable-table"],
        )
        chosen = gr.Dropdown(
            label="Chosen documents",
            choices=[],
            value=[],
            multiselect=True,
            interactive=True,
            elem_id="documents-chosen",
        )
        with gr.Row():
            open_button = gr.Button("Open in the viewer")
            reembed = gr.Button("Re-embed chosen", visible=editable)
            remove = gr.Button("Remove chosen…", variant="stop", visible=editable)
        with gr.Row(visible=False) as confirm_row:
            confirm_text = gr.Markdown()
            confirm = gr.Button("Yes, remove them", variant="stop")
            cancel = gr.Button("Cancel")
        message = gr.Markdown(elem_id="documents-message")
        viewer = gr.HTML(EMPTY_VIEWER, elem_id="document-viewer")
    return DocumentsPanel(
        accordion=accordion,
        needle=needle,
        refresh=refresh,
        summary=summary,
        table=table,
        chosen=chosen,
        open_button=open_button,
        reembed=reembed,
        remove=remove,
        confirm_row=confirm_row,
        confirm_text=confirm_text,
        confirm=confirm,
        cancel=cancel,
        message=message,
        viewer=viewer,
    )


# --- wiring ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentsEvents:
    """What the DocSets tab needs of the wired panel."""

    removed: list[Dependency]  # the panel's events that change counts
    refresh_after: Callable[[list[Dependency]], None]  # list the documents again after these


def wire_documents_panel(
    actions: Actions, panel: DocumentsPanel, selected: gr.Dropdown
) -> DocumentsEvents:
    """Attach the panel's own handlers; returns its removals, and how to list the documents
    again after other events (uploads and sources add documents)."""

    # one handler object for every listing, the refreshes after other tabs' events too:
    # Gradio queues by handler (its concurrency id is id(fn)), so listings run one at a time
    @inline_errors(outputs=3, message_at=2)
    def on_list(docset: str | None, text: str) -> tuple[Any, Any, str]:
        return listing(actions, docset, text)

    @inline_errors(outputs=2)
    def on_open(docset: str | None, paths: list[str] | None) -> tuple[str, str]:
        return open_chosen(actions, docset, paths)

    @inline_errors(outputs=1)
    def on_reembed(docset: str | None, paths: list[str] | None) -> str:
        return reembed_chosen(actions, docset, paths)

    @inline_errors(outputs=3)
    def on_remove_request(docset: str | None, paths: list[str] | None) -> tuple[str, Any, str]:
        count = len(_chosen(paths))
        question = f"Remove {count} document(s) from **{md(_docset(docset))}** and their chunks?"
        return "", gr.update(visible=True), question

    @inline_errors(outputs=2)
    def on_remove(docset: str | None, paths: list[str] | None) -> tuple[str, Any]:
        return f"Removed {remove_chosen(actions, _docset(docset), _chosen(paths))} document(s).", (
            gr.update(visible=False)
        )

    p = panel
    filters = [selected, p.needle]
    p.accordion.expand(on_list, filters, p.listed, show_progress="hidden")
    selected.change(on_list, filters, p.listed, show_progress="hidden")
    p.needle.change(on_list, filters, p.listed, show_progress="hidden")
    p.refresh.click(on_list, filters, p.listed)
    p.open_button.click(on_open, [selected, p.chosen], [p.message, p.viewer])
    p.reembed.click(on_reembed, [selected, p.chosen], [p.message]).then(on_list, filters, p.listed)
    p.remove.click(
        on_remove_request, [selected, p.chosen], [p.message, p.confirm_row, p.confirm_text]
    )
    p.cancel.click(lambda: gr.update(visible=False), None, [p.confirm_row])
    removed = p.confirm.click(on_remove, [selected, p.chosen], [p.message, p.confirm_row])
    removed.then(on_list, filters, p.listed)

    def refresh_after(events: list[Dependency]) -> None:
        for event in events:
            event.then(on_list, filters, p.listed, show_progress="hidden")

    return DocumentsEvents(removed=[removed], refresh_after=refresh_after)


def open_chosen(actions: Actions, docset: str | None, paths: list[str] | None) -> tuple[str, str]:
    """A note and the viewer's page for the first chosen document."""
    key = _chosen(paths)[0]
    note = f"Showing {md(key)}." + (" (the first one chosen)" if len(paths or []) > 1 else "")
    found = chosen_documents(actions, _docset(docset), [key])
    ref = (found[0].ref or None) if found else None
    path = found[0].path if found else key
    return note, open_document(actions, _docset(docset), path, ref)


def reembed_chosen(actions: Actions, docset: str | None, paths: list[str] | None) -> str:
    """Queue the chosen documents for re-embedding; what was done, as the panel says it."""
    documents = chosen_documents(actions, _docset(docset), _chosen(paths))
    queued = actions.documents.reembed([d.id for d in documents])
    return f"Queued {queued} document(s) for re-embedding; progress on the Embedding status tab."


def remove_chosen(actions: Actions, docset: str, keys: list[str]) -> int:
    """Remove the chosen documents, each only at its own ref; how many were removed."""
    by_ref: dict[str, list[str]] = {}
    found = chosen_documents(actions, docset, keys)
    for document in found:
        by_ref.setdefault(document.ref, []).append(document.path)
    removed = sum(
        len(actions.documents.remove(docset, paths, ref)) for ref, paths in by_ref.items()
    )
    known = {document_key(d.path, d.ref) for d in found}
    missing = [key for key in keys if key not in known]
    if missing:  # listed, then removed elsewhere: say which, and what was removed
        raise NotFoundError(
            f"DocSet {docset!r} has no document {', '.join(map(repr, missing))}"
            + (f"; removed {removed} other(s)." if removed else ".")
        )
    return removed


def _docset(docset: str | None) -> str:
    if not docset:
        raise gr.Error("Select a DocSet first.")
    return docset


def _chosen(paths: list[str] | None) -> list[str]:
    if not paths:
        raise gr.Error(NOTHING_CHOSEN)
    return paths
