"""Claim-level citation checks: is each quote of an answer inside the passage it cites?"""

import re
from dataclasses import dataclass

from rapidfuzz import fuzz

from ragspace.answering.citations import passage_url
from ragspace.models import Citation, Passage, Verification
from ragspace.text.terms import terms

VERIFIED_SCORE = 95.0  # partial_ratio at or above: the quote is in the lines (spacing, case aside)
PARAPHRASED_SCORE = 60.0  # at or above, with enough shared words: a rewording of the lines
PARAPHRASED_WORDS = 0.6  # share of the quote's words (by stem) that the passage contains
MIN_QUOTE_CHARS = 8
_QUOTES_HEADING = re.compile(r"^\s*\**\s*quotes\s*:?\s*\**\s*:?\s*$", re.IGNORECASE | re.MULTILINE)
_QUOTE_LINE = re.compile(r"^\s*[-*]?\s*\[(\d+)\]\s*[:\-\u2013\u2014]?\s*[\"“'`](.+)[\"”'`]\s*$")
_RANK = {"verified": 0, "paraphrased": 1, "unsupported": 2}


@dataclass(frozen=True)
class Match:
    """How well a quote matches a passage, and the document lines it matched."""

    label: Verification
    score: float
    start_line: int
    end_line: int


def split_quotes(text: str) -> tuple[str, dict[int, list[str]]]:
    """The answer without its trailing `Quotes:` section, and the quotes given per [n]."""
    headings = list(_QUOTES_HEADING.finditer(text))
    if not headings:
        return text, {}
    heading = headings[-1]
    quotes: dict[int, list[str]] = {}
    for line in text[heading.end() :].split("\n"):
        found = _QUOTE_LINE.match(line)
        if found:
            quotes.setdefault(int(found.group(1)), []).append(found.group(2).strip())
    return text[: heading.start()].rstrip(), quotes


def _normalized(text: str) -> tuple[str, list[int]]:
    """Lower case with whitespace runs as one space, and each character's original offset."""
    chars: list[str] = []
    offsets: list[int] = []
    for offset, char in enumerate(text):
        if char.isspace():
            if chars and chars[-1] != " ":
                chars.append(" ")
                offsets.append(offset)
            continue
        chars.append(char.lower())
        offsets.append(offset)
    return "".join(chars), offsets


def word_share(quote: str, content: str) -> float:
    """The share of a quote's words (by stem) that occur in the content."""
    wanted, present = terms(quote), terms(content)
    if not wanted:
        return 0.0
    return len(wanted & present) / len(wanted)


def match_quote(quote: str, passage: Passage) -> Match:
    """Find a quote in the passage's exact lines: verified, paraphrased or unsupported."""
    needle, _ = _normalized(quote.strip())
    haystack, offsets = _normalized(passage.content)
    nothing = Match("unsupported", 0.0, passage.start_line, passage.end_line)
    if len(needle) < MIN_QUOTE_CHARS or not haystack:
        return nothing
    found = fuzz.partial_ratio_alignment(needle, haystack)
    if found is None:
        return nothing
    if found.score >= VERIFIED_SCORE:
        label: Verification = "verified"
    elif (
        found.score >= PARAPHRASED_SCORE and word_share(quote, passage.content) >= PARAPHRASED_WORDS
    ):
        label = "paraphrased"
    else:
        return Match("unsupported", found.score, passage.start_line, passage.end_line)
    first = offsets[min(found.dest_start, len(offsets) - 1)]
    last = offsets[max(found.dest_end - 1, 0)]
    start = passage.start_line + passage.content.count("\n", 0, first)
    end = passage.start_line + passage.content.count("\n", 0, last)
    return Match(label, found.score, start, end)


def verify_quotes(
    citations: list[Citation], passages: list[Passage], quotes: dict[int, list[str]]
) -> list[Citation]:
    """Each citation labelled by its weakest quote (no quote: unsupported), focused on it."""
    known = {p.number: p for p in passages}
    checked: list[Citation] = []
    for citation in citations:
        given = quotes.get(citation.number, [])
        if not given or citation.number not in known:
            checked.append(citation.model_copy(update={"verification": "unsupported"}))
            continue
        matches = [(match_quote(q, known[citation.number]), q) for q in given]
        worst, quote = max(matches, key=lambda m: (_RANK[m[0].label], -m[0].score))
        update: dict[str, object] = {"verification": worst.label, "quote": quote}
        if worst.label != "unsupported":
            lines = (worst.start_line, worst.end_line)
            url = passage_url(known[citation.number], lines)
            update |= {"focus_start_line": lines[0], "focus_end_line": lines[1], "url": url}
        checked.append(citation.model_copy(update=update))
    return checked


def verification_counts(citations: list[Citation]) -> dict[str, int]:
    """How many citations carry each label."""
    counts = dict.fromkeys(_RANK, 0)
    for citation in citations:
        if citation.verification is not None:
            counts[citation.verification] += 1
    return counts
