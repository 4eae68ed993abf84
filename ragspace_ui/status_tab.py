"""Embedding status tab: every document's state and progress, refreshed live; re-embed buttons."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import gradio as gr
import pandas as pd

from ragspace.actions import Actions
from ragspace.errors import DatabaseUnavailableError
from ragspace.models import Document, EmbeddingStatus, ingestion_progress, tier_text
from ragspace_ui.error_messages import inline_errors, user_errors
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
REFRESH_SECONDS = 2.0
RATE_WINDOW = timedelta(minutes=5)  # the embedding rate is measured over recent work
EMPTY_STATUS = (
    "_No documents yet. Add files or a source on the **DocSets** tab (or add the sample "
    "DocSet there); their embedding progress shows here._"
)
CHART_COLUMNS = ["DocSet", "Status", "Documents"]
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
        running = f" · {_duration(elapsed)}"
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
    """Documents counted per DocSet and status: one bar per DocSet, one colour per status.

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
    rows = [[docset, status, n] for (docset, status), n in counts.items()]
    rows.sort(key=lambda row: str(row[0]))
    return pd.DataFrame(rows, columns=CHART_COLUMNS).astype({"Documents": "int64"})


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    if seconds < 3600:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def overall_progress(documents: list[Document], now: datetime | None = None) -> str:
    """Documents and chunks done, the recent embedding rate and the time left (ETA)."""
    if not documents:
        return ""
    now = now or datetime.now(UTC)
    progress = ingestion_progress(documents)  # the same counts as MCP's job_status
    embedded, known_total = progress.chunks_embedded, progress.chunks_total
    done = [d for d in documents if d.embedding_status == EmbeddingStatus.DONE]
    # a pending document's chunks are unknown until it is chunked: estimate from finished ones
    per_document = sum(d.chunk_count for d in done) / len(done) if done else None
    estimate = round(per_document * progress.pending) if per_document is not None else 0
    parts = [f"**Documents:** {progress.done} of {len(documents)} done"]
    if progress.error:
        parts[0] += f" ({progress.error} failed)"
    about = "about " if progress.pending and estimate else ""
    parts.append(f"**Chunks:** {embedded:,} of {about}{known_total + estimate:,} embedded")
    if progress.finished:
        return " · ".join(parts)
    rate = embedding_rate(documents, now)
    remaining = known_total + estimate - embedded
    if rate is None:
        parts.append("**Rate:** measuring…")
    else:
        parts.append(f"**Rate:** {rate:.1f} chunks/s")
        if remaining > 0 and (per_document is not None or not progress.pending):
            parts.append(f"**ETA:** about {_duration(remaining / rate)}")
    return " · ".join(parts)


def embedding_rate(documents: list[Document], now: datetime) -> float | None:
    """Chunks per second embedded by the work of the last few minutes, None before any."""
    since = now - RATE_WINDOW
    recent = [
        d
        for d in documents
        if d.started_at is not None
        and (
            d.embedding_status == EmbeddingStatus.PROCESSING
            or (
                d.embedding_status == EmbeddingStatus.DONE
                and d.finished_at
                and d.finished_at > since
            )
        )
    ]
    if not recent:
        return None
    chunks = sum(
        d.chunk_count if d.embedding_status == EmbeddingStatus.DONE else d.chunks_embedded
        for d in recent
    )
    start = max(min(d.started_at for d in recent if d.started_at), since)
    elapsed = (now - start).total_seconds()
    if chunks == 0 or elapsed <= 0:
        return None
    return chunks / elapsed


