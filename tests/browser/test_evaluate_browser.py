"""The Evaluate tab in a real browser: choose a DocSet, upload questions, read the results."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from ragspace.actions import Actions
from ragspace.ingestion.worker import Ingestor
from tests.browser.journey import OpenPage
from tests.eval.test_eval_runner import handbook_docset
from tests.ui.test_evaluate_panel import QUESTIONS

pytestmark = pytest.mark.browser  # Chromium; deselect with -m 'not browser'


def test_evaluate_tab_runs_an_uploaded_question_set(
    served: str, service: Actions, ingestor: Ingestor, tmp_path: Path, open_page: OpenPage
) -> None:
    handbook_docset(service, ingestor)
    questions = tmp_path / "questions.jsonl"
    questions.write_text(QUESTIONS, encoding="utf-8")
    page = open_page(served)
    page.get_by_role("tab", name="Evaluate").click()
    page.get_by_label("DocSet to evaluate").click()
    page.get_by_role("option", name="handbook").click()
    page.locator("input[type=file][accept='.jsonl']").set_input_files(str(questions))
    # once uploaded, Gradio shows the name as two spans, "questions" and ".jsonl": only
    # the cell's label holds it whole (the text matched only while the upload was shown)
    expect(page.get_by_role("cell", name="questions.jsonl")).to_be_visible()
    page.get_by_role("button", name="Run evaluation").click()
    expect(page.get_by_text("3 questions").first).to_be_visible(timeout=60_000)
    expect(page.get_by_text("Which colour is the logo?").first).to_be_visible()
    expect(page.get_by_text("Answer grading skipped").first).to_be_visible()
