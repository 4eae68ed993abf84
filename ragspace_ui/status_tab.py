"""Embedding status tab: every document's state and progress, refreshed live; re-embed buttons."""

from dataclasses import dataclass
from typing import Any

import gradio as gr
import pandas as pd

from ragspace.errors import DatabaseUnavailableError
from ragspace.models import Document, EmbeddingStatus, tier_text
from ragspace.services import RagspaceService
from ragspace_ui.errors import user_errors

STATUS_HEADERS = [
    "ID",
    "Document",
    "DocSet",
    "Status",
    "Chunks",
    "Progress",
    "Updated",
    "Error",
]
ALL = "All"
REFRESH_SECONDS = 2.0
CHART_COLUMNS = ["DocSet", "Status", "Documents"]
# one fixed colour per status, so a status keeps its colour whichever ones are present
STATUS_COLORS = {
    EmbeddingStatus.PENDING.value: "#9ca3af",
    EmbeddingStatus.PROCESSING.value: "#3b82f6",
    EmbeddingStatus.DONE.value: "#22c55e",
    EmbeddingStatus.ERROR.value: "#ef4444",
}


@dataclass
class StatusTab:
    """Components other tabs refresh."""

    docset_filter: gr.Dropdown


@dataclass(frozen=True)
class StatusView:
    """What the tab shows for one pair of filters."""

    notice: str
    summary: str
    rows: list[list[Any]]
    choices: list[str]
    chart: pd.DataFrame


def progress_text(document: Document) -> str:
    """Chunks embedded out of the total, for documents being or having been embedded."""
    if document.embedding_status == EmbeddingStatus.PENDING:
        return "queued"
    if document.chunks_total == 0:
        return ""
    percent = 100 * document.chunks_embedded // document.chunks_total
    return f"{document.chunks_embedded}/{document.chunks_total} ({percent}%)"


def document_choice(document: Document) -> str:
    """A document as listed in the re-embed selector: `#id path (DocSet)`."""
    return f"#{document.id} {document.path} ({document.docset_name})"


def chosen_ids(choices: list[str] | None) -> list[int]:
    """Document ids from selector entries."""
    return [int(choice.split(" ", 1)[0].lstrip("#")) for choice in choices or []]


def status_chart(documents: list[Document]) -> pd.DataFrame:
    """Documents counted per DocSet and status: one bar per DocSet, one colour per status."""
    counts: dict[tuple[str, str], int] = {}
    for document in documents:
        key = (document.docset_name, document.embedding_status.value)
        counts[key] = counts.get(key, 0) + 1
    rows = [[docset, status, n] for (docset, status), n in sorted(counts.items())]
    return pd.DataFrame(rows, columns=CHART_COLUMNS).astype({"Documents": "int64"})


def status_view(service: RagspaceService, docset: str | None, status: str | None) -> StatusView:
    """Notices, summary counts, table rows and selector choices for the filters."""
    docset_name = None if docset in (None, "", ALL) else docset
    documents = service.list_documents(
        docset_name, None if status in (None, "", ALL) else EmbeddingStatus(status)
    )
    counts = {s: 0 for s in EmbeddingStatus}
    for document in documents:
        counts[document.embedding_status] += 1
    summary = f"**{len(documents)} documents** · " + " · ".join(
        f"**{s.value}** {n}" for s, n in counts.items()
    )
    summary += f" · vectors: {tier_text(documents)}"
    docsets = [d for d in service.list_docsets() if docset_name in (None, d.name)]
    notices = [service.embedding_notice(d) for d in docsets]
    notice = "\n".join(f"⚠️ {text}" for text in notices if text)
    rows = [
        [
            d.id,
            d.path,
            d.docset_name,
            d.embedding_status.value,
            d.chunk_count,
            progress_text(d),
            d.updated_at.strftime("%Y-%m-%d %H:%M:%S"),
            d.error_message or "",
        ]
        for d in documents
    ]
    choices = [document_choice(d) for d in documents]
    return StatusView(notice, summary, rows, choices, status_chart(documents))


