"""Byte counts as people say them, for every panel: 20 MB, 512 KB, 29.6 KB, 90 bytes."""


def size_text(size: int) -> str:
    """A byte count in the largest unit it reaches (binary units, one decimal unless whole)."""
    for unit, factor in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if size >= factor:
            value = size / factor
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} bytes"
