"""An ingestion's progress in words: documents and chunks done, the recent embedding rate and
the time left. The status tab shows it (in Markdown) and `ragspace add … --wait` prints it
as a line when its output is not a terminal; both read it from here."""

from collections.abc import Sequence
from datetime import datetime, timedelta

from ragspace.models.documents import Document, EmbeddingStatus, ingestion_progress
from ragspace.models.estimates import ChunkEstimate, estimate_chunks, seconds_left

RATE_WINDOW = timedelta(minutes=5)  # the embedding rate is measured over recent work

# (label, value): `Documents` `3 of 10 done`
ProgressPart = tuple[str, str]


def progress_parts(documents: Sequence[Document], now: datetime) -> list[ProgressPart]:
    """Documents and chunks done, then (while embedding) the rate and the ETA; none for no
    documents."""
    if not documents:
        return []
    progress = ingestion_progress(documents)  # the same counts as MCP's job_status
    # a pending document's chunks are unknown until it is chunked: estimated from the text
    # sizes known from the start (models/estimates.py), a range until every one is chunked
    estimate = estimate_chunks(documents)
    done = f"{progress.done} of {len(documents)} done"
    if progress.error:
        done += f" ({progress.error} failed)"
    parts = [
        ("Documents", done),
        ("Chunks", _chunks(estimate)),
    ]
    if progress.finished:
        return parts
    rate = embedding_rate(documents, now)
    if rate is None:
        return [*parts, ("Rate", "measuring…")]
    parts.append(("Rate", f"{rate:.1f} chunks/s"))
    if not estimate.stable:  # too little chunked yet: an ETA now would be a guess
        parts.append(("ETA", "estimating…"))
    elif estimate.expected > estimate.embedded:
        low, _, high = seconds_left(estimate, rate)
        parts.append(("ETA", duration_range(low, high)))
    return parts


def embedding_rate(documents: Sequence[Document], now: datetime) -> float | None:
    """Chunks per second embedded by the work of the last few minutes, None before any."""
    since = now - RATE_WINDOW
    recent = [
        d
        for d in documents
        if d.started_at is not None
        and (
            d.embedding_status == EmbeddingStatus.PROCESSING
            or (
                d.embedding_status == EmbeddingStatus.DONE
                and d.finished_at
                and d.finished_at > since
            )
        )
    ]
    if not recent:
        return None
    chunks = sum(
        d.chunk_count if d.embedding_status == EmbeddingStatus.DONE else d.chunks_embedded
        for d in recent
    )
    start = max(min(d.started_at for d in recent if d.started_at), since)
    elapsed = (now - start).total_seconds()
    if chunks == 0 or elapsed <= 0:
        return None
    return chunks / elapsed


def duration(seconds: float) -> str:
    """`40 s`, `3 min`, `1.5 h`."""
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    if seconds < 3600:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def duration_range(low: float, high: float) -> str:
    """`about 3 min`, `2-5 min`, `40 s-2 min`."""
    first, last = duration(low), duration(high)
    if first == last:
        return f"about {first}"
    unit, other = first.split(" ", 1)[-1], last.split(" ", 1)[-1]
    return f"{first.split(' ', 1)[0]}-{last}" if unit == other else f"{first}-{last}"


def _chunks(estimate: ChunkEstimate) -> str:
    """`40 of about 90-120 embedded`; `none chunked yet` before any document is."""
    if not estimate.expected and not estimate.exact:
        return "none chunked yet"
    return f"{estimate.embedded:,} of {_total(estimate)} embedded"


def _total(estimate: ChunkEstimate) -> str:
    if estimate.exact:
        return f"{estimate.expected:,}"
    if not estimate.stable:
        return f"about {estimate.expected:,} so far"
    if estimate.low == estimate.high:
        return f"about {estimate.expected:,}"
    return f"about {estimate.low:,}-{estimate.high:,}"