def database_notice(problem: str) -> str:
    """The banner shown instead of fresh figures while the database is down."""
    return f"⛔ **Database unavailable** — {problem}"


def status_outputs(
    service: RagspaceService, docset: str | None, status: str | None, chosen: list[str] | None
) -> tuple[Any, ...]:
    """Notice, summary, table, chart, picker; over the last figures a banner if the DB is down."""
    try:
        view = status_view(service, docset, status)
    except DatabaseUnavailableError as exc:  # keep the last table; say why it is stale
        return database_notice(str(exc)), gr.update(), gr.update(), gr.update(), gr.update()
    kept = [c for c in chosen or [] if c in view.choices]
    picker = gr.update(choices=view.choices, value=kept)
    return view.notice, view.summary, view.rows, view.chart, picker


def build_status_tab(service: RagspaceService) -> StatusTab:
    """Lay out the status tab; the table refreshes every few seconds."""
    with gr.Row():
        docset_filter = gr.Dropdown(label="DocSet", choices=[ALL], value=ALL, interactive=True)
        status_filter = gr.Dropdown(
            label="Status", choices=[ALL, *[s.value for s in EmbeddingStatus]], value=ALL
        )
        refresh = gr.Button("Refresh")
    notice = gr.Markdown()
    summary = gr.Markdown(elem_id="status-summary")
    chart = gr.BarPlot(
        x="DocSet",
        y="Documents",
        color="Status",
        color_map=STATUS_COLORS,
        label="Documents by status per DocSet",
        x_title="DocSet",
        y_title="Documents",
        elem_id="status-chart",
    )
    table = gr.Dataframe(
        headers=STATUS_HEADERS,
        label="Documents",
        interactive=False,
        wrap=True,
        column_widths=["6%", "22%", "12%", "10%", "8%", "12%", "15%", "15%"],
        elem_id="status-table",
    )
    with gr.Accordion("Re-embed", open=True, visible=not service.read_only):
        selection = gr.Dropdown(
            label="Documents to re-embed", choices=[], multiselect=True, interactive=True
        )
        with gr.Row():
            selected_button = gr.Button("Re-embed selected documents")
            failed_button = gr.Button("Re-embed failed only")
            docset_button = gr.Button("Re-embed whole DocSet", variant="stop")
        action = gr.Markdown()
    timer = gr.Timer(REFRESH_SECONDS)

    @user_errors
    def load(docset: str | None, status: str | None, chosen: list[str] | None) -> tuple[Any, ...]:
        return status_outputs(service, docset, status, chosen)

    @user_errors
    def on_selected(chosen: list[str] | None) -> tuple[str, Any]:
        queued = service.reembed_documents(chosen_ids(chosen))
        return f"Queued {queued} document(s) for re-embedding.", gr.update(value=[])

    @user_errors
    def on_failed(docset: str | None) -> str:
        queued = service.reembed_failed(None if docset in (None, ALL) else docset)
        return f"Queued {queued} failed document(s) again."

    @user_errors
    def on_docset(docset: str | None) -> str:
        if docset in (None, "", ALL):
            raise gr.Error("Choose a DocSet in the DocSet filter first.")
        assert docset is not None
        queued = service.reembed_docset(docset)
        return (
            f"Re-embedding all {queued} document(s) of **{docset}** with the configured model; "
            "progress shows in the table."
        )

    inputs = [docset_filter, status_filter, selection]
    outputs = [notice, summary, table, chart, selection]
    for trigger in (refresh.click, docset_filter.change, status_filter.change, timer.tick):
        trigger(load, inputs, outputs, show_progress="hidden")
    selected_button.click(on_selected, [selection], [action, selection], show_progress="minimal")
    failed_button.click(on_failed, [docset_filter], [action], show_progress="minimal")
    docset_button.click(on_docset, [docset_filter], [action], show_progress="minimal")
    return StatusTab(docset_filter=docset_filter)
