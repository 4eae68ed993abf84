"""The Gradio app: tabs over one `RagspaceService`."""

from typing import Any

import gradio as gr
from pygments.formatters import HtmlFormatter

from ragspace.access import Credentials
from ragspace.services import RagspaceService
from ragspace_ui.chat_tab import build_chat_tab
from ragspace_ui.docsets_tab import build_docsets_tab, docset_rows
from ragspace_ui.errors import user_errors
from ragspace_ui.evaluate_panel import build_evaluate_panel
from ragspace_ui.mcp_tools import register_mcp_tools
from ragspace_ui.status_tab import ALL, build_status_tab
from ragspace_ui.viewer import VIEWER_CSS

# passed to `launch(css=...)` (Gradio 6 takes page CSS there): cited snippets wrap long lines
CSS = (
    """
#chat-sources pre, #chat-sources pre code { white-space: pre-wrap; overflow-wrap: anywhere; }
"""
    + VIEWER_CSS
    + HtmlFormatter().get_style_defs(".rs-viewer")
)
UPLOAD_CACHE_SWEEP = (600, 1800)  # every 10 min, delete cached files older than 30 min
READ_ONLY_BANNER = (
    "🔒 **Read-only.** You can search and chat; creating, changing or deleting DocSets and "
    "adding sources are turned off here."
)


def build_ui(service: RagspaceService, credentials: Credentials | None = None) -> gr.Blocks:
    """Build the Blocks app; launching it is the caller's job.

    `credentials` (RAGSPACE_AUTH) let MCP callers in: Gradio's login page does not guard MCP.
    """
    # uploads wait in Gradio's cache only until they are added; sweep any left behind
    demo = gr.Blocks(title="RAGSpace", delete_cache=UPLOAD_CACHE_SWEEP)
    with demo:
        register_mcp_tools(service, credentials)
        tools = set(demo.fns)
        gr.Markdown("# RAGSpace\nChat with your docs and code, with line-exact citations.")
        if service.read_only:
            gr.Markdown(READ_ONLY_BANNER, elem_id="read-only-banner")
        with gr.Tabs():
            with gr.Tab("DocSets", id="docsets") as docsets_page:
                docsets_tab = build_docsets_tab(service)
            with gr.Tab("Embedding status", id="status"):
                status_tab = build_status_tab(service)
            with gr.Tab("Chat", id="chat") as chat_page:
                chat_tab = build_chat_tab(service)
            with gr.Tab("Evaluate", id="evaluate") as evaluate_tab:
                build_evaluate_panel(service, evaluate_tab)

        @user_errors
        def refresh_docset_lists(selected: str | None, checked: list[str]) -> tuple[Any, ...]:
            rows = docset_rows(service)
            names = [row[0] for row in rows]
            return (
                rows,
                gr.update(choices=names, value=selected if selected in names else None),
                gr.update(choices=[ALL, *names]),
                gr.update(choices=names, value=[n for n in checked or [] if n in names]),
            )

        inputs = [docsets_tab.selected, chat_tab.docsets]
        outputs = [
            docsets_tab.table,
            docsets_tab.selected,
            status_tab.docset_filter,
            chat_tab.docsets,
        ]
        for event in docsets_tab.changed:
            event.then(refresh_docset_lists, inputs, outputs)
        demo.load(refresh_docset_lists, inputs, outputs)
        # counts change while documents embed: show them fresh whenever a tab is opened
        for page in (docsets_page, chat_page):
            page.select(refresh_docset_lists, inputs, outputs, show_progress="hidden")
    # the public API and MCP are the tools only, not the UI's internal event handlers
    for key, fn in demo.fns.items():
        if key not in tools:
            fn.api_visibility = "private"
    return demo
