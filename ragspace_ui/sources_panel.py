"""Source forms of the DocSets tab: GitHub and web, previewed before ingestion, re-synced later."""

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import gradio as gr
from gradio.events import Dependency

from ragspace.actions import Actions
from ragspace.actions.source_requests import (
    DEFAULT_DEPTH,
    DEFAULT_MAX_PAGES,
    SourceRequest,
    github_request,
    web_request,
)
from ragspace.models import (
    Source,
    SourcePreview,
    SyncReport,
    interval_text,
)
from ragspace_ui.error_messages import inline_errors, user_errors
from ragspace_ui.escape import md, md_code

PREVIEW_ITEMS_SHOWN = 50
# a failed preview leaves nothing to confirm: no pending request, no confirm button, and the
# other form's earlier preview (no longer the one a confirmation would add) cleared
NO_PREVIEW: dict[int, Any] = {0: None, 2: gr.update(visible=False), 3: ""}
SOURCE_HEADERS = [
    "#",
    "Kind",
    "Location",
    "Resolved",
    "Last synced",
    "Re-sync",
    "Next re-sync",
    "Last error",
]
# scheduled re-sync choices of the add form (the CLI takes any interval: --resync-every)
RESYNC_CHOICES: dict[str, timedelta | None] = {
    "off": None,
    "hourly": timedelta(hours=1),
    "daily": timedelta(days=1),
}


def preview_markdown(preview: SourcePreview) -> str:
    """The dry run as the user reads it before confirming."""
    resolved = f" at {md_code(preview.resolved)}" if preview.resolved else ""
    lines = [
        f"### Preview of {md_code(preview.location)}{resolved}",
        f"**{len(preview.items)}** item(s), {preview.total_bytes:,} bytes, "
        f"about **{preview.estimated_chunks}** chunk(s).",
    ]
    lines += [f"- {md_code(item)}" for item in preview.items[:PREVIEW_ITEMS_SHOWN]]
    if len(preview.items) > PREVIEW_ITEMS_SHOWN:
        lines.append(f"- … and {len(preview.items) - PREVIEW_ITEMS_SHOWN} more")
    if preview.skipped:
        lines.append(f"\n**Skipped {len(preview.skipped)}:**")
        lines += [f"- {md(reason)}: {count}" for reason, count in preview.skipped_counts.items()]
        lines += [
            f"  - {md_code(s.path)}: {md(s.reason)}" for s in preview.skipped[:PREVIEW_ITEMS_SHOWN]
        ]
    return "\n".join(lines)


def report_markdown(report: SyncReport) -> str:
    """What a sync changed."""
    lines = [
        f"Synced source #{report.source_id}"
        + (f" at `{report.resolved}`" if report.resolved else "")
        + f": {len(report.changed)} new or changed (embedding in the background), "
        f"{report.unchanged} unchanged, {len(report.removed)} removed, "
        f"{len(report.skipped)} skipped, {len(report.errors)} unreadable."
    ]
    lines += [f"- removed {md_code(path)}" for path in report.removed[:PREVIEW_ITEMS_SHOWN]]
    lines += [
        f"- error {md_code(e.path)}: {md(e.reason)}" for e in report.errors[:PREVIEW_ITEMS_SHOWN]
    ]
    return "\n".join(lines)


def source_rows(sources: list[Source]) -> list[list[Any]]:
    """The sources table of one DocSet."""
    return [
        [
            s.id,
            s.kind_label,
            s.location,
            str(s.sync_state.get("commit") or s.sync_state.get("start_url") or ""),
            s.last_synced_at.strftime("%Y-%m-%d %H:%M") if s.last_synced_at else "never",
            _every(s.resync_interval),
            s.next_sync_at.strftime("%Y-%m-%d %H:%M") if s.next_sync_at else "",
            s.error_message or "",
        ]
        for s in sources
    ]


