"""How many chunks an ingestion will make, and so when it ends, from what is known so far.

Every queued document's text is stored when it is queued, so its size is known from the
start; only its chunk count waits for the chunker. The documents chunked so far give the
chunks per byte of text (their sums' ratio), which the bytes still to chunk are multiplied
by. The documents of one DocSet differ (prose against code, small files against large), so
the range is that of the chunked documents' own densities (the byte-weighted quartiles):
it narrows as fewer bytes remain. No ETA is given until enough is measured (`stable`).
Counting chunks per document instead (the estimate before, issue 67) took the first,
usually small, files as typical: at 7 s it said "about 24 s" of a 4 min 25 s ingestion.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from ragspace.models.documents import Document, EmbeddingStatus

STABLE_SHARE = 0.05  # of the text's bytes chunked before an ETA is given
STABLE_DOCUMENTS = 5  # and at least this many documents chunked
LOW_QUANTILE, HIGH_QUANTILE = 0.25, 0.75


@dataclass(frozen=True)
class ChunkEstimate:
    """The chunks embedded, and the total expected with its range."""

    embedded: int
    expected: int
    low: int
    high: int
    chunked_share: float  # of the documents' text bytes, chunked already
    stable: bool  # measured enough for an ETA

    @property
    def exact(self) -> bool:
        """True when every document is chunked: the total is known, not estimated."""
        return self.chunked_share >= 1.0


def _chunked(document: Document) -> int | None:
    """The chunks of a document once it is chunked (done, or processing with its total)."""
    if document.embedding_status is EmbeddingStatus.DONE:
        return document.chunk_count
    if document.embedding_status is EmbeddingStatus.PROCESSING and document.chunks_total:
        return document.chunks_total
    return None


def _embedded(document: Document) -> int:
    if document.embedding_status is EmbeddingStatus.DONE:
        return document.chunk_count
    if document.embedding_status is EmbeddingStatus.PROCESSING:
        return document.chunks_embedded
    return 0


def estimate_chunks(documents: Sequence[Document]) -> ChunkEstimate:
    """The chunks the documents will make in all, from their text sizes (module doc)."""
    live = [d for d in documents if d.embedding_status is not EmbeddingStatus.ERROR]
    measured = [(d.text_bytes, n) for d in live if (n := _chunked(d)) is not None]
    known = sum(n for _, n in measured)
    measured_bytes = sum(size for size, _ in measured)
    waiting = sum(d.text_bytes for d in live if _chunked(d) is None)
    embedded = sum(_embedded(d) for d in live)
    total_bytes = measured_bytes + waiting
    share = measured_bytes / total_bytes if total_bytes else 1.0
    if not waiting:
        return ChunkEstimate(embedded, known, known, known, 1.0, True)
    if not measured_bytes:
        return ChunkEstimate(embedded, known, known, known, share, False)
    density = known / measured_bytes
    low, high = _quantile_densities(measured)
    return ChunkEstimate(
        embedded=embedded,
        expected=round(known + density * waiting),
        low=round(known + min(low, density) * waiting),
        high=round(known + max(high, density) * waiting),
        chunked_share=share,
        stable=share >= STABLE_SHARE and len(measured) >= STABLE_DOCUMENTS,
    )


def _quantile_densities(measured: Sequence[tuple[int, int]]) -> tuple[float, float]:
    """The byte-weighted quartiles of the chunked documents' chunks per byte."""
    densities = sorted((n / size, size) for size, n in measured if size > 0)
    if not densities:
        return 0.0, 0.0
    total = sum(size for _, size in densities)
    found: list[float] = []
    for quantile in (LOW_QUANTILE, HIGH_QUANTILE):
        running = 0
        for density, size in densities:
            running += size
            if running >= quantile * total:
                found.append(density)
                break
    return found[0], found[1]


def seconds_left(estimate: ChunkEstimate, rate: float) -> tuple[float, float, float]:
    """(low, expected, high) seconds until every expected chunk is embedded at `rate`/s."""
    return tuple(  # type: ignore[return-value]
        max(0.0, total - estimate.embedded) / rate
        for total in (estimate.low, estimate.expected, estimate.high)
    )
