"""Answers: their passages, citations, budgets and streamed updates."""

from datetime import datetime
from typing import Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field

from ragspace.text.markdown_text import escape_markdown


class Passage(BaseModel):
    """Adjacent retrieved chunks of one document merged into a numbered passage."""

    model_config = ConfigDict(frozen=True)

    number: int
    document_id: int
    docset_name: str
    path: str
    title: str
    start_line: int
    end_line: int
    content: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    score: float  # the best chunk's ranking score (Hit.score)
    # the best chunk's cosine similarity to the question, when it was measured
    similarity: float | None = None
    # first line of the best-matching chunk, where a snippet starts (0: the passage start)
    focus_line: int = 0
    # last line of the best-matching chunk (0: the passage end)
    focus_end_line: int = 0
    ref: str | None = None
    resolved_sha: str | None = None
    indexed_at: datetime | None = None


# whether an answer's quote for a citation was found in the cited lines
Verification = Literal["verified", "paraphrased", "unsupported"]


VERIFICATIONS: tuple[Verification, ...] = ("verified", "paraphrased", "unsupported")


class Citation(BaseModel):
    """A numbered reference from an answer to the exact lines it rests on."""

    model_config = ConfigDict(frozen=True)

    number: int
    label: str
    path: str
    start_line: int
    end_line: int
    url: str | None = None
    context: str = ""
    snippet: str = ""
    # the lines inside start_line..end_line that match best (the quote, or the question's terms)
    focus_start_line: int = 0
    focus_end_line: int = 0
    # whether the answer's quote for this citation was found in the cited lines
    verification: Verification | None = None
    quote: str = ""
    # the DocSet and version of the cited lines (see Hit)
    docset: str = ""
    ref: str | None = None
    resolved_sha: str | None = None
    indexed_at: datetime | None = None


class Answer(BaseModel):
    """An answer with the citations it rests on."""

    model_config = ConfigDict(frozen=True)

    text: str
    citations: list[Citation] = Field(default_factory=list)
    passages: list[Passage] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    # passages left out to keep within a token budget (SearchQuery.max_tokens)
    dropped_passages: int = 0

    def noted(self, note: str) -> "Answer":
        """This answer with `note` above its text and first in its notes."""
        return self.model_copy(
            update={"text": note_above(self.text, note), "notes": [note, *self.notes]}
        )


def note_above(text: str, note: str) -> str:
    """`text` under `note` in italics, the note shown as typed."""
    return f"_{escape_markdown(note)}_\n\n{text}"


class AnswerUpdate(BaseModel):
    """A step of a streamed answer; the last one has `done` and the final `answer`."""

    model_config = ConfigDict(frozen=True)

    text: str
    done: bool
    answer: Answer | None = None


class Message(TypedDict):
    """One chat message."""

    role: str
    content: str
