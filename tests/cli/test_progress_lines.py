"""`--wait` without a terminal prints progress lines: the first poll's, each stage's end, and
one every LINE_SECONDS in between, with the status tab's figures."""

from datetime import UTC, datetime, timedelta

from ragspace.models import Document, EmbeddingStatus, VectorTier
from ragspace_cli.progress_lines import LINE_SECONDS, ProgressLines

START = datetime(2026, 12, 2, 8, 0, tzinfo=UTC)


def document(number: int, status: EmbeddingStatus, **fields: object) -> Document:
    values: dict[str, object] = {
        "id": number,
        "docset_id": 1,
        "docset_name": "code",
        "source_id": 1,
        "path": f"src/m{number}.py",
        "title": f"m{number}.py",
        "language": "python",
        "content_hash": str(number),
        "embedding_status": status,
        "error_message": None,
        "chunk_count": 0,
        "text_bytes": 10_000,
        "created_at": START,
        "updated_at": START,
    }
    values.update(fields)
    return Document.model_validate(values)


def chunked(number: int, embedded: int, at: datetime) -> Document:
    """Keyword-searchable, `embedded` of its 10 chunks with vectors, started at START."""
    done = embedded == 10
    return document(
        number,
        EmbeddingStatus.DONE if done else EmbeddingStatus.PROCESSING,
        chunk_count=10,
        chunks_total=10,
        chunks_embedded=embedded,
        vector_tier=VectorTier.QUALITY if done else VectorTier.KEYWORDS,
        started_at=START,
        finished_at=at if done else None,
    )


def test_a_line_at_the_start_at_each_stage_and_every_interval_between() -> None:
    lines = ProgressLines()
    queued = [document(n, EmbeddingStatus.PENDING) for n in range(1, 7)]
    first = lines.lines(queued, START)
    assert first == [
        "Embedding. Documents: 0 of 6 done; Chunks: none chunked yet; "
        "Rate: measuring…; Keyword-searchable: 0/6"
    ]
    assert lines.lines(queued, START + timedelta(seconds=LINE_SECONDS - 1)) == []

    at = START + timedelta(seconds=LINE_SECONDS - 0.5)
    searchable = [chunked(n, 10 if n <= 5 else 0, at) for n in range(1, 7)]
    # every document has its chunks: the stage's line, not the periodic one
    assert lines.lines(searchable, at) == ["All 6 document(s) keyword-searchable."]
    assert lines.lines(searchable, at + timedelta(seconds=1)) == []

    later = at + timedelta(seconds=LINE_SECONDS)
    periodic = lines.lines(searchable, later)
    assert len(periodic) == 1
    line = periodic[0]
    assert line.startswith("Embedding. Documents: 5 of 6 done; Chunks: 50 of 60 embedded; Rate: ")
    assert "ETA: " in line and line.endswith("Keyword-searchable: 6/6")

    done = [chunked(n, 10, later) for n in range(1, 7)]
    assert lines.lines(done, later + timedelta(seconds=1)) == ["All 6 document(s) with vectors."]
    assert lines.lines(done, later + timedelta(seconds=2 * LINE_SECONDS)) == [
        "Embedding. Documents: 6 of 6 done; Chunks: 60 of 60 embedded; Keyword-searchable: 6/6"
    ]


def test_documents_already_done_print_both_stages_at_once() -> None:
    done = [chunked(n, 10, START) for n in (1, 2)]
    assert ProgressLines().lines(done, START) == [
        "All 2 document(s) keyword-searchable.",
        "All 2 document(s) with vectors.",
    ]
