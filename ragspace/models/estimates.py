"""How many chunks an ingestion will make, and so when it ends, from what is known so far.

Every queued document's text is stored when it is queued, so its size is known from the
start; only its chunk count waits for the chunker. The documents chunked so far that were
split into several chunks give the chunks per byte of text (their sums' ratio); each queued
file is expected to make its size times that, and at least one chunk (a small file is one
chunk whatever its size, and checkouts hold thousands). Prose and code apart: a prose
chunk holds fewer bytes, and a checkout's docs/ folder is often queued before its code.
Files of one kind differ too, so the range is that of the chunked files' own densities (the
byte-weighted 10th and 90th percentiles). No ETA is given until enough is measured (`stable`).
Counting chunks per document instead (the estimate before, issue 67) took the first,
usually small, files as typical: at 7 s it said "about 24 s" of a 4 min 25 s ingestion.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from ragspace.models.documents import Document, EmbeddingStatus
from ragspace.settings.chunking import ChunkingSettings
from ragspace.text.languages import is_prose

STABLE_SHARE = 0.05  # of the text's bytes chunked before an ETA is given
STABLE_DOCUMENTS = 5  # and at least this many documents chunked
LOW_QUANTILE, HIGH_QUANTILE = 0.1, 0.9
# a prose chunk is shorter than a code chunk: until one kind is chunked, its chunks per byte
# are the other's scaled by the default chunk sizes' ratio (code 800, prose 600 characters)
_SIZES = ChunkingSettings.model_fields
CODE_PER_PROSE_CHUNK = int(_SIZES["prose_chunk_size"].default) / int(
    _SIZES["code_chunk_size"].default
)


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


@dataclass
class _Kind:
    """What is known of one kind of document (prose or code): chunked and waiting."""

    measured: list[tuple[int, int]] = field(default_factory=list)  # (text bytes, chunks)
    waiting: list[int] = field(default_factory=list)  # text bytes of each not chunked yet

    @property
    def known(self) -> int:
        return sum(n for _, n in self.measured)

    @property
    def measured_bytes(self) -> int:
        return sum(size for size, _ in self.measured)

    def densities(self, scale: float = 1.0) -> tuple[float, float, float] | None:
        """Chunks per byte of the files split into several chunks (a small file is one
        chunk whatever its size): (10th percentile, their chunks over their bytes, 90th)."""
        split = [(size, n) for size, n in self.measured if n > 1] or self.measured
        size = sum(size for size, _ in split)
        if not size:
            return None
        low, high = _quantile_densities(split)
        middle = sum(n for _, n in split) / size
        return min(low, middle) * scale, middle * scale, max(high, middle) * scale

    def expected(self, density: float) -> float:
        """The chunks its waiting files make at `density`: each at least one."""
        return sum(max(1.0, size * density) for size in self.waiting)


def estimate_chunks(documents: Sequence[Document]) -> ChunkEstimate:
    """The chunks the documents will make in all, from their text sizes (module doc)."""
    kinds = {True: _Kind(), False: _Kind()}  # prose, code
    embedded = 0
    for d in documents:
        if d.embedding_status is EmbeddingStatus.ERROR:
            continue
        kind = kinds[is_prose(d.language)]
        chunks = _chunked(d)
        if chunks is None:
            kind.waiting.append(d.text_bytes)
        else:
            kind.measured.append((d.text_bytes, chunks))
        embedded += _embedded(d)
    known = sum(k.known for k in kinds.values())
    measured = sum(k.measured_bytes for k in kinds.values())
    waiting = sum(sum(k.waiting) for k in kinds.values())
    share = measured / (measured + waiting) if measured + waiting else 1.0
    if not waiting:
        return ChunkEstimate(embedded, known, known, known, 1.0, True)
    prose, code = kinds[True], kinds[False]
    # a kind not chunked yet takes the other's density, scaled by their chunk sizes
    prose_density = prose.densities() or code.densities(CODE_PER_PROSE_CHUNK)
    code_density = code.densities() or prose.densities(1 / CODE_PER_PROSE_CHUNK)
    if prose_density is None or code_density is None:
        return ChunkEstimate(embedded, known, known, known, share, False)
    totals = [
        round(known + prose.expected(prose_density[i]) + code.expected(code_density[i]))
        for i in range(3)
    ]
    chunked = sum(len(k.measured) for k in kinds.values())
    stable = share >= STABLE_SHARE and chunked >= STABLE_DOCUMENTS
    return ChunkEstimate(embedded, totals[1], totals[0], totals[2], share, stable)


def _quantile_densities(measured: Sequence[tuple[int, int]]) -> tuple[float, float]:
    """The byte-weighted 10th and 90th percentiles of the chunked documents' chunks per byte."""
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