def _every(interval: timedelta | None) -> str:
    """The form's name for the interval (off, hourly, daily), else as the CLI writes it."""
    names = {every: name for name, every in RESYNC_CHOICES.items()}
    return names.get(interval) or interval_text(interval)


# --- layout ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SourcesPanel:
    """The source forms' components the wiring needs."""

    pending: gr.State  # the previewed request, waiting to be confirmed
    gh_location: gr.Textbox
    gh_ref: gr.Textbox
    gh_include: gr.Textbox
    gh_exclude: gr.Textbox
    gh_preview: gr.Button
    web_url: gr.Textbox
    web_depth: gr.Number
    web_pages: gr.Number
    web_prefix: gr.Textbox
    web_preview: gr.Button
    gh_text: gr.Markdown  # the GitHub form's preview or error, under its button
    web_text: gr.Markdown  # the website form's, under its button
    confirm_row: gr.Row
    resync_every: gr.Dropdown
    confirm: gr.Button
    cancel: gr.Button
    sources_table: gr.Dataframe
    source_pick: gr.Dropdown
    resync: gr.Button
    sync_text: gr.Markdown


def layout_sources_panel() -> SourcesPanel:
    """Lay out the GitHub and website forms, the preview and the selected DocSet's sources."""
    pending = gr.State(None)
    with gr.Accordion("Add a GitHub repository or file", open=False):
        gh_location = gr.Textbox(
            label="Repository or file",
            placeholder="owner/repo, https://github.com/owner/repo or …/blob/<ref>/<path>",
        )
        gh_ref = gr.Textbox(label="Branch, tag or commit (empty: the default branch)")
        with gr.Row():
            gh_include = gr.Textbox(label="Include globs", placeholder="docs/**, *.py")
            gh_exclude = gr.Textbox(label="Exclude globs", placeholder="tests/**")
        gh_preview = gr.Button("Preview GitHub source")
        gh_text = gr.Markdown(elem_id="github-preview")
    with gr.Accordion("Add a documentation website", open=False):
        web_url = gr.Textbox(label="Start URL", placeholder="https://docs.example.com/")
        with gr.Row():
            web_depth = gr.Number(label="Crawl depth", value=DEFAULT_DEPTH, precision=0, minimum=0)
            web_pages = gr.Number(
                label="Max pages", value=DEFAULT_MAX_PAGES, precision=0, minimum=1
            )
            web_prefix = gr.Textbox(label="Path prefix (optional)", placeholder="/docs/")
        web_preview = gr.Button("Preview website")
        web_text = gr.Markdown(elem_id="web-preview")
    confirm_row, resync_every, confirm, cancel = _confirm_row()
    with gr.Accordion("Sources of the selected DocSet", open=False):
        sources_table = gr.Dataframe(headers=SOURCE_HEADERS, interactive=False, wrap=True)
        with gr.Row():
            source_pick = gr.Dropdown(label="Source", choices=[], interactive=True)
            resync = gr.Button("Re-sync source")
    sync_text = gr.Markdown()
    return SourcesPanel(
        pending=pending,
        gh_location=gh_location,
        gh_ref=gh_ref,
        gh_include=gh_include,
        gh_exclude=gh_exclude,
        gh_preview=gh_preview,
        web_url=web_url,
        web_depth=web_depth,
        web_pages=web_pages,
        web_prefix=web_prefix,
        web_preview=web_preview,
        gh_text=gh_text,
        web_text=web_text,
        confirm_row=confirm_row,
        resync_every=resync_every,
        confirm=confirm,
        cancel=cancel,
        sources_table=sources_table,
        source_pick=source_pick,
        resync=resync,
        sync_text=sync_text,
    )


