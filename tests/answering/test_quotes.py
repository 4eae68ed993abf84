"""Claim-level citation checks: the quotes of an answer against the passages they cite."""

import re
from pathlib import Path
from typing import Any

import pytest

from ragspace.actions import Actions
from ragspace.answering.prompts import ANSWER_SYSTEM
from ragspace.answering.quotes import match_quote, split_quotes
from ragspace.models import Passage, SearchQuery
from tests.fakes.chat_server import FakeChat

DATA = Path(__file__).parent.parent / "data"
GUIDE = (DATA / "deployment-guide.md").read_text()
EXACT = "each one is recorded in a table so it never runs twice"
PARAPHRASED = "to roll back you restore the most recent backup"
INVENTED = "down-migrations are generated automatically by the cli"
ELSEWHERE = "A named collection of documents that are searched together"  # glossary.rst


def _guide_passage() -> Passage:
    lines = GUIDE.split("\n")
    return Passage(
        number=1,
        document_id=1,
        docset_name="handbook",
        path="deployment-guide.md",
        title="Deployment guide",
        start_line=24,
        end_line=33,
        content="\n".join(lines[23:33]),
        score=1.0,
    )


@pytest.mark.parametrize(
    ("quote", "label"),
    [
        (EXACT, "verified"),
        ("Each one is recorded in a table\n so it never runs twice", "verified"),
        (PARAPHRASED, "paraphrased"),
        (INVENTED, "unsupported"),
        (ELSEWHERE, "unsupported"),
        ("restore", "unsupported"),  # too short to show anything
    ],
)
def test_quotes_are_labelled_by_how_they_match_the_cited_lines(quote: str, label: str) -> None:
    passage = _guide_passage()
    assert "recorded in a table" in passage.content and "Keep fourteen" in passage.content
    assert match_quote(quote, passage).label == label


def test_a_verified_quote_points_at_its_own_lines() -> None:
    match = match_quote(EXACT, _guide_passage())
    assert (match.start_line, match.end_line) == (28, 28)  # inside the passage's 24-33
    assert EXACT in GUIDE.split("\n")[27]


def test_the_quotes_section_is_split_from_the_answer() -> None:
    text = 'Restore a backup [1].\n\nQuotes:\n[1] "restore the latest backup"\n- [2]: “two”'
    claims, quotes = split_quotes(text)
    assert claims == "Restore a backup [1]."
    assert quotes == {1: ["restore the latest backup"], 2: ["two"]}
    assert split_quotes("No quotes here [1].") == ("No quotes here [1].", {})


_PASSAGE = re.compile(r'<passage number="(\d+)"[^>]*>\n(.*?)\n</passage>', re.DOTALL)


def _answer_quoting(quote: str) -> Any:
    """A model that cites the passage holding the migration steps with the given quote."""

    def reply(request: dict[str, Any]) -> str:
        if request["messages"][0]["content"] != ANSWER_SYSTEM:
            return '{"ranking": [1]}'
        prompt = request["messages"][-1]["content"]
        cited = next(n for n, body in _PASSAGE.findall(prompt) if "recorded in a table" in body)
        return f'Restore the latest backup [{cited}].\n\nQuotes:\n[{cited}] "{quote}"'

    return reply


@pytest.mark.parametrize(
    ("quote", "label"),
    [
        (EXACT, "verified"),
        (PARAPHRASED, "paraphrased"),
        (INVENTED, "unsupported"),
        (ELSEWHERE, "unsupported"),  # true of the glossary, not of the cited passage
    ],
)
def test_ask_labels_each_citation_by_its_quote(
    chat_service: Actions, fake_chat: FakeChat, quote: str, label: str
) -> None:
    fake_chat.reply = _answer_quoting(quote)
    *streamed, last = chat_service.answers.ask(
        SearchQuery(question="How do I roll back a migration?", docsets=("handbook",))
    )
    assert last.answer is not None
    assert "verbatim" in fake_chat.prompt_of(-1)  # the model was asked for quotes
    assert streamed and not any("Quotes:" in update.text for update in streamed)
    assert last.answer.text == f"Restore the latest backup [{last.answer.citations[0].number}]."
    [citation] = last.answer.citations
    assert citation.verification == label
    assert citation.quote == quote
    if label == "verified":
        assert (citation.focus_start_line, citation.focus_end_line) == (28, 28)
        assert citation.start_line <= 28 <= citation.end_line
