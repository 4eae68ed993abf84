"""Chat tab: pick DocSets, ask, read the answer and its cited passages."""

from dataclasses import dataclass
from typing import Any

import gradio as gr

from ragspace.answer import fenced
from ragspace.models import Answer
from ragspace.services import RagspaceService
from ui.errors import user_errors


@dataclass
class ChatTab:
    """Components other tabs refresh."""

    docsets: gr.CheckboxGroup


def sources_markdown(answer: Answer) -> str:
    """The sources panel: each cited passage with its line range and a snippet."""
    if not answer.citations:
        return "_No sources._"
    parts = []
    for citation in answer.citations:
        parts.append(f"**[{citation.number}] {citation.label}**\n\n{fenced(citation.snippet, '')}")
    return "\n\n".join(parts)


def build_chat_tab(service: RagspaceService) -> ChatTab:
    """Lay out the chat tab and wire the question handler."""
    docsets = gr.CheckboxGroup(
        label="DocSets to search (none selected = all)", choices=[], interactive=True
    )
    with gr.Row():
        with gr.Column(scale=3):
            chatbot = gr.Chatbot(label="Chat", height=520, buttons=["copy"])
            question = gr.Textbox(
                label="Question", placeholder="Ask about your documents…", lines=2
            )
            with gr.Row():
                ask = gr.Button("Ask", variant="primary")
                clear = gr.Button("Clear conversation")
        with gr.Column(scale=2):
            gr.Markdown("### Sources")
            sources = gr.Markdown("_Ask a question to see the passages it rests on._")

    @user_errors
    def on_ask(
        text: str, history: list[dict[str, Any]], selected: list[str]
    ) -> tuple[list[dict[str, Any]], str, str]:
        answer = service.answer(text, selected or None)
        history = [
            *history,
            {"role": "user", "content": text},
            {"role": "assistant", "content": answer.text},
        ]
        return history, sources_markdown(answer), ""

    outputs = [chatbot, sources, question]
    ask.click(on_ask, [question, chatbot, docsets], outputs)
    question.submit(on_ask, [question, chatbot, docsets], outputs)
    clear.click(lambda: ([], "_Cleared._", ""), None, outputs)
    return ChatTab(docsets=docsets)