def _confirm_row() -> tuple[gr.Row, gr.Dropdown, gr.Button, gr.Button]:
    """The row shown under a preview: how often to re-sync, confirm, cancel."""
    with gr.Row(visible=False) as confirm_row:
        resync_every = gr.Dropdown(
            label="Re-sync automatically",
            choices=list(RESYNC_CHOICES),
            value="off",
            info="Run by the workers; a GitHub push webhook can also trigger it.",
        )
        confirm = gr.Button("Confirm and ingest", variant="primary")
        cancel = gr.Button("Cancel")
    return confirm_row, resync_every, confirm, cancel


# --- wiring ---------------------------------------------------------------------------


def previewed(actions: Actions, request: SourceRequest) -> tuple[Any, str, Any, str]:
    """The request kept for confirming, its preview, the confirm row shown, and the other
    form's message cleared (its preview is no longer the one to confirm)."""
    preview = actions.sources.preview(*request)
    return request, preview_markdown(preview), gr.update(visible=True), ""


def wire_sources_panel(
    actions: Actions, panel: SourcesPanel, selected: gr.Dropdown
) -> list[Dependency]:
    """Attach the source forms' handlers; returns the events after which DocSet lists must
    refresh."""
    _wire_previews(actions, panel)

    @inline_errors(outputs=5)
    def on_confirm(
        docset: str | None, request: SourceRequest | None, every: str = "off"
    ) -> tuple[str, Any, Any, Any, Any]:
        if not docset:
            raise gr.Error("Select a DocSet first.")
        if request is None:
            raise gr.Error("Preview a source first.")
        report = actions.sources.add(docset, *request, RESYNC_CHOICES.get(every))
        table, picker = on_sources(docset)
        return report_markdown(report), None, gr.update(visible=False), table, picker

    @user_errors
    def on_sources(docset: str | None) -> tuple[Any, Any]:
        sources = actions.sources.all(docset) if docset else []
        choices = [(f"#{s.id} {s.kind_label}: {s.location}", s.id) for s in sources]
        return source_rows(sources), gr.update(choices=choices, value=None)

    @inline_errors(outputs=3)
    def on_resync(docset: str | None, source_id: int | None) -> tuple[str, Any, Any]:
        if source_id is None:
            raise gr.Error("Choose a source to re-sync.")
        report = actions.sources.resync(int(source_id))
        table, picker = on_sources(docset)
        return report_markdown(report), table, picker

    p = panel
    listed = [p.sources_table, p.source_pick]
    # the handler only needs the name; skip choice validation while the DocSet list refreshes
    selected.change(on_sources, [selected], listed, preprocess=False)
    return [
        p.confirm.click(
            on_confirm,
            [selected, p.pending, p.resync_every],
            [p.sync_text, p.pending, p.confirm_row, *listed],
        ),
        p.resync.click(on_resync, [selected, p.source_pick], [p.sync_text, *listed]),
    ]


def _wire_previews(actions: Actions, p: SourcesPanel) -> None:
    """Each form's preview (or its error) under its own button; cancelling clears both."""

    @inline_errors(outputs=4, message_at=1, reset=NO_PREVIEW)
    def on_gh_preview(loc: str, ref: str, inc: str, exc: str) -> tuple[Any, str, Any, str]:
        return previewed(actions, github_request(loc, ref, inc, exc))

    @inline_errors(outputs=4, message_at=1, reset=NO_PREVIEW)
    def on_web_preview(
        url: str, depth: float, pages: float, prefix: str
    ) -> tuple[Any, str, Any, str]:
        return previewed(actions, web_request(url, depth, pages, prefix))

    p.gh_preview.click(
        on_gh_preview,
        [p.gh_location, p.gh_ref, p.gh_include, p.gh_exclude],
        [p.pending, p.gh_text, p.confirm_row, p.web_text],
    )
    p.web_preview.click(
        on_web_preview,
        [p.web_url, p.web_depth, p.web_pages, p.web_prefix],
        [p.pending, p.web_text, p.confirm_row, p.gh_text],
    )
    p.cancel.click(
        lambda: (None, "", gr.update(visible=False), ""),
        None,
        [p.pending, p.gh_text, p.confirm_row, p.web_text],
    )
