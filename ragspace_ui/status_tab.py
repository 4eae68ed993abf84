"""Embedding status tab: every document's state and progress, refreshed live; re-embed buttons."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import gradio as gr

from ragspace.actions import Actions
from ragspace.models import EmbeddingStatus
from ragspace_ui.error_messages import inline_errors, user_errors
from ragspace_ui.escape import md
from ragspace_ui.status_view import (
    ALL,
    EMPTY_STATUS,
    STATUS_COLORS,
    STATUS_HEADERS,
    chosen_ids,
    status_outputs,
)

REFRESH_SECONDS = 2.0


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
        y="Share",
        color="Status",
        color_map=STATUS_COLORS,
        colors_in_legend=list(STATUS_COLORS),
        y_lim=[0, 100],
        tooltip=["DocSet", "Status", "Documents", "Share"],
        label="Documents by status per DocSet (each DocSet's share, %)",
        x_title="DocSet",
        y_title="Share of its documents (%)",
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
    page: gr.Tab,
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

    t = tab
    inputs = [t.docset_filter, t.status_filter, t.selection]
    outputs = [t.notice, t.summary, t.table, t.chart, t.selection]
    triggers = [t.refresh.click, t.docset_filter.change, t.status_filter.change, t.timer.tick]
    for trigger in [*triggers, page.select]:
        trigger(load, inputs, outputs, show_progress="hidden")
    _tick_while_open(t.timer, page, other_pages)
    t.docset_filter.change(on_filter, [t.docset_filter], [t.docset_button, t.confirm_row])
    t.selected_button.click(
        on_selected, [t.selection], [t.action, t.selection], show_progress="minimal"
    )
    t.failed_button.click(on_failed, [t.docset_filter], [t.action], show_progress="minimal")
    _wire_docset_reembed(actions, t)


def _wire_docset_reembed(actions: Actions, t: StatusTab) -> None:
    """Re-embedding a whole DocSet: asked first, done on confirmation."""

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

    t.docset_button.click(
        on_docset_request, [t.docset_filter], [t.action, t.confirm_row, t.confirm_text]
    )
    t.confirm.click(
        on_docset, [t.docset_filter], [t.action, t.confirm_row], show_progress="minimal"
    )
    t.cancel.click(lambda: gr.update(visible=False), None, [t.confirm_row])


def _tick_while_open(timer: gr.Timer, page: gr.Tab, other_pages: Sequence[gr.Tab]) -> None:
    """The timer runs from the tab's opening until another tab is opened."""
    page.select(lambda: gr.Timer(active=True), None, [timer], show_progress="hidden")
    for other in other_pages:
        other.select(lambda: gr.Timer(active=False), None, [timer], show_progress="hidden")


def _chosen_docset(docset: str | None) -> str:
    if docset in (None, "", ALL):
        raise gr.Error("Choose a DocSet in the DocSet filter first.")
    assert docset is not None
    return docset
