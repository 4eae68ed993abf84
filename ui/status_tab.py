"""Embedding status tab: every document's state, filtered, refreshed live."""

from dataclasses import dataclass
from typing import Any

import gradio as gr

from ragspace.models import EmbeddingStatus
from ragspace.services import RagspaceService
from ui.errors import user_errors

STATUS_HEADERS = ["Document", "DocSet", "Status", "Chunks", "Updated", "Error"]
ALL = "All"
REFRESH_SECONDS = 2.0


@dataclass
class StatusTab:
    """Components other tabs refresh."""

    docset_filter: gr.Dropdown


def build_status_tab(service: RagspaceService) -> StatusTab:
    """Lay out the status tab; the table refreshes every few seconds."""
    with gr.Row():
        docset_filter = gr.Dropdown(label="DocSet", choices=[ALL], value=ALL, interactive=True)
        status_filter = gr.Dropdown(
            label="Status", choices=[ALL, *[s.value for s in EmbeddingStatus]], value=ALL
        )
        refresh = gr.Button("Refresh")
    summary = gr.Markdown()
    table = gr.Dataframe(headers=STATUS_HEADERS, label="Documents", interactive=False, wrap=True)
    timer = gr.Timer(REFRESH_SECONDS)

    @user_errors
    def load(docset: str | None, status: str | None) -> tuple[str, list[list[Any]]]:
        documents = service.list_documents(
            None if docset in (None, ALL) else docset,
            None if status in (None, ALL) else EmbeddingStatus(status),
        )
        counts = {s: 0 for s in EmbeddingStatus}
        for document in documents:
            counts[document.embedding_status] += 1
        summary_text = " · ".join(f"**{s.value}** {n}" for s, n in counts.items())
        rows = [
            [
                d.path,
                d.docset_name,
                d.embedding_status.value,
                d.chunk_count,
                d.updated_at.strftime("%Y-%m-%d %H:%M:%S"),
                d.error_message or "",
            ]
            for d in documents
        ]
        return summary_text, rows

    inputs, outputs = [docset_filter, status_filter], [summary, table]
    for trigger in (refresh.click, docset_filter.change, status_filter.change, timer.tick):
        trigger(load, inputs, outputs, show_progress="hidden")
    return StatusTab(docset_filter=docset_filter)
