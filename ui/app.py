"""The Gradio app: tabs over one `RagspaceService`."""

from typing import Any

import gradio as gr

from ragspace.services import RagspaceService
from ui.chat_tab import build_chat_tab
from ui.docsets_tab import build_docsets_tab, docset_rows
from ui.errors import user_errors
from ui.evaluate_panel import build_evaluate_panel
from ui.status_tab import ALL, build_status_tab


def build_ui(service: RagspaceService) -> gr.Blocks:
    """Build the Blocks app; launching it is the caller's job."""
    demo = gr.Blocks(title="RAGSpace")
    with demo:
        gr.Markdown("# RAGSpace\nChat with your docs and code, with line-exact citations.")
        with gr.Tabs():
            with gr.Tab("DocSets", id="docsets"):
                docsets_tab = build_docsets_tab(service)
            with gr.Tab("Embedding status", id="status"):
                status_tab = build_status_tab(service)
            with gr.Tab("Chat", id="chat"):
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
    return demo