def status_view(actions: Actions, docset: str | None, status: str | None) -> StatusView:
    """Notices, summary counts, table rows and selector choices for the filters."""
    docset_name = None if docset in (None, "", ALL) else docset
    everything = actions.documents.all(docset_name, None)
    wanted = None if status in (None, "", ALL) else EmbeddingStatus(status)
    documents = [d for d in everything if wanted in (None, d.embedding_status)]
    counts = {s: 0 for s in EmbeddingStatus}
    for document in documents:
        counts[document.embedding_status] += 1
    summary = f"**{len(documents)} documents** · " + " · ".join(
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


# --- layout ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StatusTab:
    """The tab's components: for its own wiring and the DocSet filter other tabs refresh."""

    docset_filter: gr.Dropdown
    status_filter: gr.Dropdown
    refresh: gr.Button
    notice: gr.Markdown
    summary: gr.Markdown
    chart: gr.BarPlot
    table: gr.Dataframe
    selection: gr.Dropdown
    selected_button: gr.Button
    failed_button: gr.Button
    docset_button: gr.Button
    confirm_row: gr.Row
    confirm_text: gr.Markdown
    confirm: gr.Button
    cancel: gr.Button
    action: gr.Markdown
    timer: gr.Timer


def chart_component() -> gr.BarPlot:
    """Documents by status per DocSet, one colour per status."""
    return gr.BarPlot(
        x="DocSet",
        y="Documents",
        color="Status",
        color_map=STATUS_COLORS,
        colors_in_legend=list(STATUS_COLORS),
        y_lim=[0, None],
        label="Documents by status per DocSet",
        x_title="DocSet",
        y_title="Documents",
        elem_id="status-chart",
    )


def table_component() -> gr.Dataframe:
    """The documents with their status, tier, chunks and last error."""
    return gr.Dataframe(
        headers=STATUS_HEADERS,
        label="Documents",
        interactive=False,
        wrap=True,
        column_widths=["6%", "22%", "12%", "10%", "8%", "12%", "15%", "15%"],
        elem_id="status-table",
        elem_classes=["readable-table"],
    )


def layout_status_tab(actions: Actions) -> StatusTab:
    """Lay out the status tab (the re-embed buttons hidden when read-only)."""
    with gr.Row():
        docset_filter = gr.Dropdown(
            label="DocSet", choices=[ALL], value=ALL, interactive=True, elem_id="status-docset"
        )
        status_filter = gr.Dropdown(
            label="Status", choices=[ALL, *[s.value for s in EmbeddingStatus]], value=ALL
        )
        refresh = gr.Button("Refresh")
    notice = gr.Markdown()
    summary = gr.Markdown(EMPTY_STATUS, elem_id="status-summary")
    chart = chart_component()
    table = table_component()
    with gr.Accordion("Re-embed", open=True, visible=not actions.read_only):
        selection = gr.Dropdown(
            label="Documents to re-embed", choices=[], multiselect=True, interactive=True
        )
        with gr.Row():
            selected_button = gr.Button("Re-embed selected documents")
            failed_button = gr.Button("Re-embed failed only")
            docset_button = gr.Button(
                "Re-embed whole DocSet…", variant="stop", interactive=False, elem_id="reembed-all"
            )
        gr.Markdown("_Choose a DocSet in the DocSet filter above to re-embed all of it._")
        with gr.Row(visible=False) as confirm_row:
            confirm_text = gr.Markdown()
            confirm = gr.Button("Yes, re-embed it", variant="stop")
            cancel = gr.Button("Cancel")
        action = gr.Markdown(elem_id="reembed-message")
    # off until the tab is opened (`wire_status_tab`): a tick re-reads every document and
    # redraws the table and the chart, and ticking in every open page, whatever tab it
    # shows, kept the server and each browser busy for nothing
    timer = gr.Timer(REFRESH_SECONDS, active=False)
    return StatusTab(
        docset_filter=docset_filter,
        status_filter=status_filter,
        refresh=refresh,
        notice=notice,
        summary=summary,
        chart=chart,
        table=table,
        selection=selection,
        selected_button=selected_button,
        failed_button=failed_button,
        docset_button=docset_button,
        confirm_row=confirm_row,
        confirm_text=confirm_text,
        confirm=confirm,
        cancel=cancel,
        action=action,
        timer=timer,
    )


# --- wiring ---------------------------------------------------------------------------


def wire_status_tab(
    actions: Actions,
    tab: StatusTab,
    page: gr.Tab | None = None,
    other_pages: Sequence[gr.Tab] = (),
) -> None:
    """Attach the tab's handlers; the table refreshes when the tab (`page`) is opened and
    every few seconds while it stays open (the timer, stopped when one of `other_pages` is
    opened), so opening it never shows stale counts."""

    @user_errors
    def load(docset: str | None, status: str | None, chosen: list[str] | None) -> tuple[Any, ...]:
        return status_outputs(actions, docset, status, chosen)

    @inline_errors(outputs=2)
    def on_selected(chosen: list[str] | None) -> tuple[str, Any]:
        queued = actions.documents.reembed(chosen_ids(chosen))
        return f"Queued {queued} document(s) for re-embedding.", gr.update(value=[])

    @inline_errors(outputs=1)
    def on_failed(docset: str | None) -> str:
        queued = actions.documents.reembed_failed(None if docset in (None, ALL) else docset)
        return f"Queued {queued} failed document(s) again."

    def on_filter(docset: str | None) -> tuple[Any, Any]:
        chosen = docset not in (None, "", ALL)
        return gr.update(interactive=chosen), gr.update(visible=False)

    @inline_errors(outputs=3)
    def on_docset_request(docset: str | None) -> tuple[str, Any, str]:
        name = _chosen_docset(docset)
        count = len(actions.documents.all(name, None))
        question = (
            f"Re-embed all {count} document(s) of **{md(name)}**? Every chunk is embedded "
            "again with the configured model; it cannot be searched until that is done."
        )
        return "", gr.update(visible=True), question

    @inline_errors(outputs=2)
    def on_docset(docset: str | None) -> tuple[str, Any]:
        name = _chosen_docset(docset)
        queued = actions.documents.reembed_docset(name)
        message = (
            f"Re-embedding all {queued} document(s) of **{md(name)}** with the configured "
            "model; progress shows in the table."
        )
        return message, gr.update(visible=False)

    t = tab
    inputs = [t.docset_filter, t.status_filter, t.selection]
    outputs = [t.notice, t.summary, t.table, t.chart, t.selection]
    triggers = [t.refresh.click, t.docset_filter.change, t.status_filter.change, t.timer.tick]
    for trigger in [*triggers, *([page.select] if page is not None else [])]:
        trigger(load, inputs, outputs, show_progress="hidden")
    if page is not None:
        page.select(lambda: gr.Timer(active=True), None, [t.timer], show_progress="hidden")
    for other in other_pages:
        other.select(lambda: gr.Timer(active=False), None, [t.timer], show_progress="hidden")
    t.docset_filter.change(on_filter, [t.docset_filter], [t.docset_button, t.confirm_row])
    t.selected_button.click(
        on_selected, [t.selection], [t.action, t.selection], show_progress="minimal"
    )
    t.failed_button.click(on_failed, [t.docset_filter], [t.action], show_progress="minimal")
    t.docset_button.click(
        on_docset_request, [t.docset_filter], [t.action, t.confirm_row, t.confirm_text]
    )
    t.confirm.click(
        on_docset, [t.docset_filter], [t.action, t.confirm_row], show_progress="minimal"
    )
    t.cancel.click(lambda: gr.update(visible=False), None, [t.confirm_row])


def _chosen_docset(docset: str | None) -> str:
    if docset in (None, "", ALL):
        raise gr.Error("Choose a DocSet in the DocSet filter first.")
    assert docset is not None
    return docset
