"""Amounts as people say them, for every panel: sizes (20 MB, 29.6 KB, 90 bytes) and counts
(1 document, 2 documents)."""


def size_text(size: int) -> str:
    """A byte count in the largest unit it reaches (binary units, one decimal unless whole)."""
    for unit, factor in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if size >= factor:
            value = size / factor
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} bytes"


def plural(count: int, noun: str) -> str:
    """`1 document`, `2 documents`."""
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"
