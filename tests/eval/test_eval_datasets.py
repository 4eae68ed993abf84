"""The JSONL question-set format and data-set format detection."""

import json
from pathlib import Path

import pytest

from ragspace.errors import ValidationError
from ragspace.eval.datasets import load_dataset, parse_question_set
from ragspace.eval.evaluation import WHOLE_FILE_END, PageRef, Span
from tests.eval.test_evaluation import write_eval_docs


def test_every_documented_relevant_form_is_read() -> None:
    relevant = [
        "src/config.py#L10-L42",
        "docs/retries.md",
        "/lib/x.py#L7",
        "https://docs.example.com/guide#retries",
        {"path": "src/retry.py", "lines": [5, 30]},
        {"url": "https://docs.example.com/faq"},
        {"url": "https://e.com/a", "anchor": "b"},
    ]
    first_line = {
        "question": " How are retries set? ",
        "answer": "max_retries",
        "relevant": relevant,
    }
    text = f"""
// comments and blank lines are skipped

{json.dumps(first_line)}
{{"question": "Only a question", "relevant": ["README.md", "README.md"]}}
"""
    dataset = parse_question_set(text, "mine")
    first, second = dataset.queries
    assert (dataset.name, dataset.documents, first.text, first.answer) == (
        "mine",
        (),
        "How are retries set?",
        "max_retries",
    )
    assert first.gold == (
        Span("src/config.py", 10, 42),
        Span("docs/retries.md", 1, WHOLE_FILE_END),
        Span("lib/x.py", 7, 7),
        PageRef("https://docs.example.com/guide", "retries"),
        Span("src/retry.py", 5, 30),
        PageRef("https://docs.example.com/faq"),
        PageRef("https://e.com/a", "b"),
    )
    assert second.gold == (Span("README.md", 1, WHOLE_FILE_END),) and second.answer == ""


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "Line 2 is not valid JSON"),
        ("[1, 2]", "Line 2 must be a JSON object"),
        ('{"relevant": ["a"]}', "Line 2 needs a non-empty 'question'"),
        ('{"question": "q", "relevant": []}', "Line 2 needs 'relevant'"),
        ('{"question": "q", "relevant": [3]}', "Line 2: each relevant item is a path, a URL"),
        ('{"question": "q", "relevant": ["a.py#L9-L3"]}', "bad line range in 'a.py#L9-L3'"),
        ('{"question": "q", "relevant": [{"path": "a", "lines": [0, 2]}]}', "'lines' must be"),
        ('{"question": "q", "answer": 4, "relevant": ["a"]}', "'answer' must be a string"),
    ],
)
def test_errors_name_the_line(line: str, message: str) -> None:
    good = '{"question": "fine", "relevant": ["a.md"]}'
    with pytest.raises(ValidationError, match=message.replace("[", r"\[")):
        parse_question_set(f"{good}\n{line}\n", "bad")


def test_an_empty_set_is_refused() -> None:
    with pytest.raises(ValidationError, match="holds no questions"):
        parse_question_set("\n// nothing\n", "empty")


def test_formats_are_told_apart_by_their_files(tmp_path: Path) -> None:
    """corpus.json + queries.json: docs set; a .jsonl file: question set; else an error."""
    write_eval_docs(tmp_path / "docs")
    assert load_dataset(tmp_path / "docs").name == "claude-docs"
    questions = tmp_path / "mine.jsonl"
    questions.write_text('{"question": "q", "relevant": ["a.md"]}\n', encoding="utf-8")
    assert load_dataset(questions).name == "mine"
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValidationError, match="is not an evaluation set"):
        load_dataset(tmp_path / "empty")
    with pytest.raises(ValidationError, match="No evaluation set at"):
        load_dataset(tmp_path / "missing")
