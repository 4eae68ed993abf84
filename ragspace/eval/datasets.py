"""Question sets: the JSONL format for users' own sets, and finding a data set's format.

A question set is a JSONL file, one object per line:

    {"question": "How do I set the retry limit?",
     "answer": "Set max_retries in config.toml.",            (optional reference answer)
     "relevant": ["src/config.py#L10-L42",                   (a file, optional line range)
                  "docs/retries.md",                         (a whole file)
                  "https://docs.example.com/guide#retries",  (a web page section)
                  {"path": "src/retry.py", "lines": [5, 30]},
                  {"url": "https://docs.example.com/faq"}]}

A path matches a document whose path equals it or ends with `/path`; a URL matches
the page it names (and, with `#anchor`, only that section). Blank lines and lines
starting with `//` are ignored.
"""

import json
import re
from pathlib import Path
from typing import Any

from ragspace.errors import ValidationError
from ragspace.eval.evaluation import (
    WHOLE_FILE_END,
    Dataset,
    EvalQuery,
    Gold,
    PageRef,
    Span,
    load_claude_docs,
    load_codebase,
)

MAX_QUESTIONS = 5000
_LINE_RANGE = re.compile(r"^(?P<path>.+?)(?:#L(?P<start>\d+)(?:-L?(?P<end>\d+))?)?$")


def load_dataset(path: Path) -> Dataset:
    """A data set from a folder in one of the shared formats, or a JSONL question set."""
    if path.is_dir():
        if (path / "corpus.json").is_file() and (path / "queries.json").is_file():
            return load_claude_docs(path)
        if (path / "corpus.json").is_file() and (path / "queries.jsonl").is_file():
            return load_codebase(path)
        raise ValidationError(
            f"{path} is not an evaluation set: expected corpus.json with queries.json "
            "(documentation format) or queries.jsonl (code format)."
        )
    if path.is_file():
        return read_question_set(path)
    raise ValidationError(f"No evaluation set at {path}.")


def read_question_set(path: Path) -> Dataset:
    """A JSONL question set (no corpus: it is asked of an existing DocSet)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValidationError(f"Cannot read the question set {path.name}: {exc}") from None
    return parse_question_set(text, path.stem)


def parse_question_set(text: str, name: str) -> Dataset:
    """Questions from JSONL text; errors name the line."""
    queries: list[EvalQuery] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("//"):
            continue
        queries.append(_question(line, number))
    if not queries:
        raise ValidationError(f"The question set {name!r} holds no questions.")
    if len(queries) > MAX_QUESTIONS:
        raise ValidationError(f"A question set has at most {MAX_QUESTIONS} questions.")
    return Dataset(name, (), tuple(queries))


def _question(line: str, number: int) -> EvalQuery:
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"Line {number} is not valid JSON: {exc.msg}.") from None
    if not isinstance(item, dict):
        raise ValidationError(f"Line {number} must be a JSON object.")
    question = item.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ValidationError(f"Line {number} needs a non-empty 'question'.")
    relevant = item.get("relevant")
    if not isinstance(relevant, list) or not relevant:
        raise ValidationError(f"Line {number} needs 'relevant': a non-empty list of files/URLs.")
    answer = item.get("answer") or ""
    if not isinstance(answer, str):
        raise ValidationError(f"Line {number}: 'answer' must be a string.")
    gold = tuple(dict.fromkeys(_gold(entry, number) for entry in relevant))
    return EvalQuery(question.strip(), gold, answer.strip())


def _gold(entry: Any, number: int) -> Gold:
    if isinstance(entry, str):
        return _gold_from_text(entry.strip(), number)
    if isinstance(entry, dict) and isinstance(entry.get("url"), str):
        url, _, anchor = entry["url"].partition("#")
        return PageRef(url, str(entry.get("anchor") or anchor))
    if isinstance(entry, dict) and isinstance(entry.get("path"), str):
        lines = entry.get("lines")
        if lines is None:
            return Span(entry["path"].strip("/"), 1, WHOLE_FILE_END)
        if (
            isinstance(lines, list)
            and len(lines) == 2
            and all(isinstance(n, int) and n >= 1 for n in lines)
            and lines[0] <= lines[1]
        ):
            return Span(entry["path"].strip("/"), lines[0], lines[1])
        raise ValidationError(f"Line {number}: 'lines' must be [first, last], 1-based.")
    raise ValidationError(
        f"Line {number}: each relevant item is a path, a URL, {{'path': ..., 'lines': "
        f"[first, last]}} or {{'url': ...}}; got {json.dumps(entry)[:80]}."
    )


def _gold_from_text(text: str, number: int) -> Gold:
    if not text:
        raise ValidationError(f"Line {number}: a relevant item is empty.")
    if text.startswith(("http://", "https://")):
        url, _, anchor = text.partition("#")
        return PageRef(url, anchor)
    match = _LINE_RANGE.match(text)
    assert match is not None  # the pattern accepts any non-empty text
    path = match["path"].strip("/")
    if match["start"] is None:
        return Span(path, 1, WHOLE_FILE_END)
    start = int(match["start"])
    end = int(match["end"] or start)
    if start < 1 or end < start:
        raise ValidationError(f"Line {number}: bad line range in {text!r}.")
    return Span(path, start, end)
