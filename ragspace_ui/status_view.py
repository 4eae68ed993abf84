"""What the embedding status tab shows: every document's state and progress, the summary
over them and the chart, computed from the actions (no components: `status_tab.py`)."""

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import gradio as gr
import pandas as pd

from ragspace.actions import Actions
from ragspace.errors import DatabaseUnavailableError
from ragspace.models import Document, EmbeddingStatus, tier_text
from ragspace.models.progress_report import duration, progress_parts
from ragspace_ui.amounts import plural
from ragspace_ui.escape import md

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
EMPTY_STATUS = (
    "_No documents yet. Add files or a source on the **DocSets** tab (or add the sample "
    "DocSet there); their embedding progress shows here._"
)
CHART_COLUMNS = ["DocSet", "Status", "Documents", "Share"]
# one fixed colour per status, so a status keeps its colour whichever ones are present
STATUS_COLORS = {
    EmbeddingStatus.PENDING.value: "#9ca3af",
    EmbeddingStatus.PROCESSING.value: "#3b82f6",
    EmbeddingStatus.DONE.value: "#22c55e",
    EmbeddingStatus.ERROR.value: "#ef4444",
}


@dataclass(frozen=True)
class StatusView:
    """What the tab shows for one pair of filters."""

    notice: str
    summary: str
    rows: list[list[Any]]
    choices: list[str]
    chart: pd.DataFrame


def progress_text(document: Document, now: datetime | None = None) -> str:
    """Chunks embedded out of the total; while embedding, also the time spent so far.

    Progress is recorded once per embedding batch, so a document can stay at 0/61 for a
    while: the running time shows it is being worked on.
    """
    status = document.embedding_status
    if status == EmbeddingStatus.PENDING:
        return "queued"
    running = ""
    if status == EmbeddingStatus.PROCESSING and document.started_at is not None:
        elapsed = ((now or datetime.now(UTC)) - document.started_at).total_seconds()
        running = f" · {duration(elapsed)}"
    if document.chunks_total == 0:
        return f"chunking{running}" if status == EmbeddingStatus.PROCESSING else ""
    percent = 100 * document.chunks_embedded // document.chunks_total
    return f"{document.chunks_embedded}/{document.chunks_total} ({percent}%){running}"


def document_choice(document: Document) -> str:
    """A document as listed in the re-embed selector: `#id path (DocSet)`."""
    return f"#{document.id} {document.path} ({document.docset_name})"


def chosen_ids(choices: list[str] | None) -> list[int]:
    """Document ids from selector entries."""
    return [int(choice.split(" ", 1)[0].lstrip("#")) for choice in choices or []]


def status_chart(documents: list[Document]) -> pd.DataFrame:
    """Documents counted per DocSet and status: one bar per DocSet, one colour per status,
    each bar its DocSet's documents as shares of 100 % (`Share`): on one absolute scale a
    DocSet of 5 documents beside one of 2,000 was an invisible sliver. The counts stay in
    `Documents`, shown on hover.

    Every status has a row for every DocSet, zero or not: the chart fixes its colour
    domain from the statuses it is first given, so a status missing then never shows later.
    """
    counts = {
        (document.docset_name, status.value): 0
        for document in documents
        for status in EmbeddingStatus
    }
    for document in documents:
        counts[(document.docset_name, document.embedding_status.value)] += 1
    sizes: dict[str, int] = {}
    for document in documents:
        sizes[document.docset_name] = sizes.get(document.docset_name, 0) + 1
    rows = [
        [docset, status, n, round(100 * n / sizes[docset], 1)]
        for (docset, status), n in counts.items()
    ]
    rows.sort(key=lambda row: str(row[0]))
    frame = pd.DataFrame(rows, columns=CHART_COLUMNS)
    return frame.astype({"Documents": "int64", "Share": "float64"})


def overall_progress(documents: list[Document], now: datetime | None = None) -> str:
    """Documents and chunks done, the recent embedding rate and the time left (ETA), in
    Markdown (models/progress_report.py)."""
    parts = progress_parts(documents, now or datetime.now(UTC))
    return " · ".join(f"**{label}:** {value}" for label, value in parts)


def status_view(actions: Actions, docset: str | None, status: str | None) -> StatusView:
    """Notices, summary counts, table rows and selector choices for the filters."""
    docset_name = None if docset in (None, "", ALL) else docset
    everything = actions.documents.all(docset_name, None)
    wanted = None if status in (None, "", ALL) else EmbeddingStatus(status)
    documents = [d for d in everything if wanted in (None, d.embedding_status)]
    counts = {s: 0 for s in EmbeddingStatus}
    for document in documents:
        counts[document.embedding_status] += 1
    summary = f"**{plural(len(documents), 'document')}** · " + " · ".join(
        f"**{s.value}** {n}" for s, n in counts.items()
    )
    summary += f" · searchable: {tier_text(documents)}"
    summary += "\n\n" + (overall_progress(everything) or EMPTY_STATUS)
    docsets = [d for d in actions.docsets.all() if docset_name in (None, d.name)]
    notices = [actions.docsets.embedding_notice(d) for d in docsets]
    notice = "\n".join(f"⚠️ {md(text)}" for text in notices if text)
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
    actions: Actions, docset: str | None, status: str | None, chosen: list[str] | None
) -> tuple[Any, ...]:
    """Notice, summary, table, chart, picker; over the last figures a banner if the DB is down."""
    try:
        view = status_view(actions, docset, status)
    except DatabaseUnavailableError as exc:  # keep the last table; say why it is stale
        return database_notice(str(exc)), gr.update(), gr.update(), gr.update(), gr.update()
    kept = [c for c in chosen or [] if c in view.choices]
    picker = gr.update(choices=view.choices, value=kept)
    return view.notice, view.summary, view.rows, view.chart, picker
