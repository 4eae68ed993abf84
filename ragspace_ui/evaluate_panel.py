"""Evaluate tab: score a DocSet against an uploaded question set (JSONL), mode by mode."""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from ragspace.errors import ValidationError
from ragspace.eval.datasets import read_question_set
from ragspace.eval.runner import (
    METRIC_HEADERS,
    QUESTION_HEADERS,
    EvalOptions,
    EvalReport,
    grading_text,
    metric_rows,
    question_rows,
)
from ragspace.models import RetrievalMode
from ragspace.services import RagspaceService
from ragspace_ui.errors import user_errors

FORMAT_HELP = """\
Upload a question set: a `.jsonl` file, one JSON object per line, e.g.
`{"question": "How do I set the retry limit?", "answer": "max_retries in config.toml",
"relevant": ["src/config.py#L10-L42", "https://docs.example.com/guide#retries"]}`
(`answer` is optional and used only for answer grading). Each question is searched in
every retrieval mode; Recall, MRR, nDCG and Hit are computed at chunk level (the
relevant lines or section) and at file level (any chunk of the file or page)."""


@dataclass(frozen=True)
class EvaluationView:
    """What the panel shows after a run."""

    summary: str
    metrics: list[list[Any]]
    modes: list[str]
    mode: str
    questions: list[list[Any]]


def docset_names(service: RagspaceService) -> list[str]:
    """DocSets that hold chunks, the only ones worth evaluating."""
    return [d.name for d in service.list_docsets() if d.chunk_count > 0]


def run_evaluation(
    service: RagspaceService,
    docset: str | None,
    upload: str | None,
    grade: bool,
    progress: Callable[[float, str], None] | None = None,
) -> tuple[EvaluationView, EvalReport]:
    """Evaluate the uploaded question set against the DocSet."""
    if not docset:
        raise ValidationError("Choose a DocSet to evaluate.")
    if not upload:
        raise ValidationError("Upload a question set (.jsonl) first.")
    questions = read_question_set(Path(upload))
    report = service.evaluate(docset, questions, EvalOptions(grade=grade), progress)
    return evaluation_view(report), report


def evaluation_view(report: EvalReport, mode: str | None = None) -> EvaluationView:
    """Summary, metrics and the per-question table of one mode (hybrid by default)."""
    modes = [m.mode for m in report.modes]
    chosen = mode if mode in modes else RetrievalMode.HYBRID.value
    chosen = chosen if chosen in modes else modes[0]
    lines = [f"**{report.questions} questions** against **{report.docset}**, k = {report.k}."]
    if report.grading is not None:
        lines.append(grading_text(report.grading))
    lines += [f"_{note}_" for note in report.notes]
    return EvaluationView(
        summary="\n\n".join(lines),
        metrics=metric_rows(report),
        modes=modes,
        mode=chosen,
        questions=question_rows(report, chosen),
    )


def build_evaluate_panel(service: RagspaceService, tab: gr.Tab) -> None:
    """Lay out the panel; its DocSet list refreshes whenever the tab is opened."""
    gr.Markdown(FORMAT_HELP)
    with gr.Row():
        docset = gr.Dropdown(label="DocSet to evaluate", choices=[], interactive=True)
        upload = gr.File(label="Question set (.jsonl)", file_types=[".jsonl"], type="filepath")
        grade = gr.Checkbox(label="Grade answers with the chat model (needs a key)", value=True)
    run = gr.Button("Run evaluation", variant="primary")
    summary = gr.Markdown()
    metrics = gr.Dataframe(headers=METRIC_HEADERS, label="Metrics", interactive=False)
    mode = gr.Dropdown(label="Per-question results for mode", choices=[], interactive=True)
    questions = gr.Dataframe(
        headers=QUESTION_HEADERS, label="Questions", interactive=False, wrap=True
    )
    report_state = gr.State(None)

    @user_errors
    def on_open() -> Any:
        return gr.update(choices=docset_names(service))

    @user_errors
    def on_run(
        name: str | None,
        path: str | None,
        grading: bool,
        progress: gr.Progress = gr.Progress(),  # noqa: B008 - Gradio's way to ask for a tracker
    ) -> tuple[Any, ...]:
        view, report = run_evaluation(
            service, name, path, grading, lambda fraction, text: progress(fraction, desc=text)
        )
        choices = gr.update(choices=view.modes, value=view.mode)
        return view.summary, view.metrics, choices, view.questions, report

    @user_errors
    def on_mode(report: EvalReport | None, chosen: str | None) -> Any:
        return evaluation_view(report, chosen).questions if report else []

    tab.select(on_open, None, [docset])
    run.click(on_run, [docset, upload, grade], [summary, metrics, mode, questions, report_state])
    mode.input(on_mode, [report_state, mode], [questions], show_progress="hidden")
