"""Where sentences of prose start and end, by lines: a passage should hold whole ones."""

import re
from collections.abc import Sequence

# A line closes a sentence when it ends with . ! ? : or ; (closing quotes, brackets or
# markdown emphasis after it allowed).
_CLOSES = re.compile(r"""[.!?:;]['")\]*_`]*$""")
# A sentence ends inside a line, and another starts after it on the same line.
_ENDS_INSIDE = re.compile(r"""[.!?]['")\]*_`]*\s+\S""")
# A line that starts a block of its own: a heading, list item, fence, table row, quote,
# directive or HTML comment. A sentence does not run into or out of it.
_BLOCK = re.compile(r"(#|[-*+]\s|\d+[.)]\s|```|~~~|\||>|\.\. |<!--)")


def whole_sentences(
    lines: Sequence[str], first: int, start: int, end: int, reach: int
) -> tuple[int, int]:
    """Lines start..end (1-based) grown by up to `reach` lines each way so that the sentence
    cut at each edge is whole: the end grows to the line where that sentence ends, the start
    to the line where it starts (lines hold whole sentences only where sentences end lines;
    a line may end one sentence and start the next). `lines` are the document's lines from
    line `first` (those past the end of the document simply absent). A side whose sentence
    does not end (start) within the reach is left as it is."""

    def line(number: int) -> str:
        index = number - first
        return lines[index].strip() if 0 <= index < len(lines) else ""

    def joined(upper: int, lower: int) -> bool:
        """Line `lower` continues the sentence of line `upper` (the line before it)."""
        above, below = line(upper), line(lower)
        if not above or not below or _BLOCK.match(below) or _CLOSES.search(above):
            return False
        return not above.startswith(("#", "```", "~~~", "|", ".. ", "<!--"))

    def open_after(number: int) -> bool:
        """Line `number` leaves its last sentence open and the next line continues it."""
        return joined(number, number + 1)

    def starts_one(number: int) -> bool:
        """A sentence starts inside line `number`, after the end of another."""
        return bool(_ENDS_INSIDE.search(line(number)))

    grown_end = end
    while grown_end < end + reach and open_after(grown_end):
        grown_end += 1
        if starts_one(grown_end):
            break
    if open_after(grown_end) and not starts_one(grown_end):  # the sentence runs on past reach
        grown_end = end
    grown_start = start
    while grown_start > start - reach and joined(grown_start - 1, grown_start):
        grown_start -= 1
        if starts_one(grown_start):
            break
    if joined(grown_start - 1, grown_start) and not starts_one(grown_start):
        grown_start = start
    return grown_start, grown_end
