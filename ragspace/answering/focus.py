"""Which lines of a passage match a question best, and its best sentences, verbatim."""

import re
from dataclasses import dataclass
from typing import Any

from ragspace.models import Passage
from ragspace.text.languages import is_prose
from ragspace.text.terms import term_pairs, terms

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_LIST_ITEM = re.compile(r"([-*+]|\d+[.)])\s")
FOCUS_LINES = 4
MAX_SENTENCE_CHARS = 400


def is_prose_passage(passage: Passage) -> bool:
    """Documentation (or a passage of no known language), read by sentences, not lines."""
    return is_prose_metadata(passage.metadata)


def is_prose_metadata(metadata: dict[str, Any]) -> bool:
    """Chunk metadata of documentation (or of no known language)."""
    language = str(metadata.get("language", ""))
    return not language or is_prose(language)


def chunk_range(passage: Passage) -> tuple[int, int]:
    """The lines of the best-matching chunk inside a (possibly widened) passage."""
    start = passage.focus_line
    if not passage.start_line <= start <= passage.end_line:
        start = passage.start_line
    end = passage.focus_end_line
    if not start <= end <= passage.end_line:
        end = passage.end_line
    return start, end


def passage_line(passage: Passage, number: int) -> str:
    """One line of a passage by its line number in the document ("" outside it)."""
    lines = passage.content.split("\n")
    index = number - passage.start_line
    return lines[index] if 0 <= index < len(lines) else ""


def focus_range(passage: Passage, question: str = "") -> tuple[int, int]:
    """The few lines of the best chunk sharing most words with the question."""
    start, end = chunk_range(passage)
    wanted = terms(question)
    scores = {n: len(wanted & terms(passage_line(passage, n))) for n in range(start, end + 1)}
    best = max(scores, key=lambda n: (scores[n], -n))
    if not wanted or scores[best] == 0:
        return start, end
    return _around(passage, best, start, end)


def _around(passage: Passage, best: int, start: int, end: int) -> tuple[int, int]:
    """FOCUS_LINES non-blank lines from the best one, those after it first. Prose reads on
    past blank lines (a heading's paragraph, the next sentence); code stays in the best
    line's block (blank lines separate statements that belong apart)."""
    prose = is_prose_passage(passage)

    def filled(number: int) -> bool:
        return bool(passage_line(passage, number).strip())

    def extends(number: int) -> bool:
        return start <= number <= end and (prose or filled(number))

    low = high = best
    taken = 1
    while taken < FOCUS_LINES and extends(high + 1):
        high += 1
        taken += filled(high)
    while taken < FOCUS_LINES and extends(low - 1):
        low -= 1
        taken += filled(low)
    while high > best and not filled(high):
        high -= 1
    while low < best and not filled(low):
        low += 1
    return low, high


@dataclass(frozen=True)
class Lead:
    """A verbatim sentence (prose) or lines (code) of a passage that answers a question."""

    text: str
    code: bool
    score: int


def lead(passage: Passage, question: str) -> Lead | None:
    """The passage's sentence or code lines sharing most words with the question, if any;
    between sentences sharing as many words, the one holding more of the question's word
    pairs in order ("ref ... indexed") wins, then the first."""
    wanted = terms(question)
    if not wanted:
        return None
    if not is_prose_passage(passage):
        start, end = focus_range(passage, question)
        text = "\n".join(passage_line(passage, n) for n in range(start, end + 1)).strip("\n")
        score = len(wanted & terms(text))
        return Lead(text=text, code=True, score=score) if score else None
    pairs = term_pairs(question)
    scored = [
        (len(wanted & terms(s)), len(pairs & term_pairs(s)), -i, s)
        for i, s in enumerate(sentences(passage.content))
    ]
    if not scored:
        return None
    score, _, _, text = max(scored)
    return Lead(text=text, code=False, score=score) if score else None


def sentences(text: str) -> list[str]:
    """Sentences of prose, verbatim but for line breaks; headings, fences and tables left out."""
    found: list[str] = []
    in_code = False
    prose: list[str] = []

    def flush() -> None:
        joined = " ".join(prose)
        found.extend(s for s in _SENTENCE_END.split(joined) if 12 <= len(s) <= MAX_SENTENCE_CHARS)
        prose.clear()

    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_code = not in_code
            flush()
        elif in_code or not stripped or stripped.startswith(("#", "|", "<!--")):
            flush()
        else:
            if _LIST_ITEM.match(stripped):
                flush()
            prose.append(stripped)
    flush()
    return found
