"""Evaluate tab: score a DocSet against an uploaded question set (JSONL), mode by mode."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import gradio as gr
from gradio.events import Dependency

from ragspace.actions import Actions
from ragspace.errors import ValidationError
from ragspace.eval.datasets import read_question_set
from ragspace.eval.rerank_choice import SCORED, RerankDelta, rerank_delta
from ragspace.eval.runner import (
    METRIC_HEADERS,
    NO_CHAT,
    QUESTION_HEADERS,
    EvalOptions,
    EvalReport,
    grading_text,
    metric_rows,
    question_rows,
)
from ragspace.models import DocSet, RetrievalMode
from ragspace.sample import SAMPLE_DOCSET, sample_questions_path
from ragspace_ui.amounts import plural
from ragspace_ui.docset_forms import DOCSET_LIST_LANE, upload_report
from ragspace_ui.docsets_tab import add_sample
from ragspace_ui.error_messages import inline_errors, user_errors
from ragspace_ui.escape import md

FORMAT_HELP = (
    "Upload a question set: a `.jsonl` file, one JSON object per line, e.g. "
    '`{"question": "How do I set the retry limit?", "answer": "max_retries in config.toml", '
    '"relevant": ["src/config.py#L10-L42", "https://docs.example.com/guide#retries"]}` '
    "(`answer` is optional and used only for answer grading). Each question is searched in "
    "every retrieval mode; with a chat model configured, reranking is measured too and you "
    "can keep it or turn it off for the DocSet. Not sure where to start? Download the sample "
    f"question set below: it goes with the sample DocSet (`{SAMPLE_DOCSET}`), which the "
    "button beside it adds (or refreshes)."
)
SAMPLE_HINT = (
    f" The sample question set goes with the sample DocSet (`{SAMPLE_DOCSET}`): add it with "
    "the button above, then evaluate that one."
)
METRIC_HELP = (
    "**What the numbers mean** (each between 0 and 1, higher is better; `@k`: among the "
    "first k results).\n\n"
    "- **Recall@k**: the share of a question's relevant passages found in the top k.\n"
    "- **MRR@10**: 1 / the rank of the first relevant result (1 when it comes first, 0.5 "
    "when second…), averaged over the questions.\n"
    "- **nDCG@10**: how high the relevant results rank, rewarding the top places.\n"
    "- **Hit@k**: the share of questions with at least one relevant result in the top k.\n"
    "- **p50/p95/p99 ms**: search time of the median, 95th and 99th percentile question.\n\n"
    "**Chunk** level counts only results overlapping the relevant lines or section; **file** "
    "level counts any result from the relevant file or page."
)
NO_KEY_GRADING = "Grade answers with the chat model (needs OPENAI_API_KEY: none is set)"


@dataclass(frozen=True)
class EvaluationView:
    """What the panel shows after a run."""

    summary: str
    metrics: list[list[Any]]
    modes: list[str]
    mode: str
    questions: list[list[Any]]


def docset_names(actions: Actions) -> list[str]:
    """DocSets that hold chunks, the only ones worth evaluating."""
    return [d.name for d in actions.docsets.all() if d.chunk_count > 0]


def run_evaluation(
    actions: Actions,
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
    try:
        report = actions.evaluation.run(docset, questions, EvalOptions(grade=grade), progress)
    except ValidationError as exc:  # the sample questions against another DocSet: say which
        if docset == SAMPLE_DOCSET or not _is_sample(Path(upload)):
            raise
        raise ValidationError(str(exc) + SAMPLE_HINT) from None
    return evaluation_view(report), report


def _is_sample(upload: Path) -> bool:
    return upload.read_bytes() == sample_questions_path().read_bytes()


def evaluation_view(report: EvalReport, mode: str | None = None) -> EvaluationView:
    """Summary, metrics and the per-question table of one mode (hybrid by default)."""
    modes = [m.mode for m in report.modes]
    chosen = mode if mode in modes else RetrievalMode.HYBRID.value
    chosen = chosen if chosen in modes else modes[0]
    asked = plural(report.questions, "question")
    lines = [f"**{asked}** against **{md(report.docset)}**, k = {report.k}."]
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


def rerank_state(docset: DocSet) -> str:
    """How answers over the DocSet are ordered now."""
    state = "reranked by the chat model" if docset.rerank else "kept in the fused order"
    return f"Answers over **{md(docset.name)}** are {state}"


def rerank_choice_text(docset: DocSet) -> str:
    """How answers over the DocSet are ordered now, and what that rests on."""
    basis = docset.rerank_evidence or "the default, not evaluated yet"
    return f"{rerank_state(docset)} ({md(basis)})."


def rerank_delta_text(delta: RerankDelta, current: DocSet) -> str:
    """The measured change reranking makes on this DocSet, and what it suggests."""
    verdict = (
        "**Reranking helps here**: the first relevant passage ranks higher and none leaves "
        "the top 5."
        if delta.helps
        else "**Reranking does not help here**: the fused order ranks the relevant passages "
        "as well or better, without a model call per question."
    )
    rows = [
        f"| {label} | {delta.fused.chunk[metric]:.3f} | {delta.reranked.chunk[metric]:.3f} "
        f"| {delta.change(metric):+.3f} |"
        for label, metric in SCORED
    ]
    rows.append(
        f"| median search | {delta.fused.p50_ms:,.0f} ms | {delta.reranked.p50_ms:,.0f} ms | |"
    )
    table = "\n".join(["| chunk level | fused | reranked | change |", "|---|--:|--:|--:|", *rows])
    return (
        f"**Reranking on {md(delta.docset)}** ({plural(delta.questions, 'question')}, "
        f"hybrid against hybrid+rerank):\n\n{table}\n\n{verdict} {rerank_state(current)} now."
    )


def rerank_action(delta: RerankDelta) -> str:
    """The button that applies what the evaluation suggests."""
    if delta.helps:
        return f"Rerank answers over {delta.docset}"
    return f"Keep the fused order for {delta.docset}"


def apply_rerank_choice(actions: Actions, report: EvalReport | None) -> str:
    """Save what the evaluation suggests for its DocSet, with the scores it rests on."""
    delta = rerank_delta(report) if report else None
    if delta is None:
        raise ValidationError("Run an evaluation with a chat model configured first.")
    docset = actions.docsets.choose_rerank(delta.docset, delta.helps, delta.evidence(date.today()))
    return f"{rerank_delta_text(delta, docset)}\n\n**Saved**, with these scores."


# --- layout ---------------------------------------------------------------------------


@dataclass(frozen=True)
class EvaluatePanel:
    """The panel's components the wiring needs."""

    docset: gr.Dropdown
    upload: gr.File
    grade: gr.Checkbox
    run: gr.Button
    summary: gr.Markdown
    metrics: gr.Dataframe
    mode: gr.Dropdown
    questions: gr.Dataframe
    rerank_text: gr.Markdown  # reranking's measured change on the DocSet, and its choice
    apply_rerank: gr.Button  # saves what the evaluation suggests; hidden until one reranked
    report_state: gr.State  # the last EvalReport, for the per-mode question table
    sample: gr.Button  # adds the sample DocSet, whatever DocSets there are already
    sample_message: gr.Markdown


