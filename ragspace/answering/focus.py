"""Which lines of a passage match a question best, and its best sentences, verbatim."""

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from ragspace.answering.boilerplate import as_text, boilerplate_kind, is_boilerplate, is_underline
from ragspace.answering.follow_up import code_names
from ragspace.models import Passage
from ragspace.text.languages import is_prose
from ragspace.text.terms import term_pairs, terms

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_LIST_ITEM = re.compile(r"([-*+]|\d+[.)])\s")
_ASKS_NUMBER = re.compile(
    r"\bhow\s+(long|many|much|often|big|large|fast|old)\b|\bwhat\s+(is|are)\s+the\s+"
    r"(default|maximum|minimum|max|min|limit|size|number|timeout|version|port)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|"
    r"hundred|thousand|million|half|once|twice)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(no|not|without|never|none|unless|cannot|can't|isn't|doesn't)\b", re.I)
FOCUS_LINES = 4
# a boilerplate line (heading, bare signature, import) scores this much below the words it
# shares: a statement sharing as many words is quoted first, one sharing more still loses
BOILERPLATE_DISCOUNT = 0.75
NAME_WEIGHT = 2  # a name the question gives, found whole in a line, counts as two words more
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


@dataclass(frozen=True)
class Wanted:
    """What a line is scored by: the question's words (by stem) and the code names it gives
    (`on_add`, `MergeScheduler`, `Session.send`), which weigh more than words."""

    words: frozenset[str]
    names: tuple[str, ...]

    @classmethod
    def of(cls, question: str) -> "Wanted":
        names = {part.lower() for name in code_names(question) for part in _parts(name)}
        return cls(frozenset(terms(question)), tuple(sorted(n for n in names if len(n) > 2)))


def _parts(name: str) -> list[str]:
    """A dotted name and its last part (`Session.send`: both, `send` alone is a method)."""
    last = re.split(r"\.|::", name)[-1]
    return [name, last] if last != name else [name]


def focus_range(passage: Passage, question: str = "") -> tuple[int, int]:
    """The few lines of the passage around the line that says most about the question: the
    words it shares, the names it gives (more), a statement before a heading, bare signature,
    import or docstring opener that shares as many, and the best-matching chunk's lines
    before its neighbours'."""
    start, end = chunk_range(passage)
    wanted = Wanted.of(question)
    if not wanted.words:
        return start, end
    code = not is_prose_passage(passage)
    for low, high in ((start, end), (passage.start_line, passage.end_line)):
        scores = {
            n: line_score(passage_line(passage, n), wanted, code) for n in range(low, high + 1)
        }
        best = max(scores, key=lambda n: (scores[n], -n))
        if scores[best] > 0:
            return _around(passage, best, low, high)
    return start, end


def line_score(line: str, wanted: Wanted, code: bool = False) -> float:
    """How much a line says about the question: the words it shares, NAME_WEIGHT more for
    each name of the question it holds, less when the line is boilerplate (it names what
    follows rather than saying it)."""
    lowered = line.lower()
    shared = len(wanted.words & terms(line))
    shared += NAME_WEIGHT * sum(name in lowered for name in wanted.names)
    if shared and is_boilerplate(line, code):
        return shared - BOILERPLATE_DISCOUNT
    return float(shared)


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
class Sentence:
    """A sentence of prose, verbatim but for line breaks, and the lines (0-based, of the
    text it was read from) it starts and ends on."""

    text: str
    first: int
    last: int
    heading: str = ""  # the heading of the section it is in


@dataclass(frozen=True)
class Lead:
    """A verbatim sentence (prose, markup rendered) or lines (code) of a passage that
    answers a question, and the document lines it quotes."""

    text: str
    code: bool
    score: float
    start_line: int
    end_line: int


