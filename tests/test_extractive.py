"""Answers without a key: verbatim sentences that answer, then the sources, nothing twice."""

import re
from pathlib import Path

import pytest

from ragspace.models import Answer
from ragspace.services import RagspaceService
from ragspace.sources.files import UploadedFile
from ragspace.worker import Ingestor

ROOT = Path(__file__).parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# (question, words the first sentence of the answer must contain)
QUESTIONS = [
    ("Where does the first start keep the embedded database?", ".ragspace"),
    ("Which header does an MCP client send with its credentials?", "X-Ragspace-Auth"),
    ("What does RAGSPACE_READ_ONLY do?", "refuses every change"),
    ("What does the Hugging Face Space run?", "python app.py"),
    ("How are the tests run?", "scripts/test.sh"),
]


@pytest.fixture
def own_docs(service: RagspaceService, ingestor: Ingestor) -> RagspaceService:
    service.create_docset("ragspace")
    files = [UploadedFile(p.relative_to(ROOT).as_posix(), p.read_bytes()) for p in DOCS]
    service.add_files("ragspace", files)
    ingestor.process_all()
    return service


def _flat(text: str) -> str:
    return " ".join(text.split())


def _first_claim(answer: Answer) -> tuple[str, int]:
    """The answer's first sentence (or code lines) and the passage number it cites."""
    found = re.match(r"(.+?) \[(\d+)\]\n", answer.text, re.DOTALL)
    assert found, answer.text[:300]
    return found.group(1), int(found.group(2))


@pytest.mark.parametrize(("question", "expected"), QUESTIONS)
def test_answer_starts_with_verbatim_sentence_that_answers(
    own_docs: RagspaceService, question: str, expected: str
) -> None:
    *_, last = own_docs.ask(question, ["ragspace"])
    answer = last.answer
    assert answer is not None and answer.passages
    sentence, number = _first_claim(answer)
    assert expected in sentence
    cited = next(p for p in answer.passages if p.number == number)
    assert _flat(sentence) in _flat(cited.content)  # verbatim from the passage it cites
    assert _flat(sentence) in _flat((ROOT / cited.path).read_text())
    _assert_nothing_twice(answer)


def _assert_nothing_twice(answer: Answer) -> None:
    numbers = [c.number for c in answer.citations]
    assert len(numbers) == len(set(numbers))
    taken: dict[str, set[int]] = {}
    for passage in answer.passages:  # no two passages share a line of a document
        lines = set(range(passage.start_line, passage.end_line + 1))
        assert not lines & taken.get(passage.path, set()), passage.path
        taken.setdefault(passage.path, set()).update(lines)
    for citation in answer.citations:  # the snippet is shown by the Sources panel only
        body = citation.snippet.removeprefix("…\n").removesuffix("\n…")
        assert _flat(body) not in _flat(answer.text)
        assert f"[{citation.number}] " in answer.text.split("**Sources**")[1]
    sentences = re.findall(r"^(.+?) \[\d+\]$", answer.text.split("**Sources**")[0], re.M)
    assert len(sentences) == len(set(sentences))
