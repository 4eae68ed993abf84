"""What may be read of a document at once, for every reader of document text.

The viewer (deep links included), MCP `read_document`, `ragspace docs show` and anything
else that reads a document goes through `DocumentActions.read`, which takes its
range from `window`: at most MAX_READ_LINES lines and MAX_READ_CHARS characters, whatever
range was asked for, and a continuation saying which range to read next. A single line
longer than the character cap is cut (minified or generated text) and said so. Chat context
reads the same way (`Store.read_lines`): the database hands over at most the caps' worth of
text, so no prompt ever loads a whole large document or an unbounded line.
"""

from collections.abc import Sequence
from dataclasses import dataclass

MAX_READ_LINES = 1_000
MAX_READ_CHARS = 50_000  # highlighted Python of this size renders in about 0.3 s


@dataclass(frozen=True)
class Window:
    """Lines start..end (1-based, inclusive) of a document, as far as the caps allow."""

    start: int
    end: int
    total: int
    text: str
    cut_line: int | None = None  # a line longer than the character cap, cut

    @property
    def continuation(self) -> str | None:
        """What was left out and which range to read next; None when nothing was."""
        cut = f" (line {self.cut_line} is cut at {MAX_READ_CHARS:,} characters)"
        shown = f"Showing lines {self.start}-{self.end} of {self.total}"
        if self.end >= self.total:
            return f"{shown}{cut}." if self.cut_line else None
        following = f"read lines {self.end + 1}-{min(self.end + MAX_READ_LINES, self.total)}"
        return f"{shown}{cut if self.cut_line else ''}; {following} next."


def window(
    lines: Sequence[str], start: int, end: int | None, first: int = 1, total: int | None = None
) -> Window:
    """The lines start..end (all to the end when None) that fit the caps.

    `lines` holds the document's lines from line `first` on (all of them by default) and
    `total` the document's line count: a bounded read (`fetch_bounds`) passes its slice.
    """
    total = len(lines) if total is None else total
    last = min(total, start + MAX_READ_LINES - 1, total if end is None else end)
    last = min(last, first + len(lines) - 1)
    chosen: list[str] = []
    used = 0
    for number in range(start, last + 1):
        line = lines[number - first]
        if used + len(line) > MAX_READ_CHARS:
            if chosen:  # stop before it: the next range starts there
                return Window(start, number - 1, total, "\n".join(chosen))
            return Window(start, number, total, line[:MAX_READ_CHARS], cut_line=number)
        chosen.append(line)
        used += len(line) + 1
    return Window(start, last, total, "\n".join(chosen))


def fetch_last_line(start: int, end: int) -> int:
    """The last line a read of start..end fetches: no more than the line cap allows."""
    return min(end, start + MAX_READ_LINES - 1)
