"""Evaluate tab handlers on the real store: run, switch mode, refuse bad input."""

from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.errors import NotFoundError, ValidationError
from ragspace.eval.rerank_choice import rerank_delta
from ragspace.eval.runner import MODES
from ragspace.ingestion.worker import Ingestor
from ragspace_ui.evaluate_panel import (
    apply_rerank_choice,
    docset_names,
    evaluation_view,
    run_evaluation,
)
from tests.eval.test_eval_runner import handbook_docset

QUESTIONS = (
    '{"question": "How do I install the tool on Windows?", "relevant": ["install.md#L7-L10"]}\n'
    '{"question": "When are invoices emailed?", "relevant": ["billing.md"]}\n'
    '{"question": "Which colour is the logo?", "relevant": ["brand.md"]}\n'
)


@pytest.fixture
def upload(tmp_path: Path) -> str:
    path = tmp_path / "handbook-questions.jsonl"
    path.write_text(QUESTIONS, encoding="utf-8")
    return str(path)


def test_run_shows_metrics_and_one_row_per_question(
    service: Actions, ingestor: Ingestor, upload: str
) -> None:
    """Metrics per mode and level; per-question hit, first relevant rank and top results."""
    handbook_docset(service, ingestor)
    service.docsets.create("empty")
    assert docset_names(service) == ["handbook"]
    steps: list[str] = []
    view, report = run_evaluation(
        service, "handbook", upload, True, lambda _f, text: steps.append(text)
    )
    assert steps[-1] == "Done" and any("(keyword)" in s for s in steps)
    assert view.modes == list(MODES) and view.mode == "hybrid"
    assert [row[:2] for row in view.metrics] == [
        [level, mode] for level in ("chunk", "file") for mode in MODES
    ]
    assert "**3 questions** against **handbook**" in view.summary
    assert "Answer grading skipped" in view.summary
    install, invoices, logo = view.questions
    assert install[:3] == ["How do I install the tool on Windows?", "yes", 1]
    assert install[4].splitlines()[0].startswith("install.md:")
    assert invoices[1:4] == ["yes", 1, 1]
    assert logo[1:4] == ["no", "-", "-"]  # brand.md is not in the DocSet
    keyword = evaluation_view(report, "keyword")
    assert keyword.mode == "keyword" and len(keyword.questions) == 3
    assert evaluation_view(report, "hybrid+rerank").mode == "hybrid"  # not run without a key
    assert rerank_delta(report) is None  # so no reranking choice is offered or saved
    with pytest.raises(ValidationError, match="with a chat model configured"):
        apply_rerank_choice(service, report)


def test_run_refuses_missing_input(
    service: Actions, ingestor: Ingestor, upload: str, tmp_path: Path
) -> None:
    handbook_docset(service, ingestor)
    with pytest.raises(ValidationError, match="Choose a DocSet"):
        run_evaluation(service, None, upload, False)
    with pytest.raises(ValidationError, match="Upload a question set"):
        run_evaluation(service, "handbook", None, False)
    with pytest.raises(NotFoundError):
        run_evaluation(service, "gone", upload, False)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"question": "q"}\n', encoding="utf-8")
    with pytest.raises(ValidationError, match="Line 1 needs 'relevant'"):
        run_evaluation(service, "handbook", str(broken), False)


def test_the_app_has_an_evaluate_tab(service: Actions) -> None:
    from ragspace_ui.app import build_ui

    demo = build_ui(service)
    assert "Evaluate" in {getattr(block, "label", None) for block in demo.blocks.values()}