def layout_evaluate_panel(actions: Actions) -> EvaluatePanel:
    """Lay out the panel: help, sample download, the run form and its results."""
    can_grade = actions.mode.llm_answers
    gr.Markdown(FORMAT_HELP)
    with gr.Row():
        gr.DownloadButton(
            "Download the sample question set (.jsonl)",
            value=str(sample_questions_path()),
            elem_id="sample-questions",
        )
        sample = gr.Button("Add the sample DocSet", visible=not actions.read_only)
    sample_message = gr.Markdown(elem_id="evaluate-sample-message")
    with gr.Row():
        docset = gr.Dropdown(label="DocSet to evaluate", choices=[], interactive=True)
        upload = gr.File(label="Question set (.jsonl)", file_types=[".jsonl"], type="filepath")
        grade = gr.Checkbox(
            label="Grade answers with the chat model" if can_grade else NO_KEY_GRADING,
            value=False,
            interactive=can_grade,
            elem_id="grade-answers",
        )
    run = gr.Button("Run evaluation", variant="primary")
    summary = gr.Markdown(elem_id="evaluation-summary")
    rerank_text = gr.Markdown(elem_id="rerank-choice")
    apply_rerank = gr.Button("Apply", visible=False, elem_id="apply-rerank")
    metrics = gr.Dataframe(
        headers=METRIC_HEADERS,
        label="Metrics",
        interactive=False,
        elem_classes=["readable-table"],
    )
    with gr.Accordion("What the metrics mean", open=False):
        gr.Markdown(METRIC_HELP)
    mode = gr.Dropdown(label="Per-question results for mode", choices=[], interactive=True)
    questions = gr.Dataframe(
        headers=QUESTION_HEADERS,
        label="Questions",
        interactive=False,
        wrap=True,
        column_widths=["40%", "10%", "12%", "12%", "26%"],
        elem_classes=["readable-table"],
    )
    report_state = gr.State(None)
    return EvaluatePanel(
        docset=docset,
        upload=upload,
        grade=grade,
        run=run,
        summary=summary,
        metrics=metrics,
        mode=mode,
        questions=questions,
        rerank_text=rerank_text,
        apply_rerank=apply_rerank,
        report_state=report_state,
        sample=sample,
        sample_message=sample_message,
    )


