"""Progress as lines of text, for `--wait` when its output is not a terminal (a log, CI, a
pipe): a progress bar draws nothing there, and a long ingestion was silent for minutes.

A line when each stage ends (every document keyword-searchable, then every one with its
vectors) and, in between, one every LINE_SECONDS with the status tab's figures: documents,
chunks, rate and ETA (models/progress_report.py)."""

from collections.abc import Sequence
from datetime import datetime

from ragspace.models import Document, tier_counts
from ragspace.models.progress_report import progress_parts

LINE_SECONDS = 30.0  # between two progress lines while nothing else is printed


class ProgressLines:
    """What to print as the polled documents change; `lines` is pure, given the time."""

    def __init__(self, every: float = LINE_SECONDS) -> None:
        self._every = every
        self._last: datetime | None = None
        self._stages: set[str] = set()

    def lines(self, documents: Sequence[Document], now: datetime) -> list[str]:
        """The lines due now: the first poll's, a stage's end, or the periodic one."""
        out = self._stage_lines(documents)  # a stage's line says as much as the periodic one
        due = self._last is None or (now - self._last).total_seconds() >= self._every
        if due and not out:
            out.append(progress_line(documents, now))
        if out:
            self._last = now
        return out

    def _stage_lines(self, documents: Sequence[Document]) -> list[str]:
        counts = tier_counts(documents)
        total = counts["documents"]
        lines = []
        for stage, label in (("keywords", "keyword-searchable"), ("vectors", "with vectors")):
            if total and counts[stage] == total and stage not in self._stages:
                self._stages.add(stage)
                lines.append(f"All {total} document(s) {label}.")
        return lines


def progress_line(documents: Sequence[Document], now: datetime) -> str:
    """`Embedding. Documents: 3 of 10 done; Chunks: 40 of about 90-120 embedded; Rate: …`."""
    parts = progress_parts(documents, now)
    if not parts:
        return "Embedding: no documents yet."
    counts = tier_counts(documents)
    parts.append(("Keyword-searchable", f"{counts['keywords']}/{counts['documents']}"))
    return "Embedding. " + "; ".join(f"{label}: {value}" for label, value in parts)
