"""Line tables and the boundary-aware packer shared by the code and prose chunkers."""

import itertools
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# Boundary strengths before a line: higher levels are preferred cut points.
LINE = 1
PARAGRAPH = 2

Measure = Callable[[Sequence[str]], list[int]]


def char_measure(lines: Sequence[str]) -> list[int]:
    """Size of each line in characters, counting its newline."""
    return [len(line) + 1 for line in lines]


@dataclass
class LineTable:
    """A text cut into lines at `\\n`, with offsets, blankness and cumulative sizes."""

    text: str
    starts: list[int]
    lines: list[str]
    blank: list[bool]
    prefix: list[int]

    @classmethod
    def build(cls, text: str, measure: Measure = char_measure) -> "LineTable":
        """Index `text`; `measure` gives each line's size (characters or tokens)."""
        lines = text.split("\n")
        starts = [0] * len(lines)
        position = 0
        for number, line in enumerate(lines):
            starts[number] = position
            position += len(line) + 1
        prefix = [0]
        total = 0
        for size in measure(lines):
            total += size
            prefix.append(total)
        blank = [not line.strip() for line in lines]
        return cls(text, starts, lines, blank, prefix)

    def __len__(self) -> int:
        return len(self.lines)

    def size(self, first: int, stop: int) -> int:
        """Size of lines first..stop-1."""
        return self.prefix[stop] - self.prefix[first]

    def line_of(self, offset: int) -> int:
        """0-based line holding character `offset`."""
        return bisect_right(self.starts, offset) - 1


@dataclass(frozen=True)
class Piece:
    """A chunk before trimming: lines first..stop-1, or a character slice of one line."""

    first: int
    stop: int
    level: int
    chars: tuple[int, int] | None = None


def pack(
    table: LineTable,
    first: int,
    stop: int,
    levels: Sequence[int],
    limit: int,
    reserve: int = 0,
    strong: int = 0,
) -> list[Piece]:
    """Cut lines first..stop-1 into pieces no larger than `limit`, at the strongest boundaries.

    Pieces cut at a boundary weaker than `strong` leave `reserve` room for overlap.
    """
    if table.size(first, stop) <= limit or stop - first <= 0:
        return [Piece(first, stop, levels[first] if first < len(levels) else LINE)]
    if stop - first == 1:
        return _split_line(table, first, limit, levels[first])
    cut = max(levels[first + 1 : stop])
    budget = max(1, limit - reserve) if cut < strong else limit
    bounds = [first, *(i for i in range(first + 1, stop) if levels[i] == cut), stop]
    pieces: list[Piece] = []
    for start, end in itertools.pairwise(bounds):
        if table.size(start, end) <= budget:
            _append(table, pieces, Piece(start, end, levels[start]), budget)
        else:
            for piece in pack(table, start, end, levels, limit, reserve, strong):
                _append(table, pieces, piece, budget)
    return pieces


def _append(table: LineTable, pieces: list[Piece], piece: Piece, limit: int) -> None:
    """Add a piece, joining it to the previous one while both fit in the limit."""
    if pieces:
        previous = pieces[-1]
        whole_lines = previous.chars is None and piece.chars is None
        if whole_lines and table.size(previous.first, piece.stop) <= limit:
            pieces[-1] = Piece(previous.first, piece.stop, previous.level)
            return
    pieces.append(piece)


def _split_line(table: LineTable, number: int, limit: int, level: int) -> list[Piece]:
    """A line longer than the limit (minified code) cut by characters; it keeps its number."""
    length = len(table.lines[number].rstrip("\r"))
    width = max(1, limit * length // max(1, table.size(number, number + 1)))
    return [
        Piece(
            number,
            number + 1,
            level if offset == 0 else LINE,
            (offset, min(offset + width, length)),
        )
        for offset in range(0, length, width)
    ]


def with_overlap(
    table: LineTable, pieces: list[Piece], overlap: int, below: int, limit: int
) -> list[Piece]:
    """Start pieces cut at a boundary weaker than `below` a few lines (or chars) earlier."""
    if overlap <= 0:
        return pieces
    result = []
    for index, piece in enumerate(pieces):
        if index == 0 or piece.level >= below:
            result.append(piece)
            continue
        previous = pieces[index - 1]
        if piece.chars is not None:
            if previous.chars is not None and previous.first == piece.first:
                begin = max(previous.chars[0] + 1, piece.chars[0] - overlap)
                piece = Piece(piece.first, piece.stop, piece.level, (begin, piece.chars[1]))
        else:
            first = piece.first
            budget = min(overlap, limit - table.size(piece.first, piece.stop))
            while first - 1 > previous.first and table.size(first - 1, piece.first) <= budget:
                first -= 1
            piece = Piece(first, piece.stop, piece.level)
        result.append(piece)
    return result


def trim(table: LineTable, piece: Piece) -> tuple[int, int, str] | None:
    """0-based first and last line and the exact text of a piece, without blank edges."""
    if piece.chars is not None:
        begin = table.starts[piece.first]
        text = table.text[begin + piece.chars[0] : begin + piece.chars[1]]
        return (piece.first, piece.first, text) if text.strip() else None
    first, last = piece.first, piece.stop - 1
    while first <= last and table.blank[first]:
        first += 1
    while last >= first and table.blank[last]:
        last -= 1
    if first > last:
        return None
    end = table.starts[last] + len(table.lines[last].rstrip("\r"))
    return first, last, table.text[table.starts[first] : end]