# --- wiring ---------------------------------------------------------------------------


def wire_evaluate_panel(actions: Actions, panel: EvaluatePanel, tab: gr.Tab) -> Dependency:
    """Attach the run and mode handlers; the DocSet list refreshes whenever `tab` is opened.
    Returns the event that adds the sample DocSet (the DocSet lists refresh after it)."""
    can_grade = actions.mode.llm_answers

    @user_errors
    def on_open() -> Any:
        return gr.update(choices=docset_names(actions))

    can_choose = can_grade and not actions.read_only  # the actions refuse changes anyway

    @user_errors
    def on_evaluated_docset(name: str | None) -> Any:
        if not name or not can_grade:  # without a chat model nothing is reranked
            return ""
        return rerank_choice_text(actions.docsets.get(name))

    @inline_errors(outputs=7, reset={5: "", 6: gr.update(visible=False)})
    def on_run(
        name: str | None,
        path: str | None,
        grading: bool,
        progress: gr.Progress = gr.Progress(),  # noqa: B008 - Gradio's way to ask for a tracker
    ) -> tuple[Any, ...]:
        view, report = run_evaluation(
            actions,
            name,
            path,
            grading and can_grade,
            lambda fraction, text: progress(fraction, desc=text),
        )
        choices = gr.update(choices=view.modes, value=view.mode)
        text = (
            view.summary if can_grade else f"{view.summary}\n\n_Answer grading skipped: {NO_CHAT}._"
        )
        delta = rerank_delta(report)
        if delta is None:
            return text, view.metrics, choices, view.questions, report, "", gr.update(visible=False)
        rerank_text = rerank_delta_text(delta, actions.docsets.get(delta.docset))
        button = gr.update(value=rerank_action(delta), visible=can_choose)
        return text, view.metrics, choices, view.questions, report, rerank_text, button

    p = panel
    tab.select(on_open, None, [p.docset])
    p.docset.input(on_evaluated_docset, [p.docset], [p.rerank_text], show_progress="hidden")
    p.run.click(
        on_run,
        [p.docset, p.upload, p.grade],
        [p.summary, p.metrics, p.mode, p.questions, p.report_state, p.rerank_text, p.apply_rerank],
    )
    _wire_results(actions, p)
    return _wire_sample(actions, p)


def _wire_results(actions: Actions, p: EvaluatePanel) -> None:
    """A run's results: the mode whose questions are listed, the rerank choice applied."""

    @inline_errors(outputs=2)
    def on_apply_rerank(report: EvalReport | None) -> tuple[Any, ...]:
        return apply_rerank_choice(actions, report), gr.update(visible=False)

    @user_errors
    def on_mode(report: EvalReport | None, chosen: str | None) -> Any:
        return evaluation_view(report, chosen).questions if report else []

    p.apply_rerank.click(on_apply_rerank, [p.report_state], [p.rerank_text, p.apply_rerank])
    p.mode.input(on_mode, [p.report_state, p.mode], [p.questions], show_progress="hidden")


def _wire_sample(actions: Actions, p: EvaluatePanel) -> Dependency:
    """The button adding the sample DocSet (or its files again); returns its event."""

    @inline_errors(outputs=2)
    def on_sample() -> tuple[str, Any]:
        name, documents = add_sample(actions)
        note = "\n\nChoose it below once its documents are embedded (Embedding status tab)."
        return upload_report(name, documents) + note, gr.update(choices=docset_names(actions))

    return p.sample.click(on_sample, None, [p.sample_message, p.docset], **DOCSET_LIST_LANE)