def lead(passage: Passage, question: str) -> Lead | None:
    """The passage's sentence or code lines sharing most words with the question (a
    sentence with its section's heading), if any; between sentences sharing as many words,
    the one sharing more itself wins, then one negative as the question is ("when no key is
    set": "without a key") or not, then one of the best-matching chunk, then (for
    a question asking how long, how many or what limit) one with a number, then the one
    holding more of the question's word pairs in order ("ref ... indexed"), then the first.
    Headings and licence text are not quoted."""
    wanted = terms(question)
    if not wanted:
        return None
    if not is_prose_passage(passage):
        return _code_lead(passage, question)
    pairs, number = term_pairs(question), asks_for_number(question)
    negative = bool(_NEGATION.search(question))
    low, high = (n - passage.start_line for n in chunk_range(passage))
    scored = [
        (
            len(wanted & (terms(s.text) | terms(s.heading))),  # what the section is about too
            len(wanted & terms(s.text)),
            negative == bool(_NEGATION.search(s.text)),  # "when no key is set": "without"
            s.first <= high and s.last >= low,  # in the best-matching chunk
            number and bool(_NUMBER.search(s.text)),
            len(pairs & term_pairs(s.text)),
            -i,
            s,
        )
        for i, s in enumerate(
            sentence_spans(passage.content, str(passage.metadata.get("heading_path") or ""))
        )
        if boilerplate_kind(s.text) not in ("licence", "heading")
    ]
    if not scored:
        return None
    score, _, _, _, _, _, _, best = max(scored, key=lambda row: row[:7])
    if not score:
        return None
    rst = str(passage.metadata.get("language", "")) == "rst" or passage.path.endswith(".rst")
    first, last = passage.start_line + best.first, passage.start_line + best.last
    return Lead(as_text(best.text, rst), False, score, first, last)


def asks_for_number(question: str) -> bool:
    """True for a question whose answer is an amount: how long, how many, what limit..."""
    return bool(_ASKS_NUMBER.search(question))


def _code_lead(passage: Passage, question: str) -> Lead | None:
    """The focus lines of a code passage without the boilerplate lines at their edges (the
    signature above the statement that answers, the next definition's header below it; the
    body under a signature when the signature alone matches)."""
    low, high = focus_range(passage, question)
    numbers = list(range(low, high + 1))
    wanted = Wanted.of(question)
    score = max(line_score(passage_line(passage, n), wanted, True) for n in numbers)
    if score == 0:
        return None
    while len(numbers) > 1 and is_boilerplate(passage_line(passage, numbers[0]), True):
        numbers.pop(0)
    while len(numbers) > 1 and is_boilerplate(passage_line(passage, numbers[-1]), True):
        numbers.pop()
    text = "\n".join(passage_line(passage, n) for n in numbers).strip("\n")
    return Lead(text, True, score, numbers[0], numbers[-1])


def sentences(text: str) -> list[str]:
    """Sentences of prose, verbatim but for line breaks; headings, fences and tables left out."""
    return [s.text for s in sentence_spans(text)]


def sentence_spans(text: str, heading: str = "") -> list[Sentence]:
    """Sentences of prose with their lines and the heading they are under (`heading` until
    the text gives one); Markdown and reST headings (a title over its underline), fences,
    tables and directives left out."""
    found: list[Sentence] = []
    in_code = False
    prose: list[tuple[int, str]] = []

    def flush() -> None:
        found.extend(_split(prose, heading))
        prose.clear()

    for number, line in enumerate(text.split("\n")):
        stripped = line.strip()
        if is_underline(line) and prose:  # the line above was a reST title
            title = prose.pop()[1]
            flush()
            heading = title
        elif stripped.startswith("#") and not in_code:
            flush()
            heading = stripped.lstrip("#").strip()
        elif stripped.startswith(("```", "~~~")):
            in_code = not in_code
            flush()
        elif in_code or not stripped or stripped.startswith(("#", "|", "<!--", ".. ")):
            flush()
        else:
            if _LIST_ITEM.match(stripped):
                flush()
            prose.append((number, stripped))
    flush()
    return found


def _split(prose: list[tuple[int, str]], heading: str = "") -> list[Sentence]:
    """A paragraph's lines cut into sentences, each with its first and last line."""
    if not prose:
        return []
    joined, starts = "", []
    for _, text in prose:
        starts.append(len(joined) + (1 if joined else 0))
        joined = f"{joined} {text}" if joined else text
    found, begin = [], 0
    for end in [m.start() for m in _SENTENCE_END.finditer(joined)] + [len(joined)]:
        sentence = joined[begin:end].strip()
        if 12 <= len(sentence) <= MAX_SENTENCE_CHARS:
            first = prose[bisect_right(starts, begin) - 1][0]
            last = prose[bisect_right(starts, max(begin, end - 1)) - 1][0]
            found.append(Sentence(sentence, first, last, heading))
        begin = end
    return found
