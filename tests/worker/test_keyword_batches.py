"""Keyword passes in batches: many new documents claimed and stored in one transaction, each
keeping its own job, status and lease. Real Postgres, the real chunker."""

import threading
from collections.abc import Sequence

import pytest

from ragspace.actions import Actions
from ragspace.chunking.chunker import ChunkedFile, Chunker
from ragspace.embedding.embedders import Embedder
from ragspace.ingestion.job_chunks import prepare_job
from ragspace.ingestion.worker import IngestOptions, Ingestor
from ragspace.models import VectorTier
from ragspace.runtime import build_chunker
from ragspace.settings import Settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from ragspace.store.docset_indexes import build_missing_indexes
from ragspace.store.keyword_batches import BatchLimits, KeywordBatches, KeywordPass

NAMES = [f"notes/{n}.md" for n in range(6)]


class FailingOn(Chunker):
    """The real chunker, except that it breaks on one path (a parser bug, say)."""

    def __init__(self, inner: Chunker, path: str) -> None:
        self.__dict__.update(inner.__dict__)
        self._broken = path

    def split_file(
        self, text: str, language: str, path: str, with_symbols: bool = True
    ) -> ChunkedFile:
        if path == self._broken:
            raise RuntimeError("the parser fell over")
        return super().split_file(text, language, path, with_symbols)


def _notes(service: Actions, docset: str, sizes: list[int] | None = None) -> None:
    sizes = sizes or [1] * len(NAMES)
    files = [
        UploadedFile(name, ("".join(f"Note {name} line {i}.\n" for i in range(size))).encode())
        for name, size in zip(NAMES, sizes, strict=True)
    ]
    service.sources.add_files(docset, files)


def _job_states(store: Store) -> dict[str, str]:
    """Each document's job state; a queued job that failed and waits to retry shows as
    'retrying'."""
    with store.pool.connection() as conn:
        rows = conn.execute(
            "select d.path, case when j.state = 'queued' and j.last_error is not null"
            " then 'retrying' else j.state end"
            " from ingestion_jobs j join documents d on d.id = j.document_id"
        ).fetchall()
    return {str(path): str(state) for path, state in rows}


def _chunk_counts(store: Store) -> dict[str, int]:
    with store.pool.connection() as conn:
        rows = conn.execute(
            "select d.path, count(c.id) from documents d left join chunks c"
            " on c.document_id = d.id group by d.path"
        ).fetchall()
    return {str(path): int(count) for path, count in rows}


def test_a_document_that_fails_to_chunk_fails_alone_and_the_rest_of_its_batch_is_stored(
    service: Actions, store: Store, embedder: Embedder, settings: Settings
) -> None:
    service.docsets.create("notes")
    _notes(service, "notes")
    chunker = FailingOn(build_chunker(settings), NAMES[2])
    ingestor = Ingestor(store, chunker, embedder, IngestOptions(keywords_first=True))
    assert ingestor.process_next() == len(NAMES)  # one batch
    tiers = {d.path: d.vector_tier for d in service.documents.all("notes")}
    assert tiers.pop(NAMES[2]) is None
    assert set(tiers.values()) == {VectorTier.KEYWORDS}
    states = _job_states(store)
    assert states.pop(NAMES[2]) == "retrying"  # an unexpected error: tried again later
    assert set(states.values()) == {"queued"}  # the others wait for their vector passes
    assert _chunk_counts(store)[NAMES[2]] == 0
    [broken] = [d for d in service.documents.all("notes") if d.path == NAMES[2]]
    assert "Internal error" in (broken.error_message or "")


class ChunkingLog(Chunker):
    """The real chunker, noting the order in which it chunks documents."""

    def __init__(self, inner: Chunker) -> None:
        self.__dict__.update(inner.__dict__)
        self.order: list[str] = []
        self.chunked_a_third = threading.Event()

    def split_file(
        self, text: str, language: str, path: str, with_symbols: bool = True
    ) -> ChunkedFile:
        self.order.append(path)
        if len(self.order) == 3:
            self.chunked_a_third.set()
        return super().split_file(text, language, path, with_symbols)


class WaitingWrites(KeywordBatches):
    """Batches whose first write waits until the next batch is being chunked."""

    def __init__(self, inner: KeywordBatches, chunker: ChunkingLog) -> None:
        self.__dict__.update(inner.__dict__)
        self._chunker = chunker
        self.writes: list[list[str]] = []

    def complete(self, passes: Sequence[KeywordPass]) -> set[int]:
        if not self.writes:  # the next batch's first document is chunked meanwhile
            assert self._chunker.chunked_a_third.wait(30), "the next batch was not chunked"
        self.writes.append([p.job.path for p in passes])
        return super().complete(passes)


def test_the_next_batch_is_chunked_while_the_one_before_is_written(
    service: Actions, store: Store, embedder: Embedder, settings: Settings
) -> None:
    service.docsets.create("notes")
    _notes(service, "notes")
    chunker = ChunkingLog(build_chunker(settings))
    options = IngestOptions(keywords_first=True, keyword_batch=BatchLimits(2, 1_000_000))
    ingestor = Ingestor(store, chunker, embedder, options)
    writes = WaitingWrites(ingestor._batches, chunker)
    ingestor._batches = writes
    assert ingestor.process_next() == len(NAMES)  # three batches of two, in one call
    assert chunker.order == NAMES
    assert writes.writes == [NAMES[0:2], NAMES[2:4], NAMES[4:6]]  # each written once, in order
    assert {d.vector_tier for d in service.documents.all("notes")} == {VectorTier.KEYWORDS}
    assert set(_job_states(store).values()) == {"queued"}  # all wait for their vector passes


def test_a_job_whose_lease_was_lost_is_left_out_of_its_batch_and_the_others_are_written(
    service: Actions, store: Store, embedder: Embedder, settings: Settings
) -> None:
    service.docsets.create("notes")
    _notes(service, "notes")
    batches = KeywordBatches(store.pool)
    batch = batches.claim("worker-a", 60.0, 3, BatchLimits(64, 1_000_000))
    assert [job.path for job in batch] == NAMES  # queue order
    chunker = build_chunker(settings)
    passes = [prepare_job(job, chunker, embedder, 100).keyword_pass() for job in batch]
    stolen = batch[3]
    with store.pool.connection() as conn:  # its lease expired and worker-b took it over
        conn.execute(
            "update ingestion_jobs set lease_owner = 'worker-b' where id = %s", (stolen.id,)
        )
    assert batches.heartbeat(batch, 60.0)  # the others are still this worker's...
    assert not batches.heartbeat([stolen], 60.0)  # ...this one is not
    written = batches.complete(passes)
    assert written == {job.id for job in batch} - {stolen.id}
    counts = _chunk_counts(store)
    assert counts.pop(stolen.path) == 0  # worker-b writes it, not this worker
    assert min(counts.values()) >= 1
    states = _job_states(store)
    assert states.pop(stolen.path) == "running"  # worker-b's, untouched
    assert set(states.values()) == {"queued"}  # the others wait for their vector passes
    assert not batches.heartbeat(batch, 60.0)  # and none of the batch is this worker's now


def test_a_batch_is_bounded_by_its_documents_bytes_and_a_large_first_document_comes_alone(
    service: Actions, store: Store
) -> None:
    service.docsets.create("notes")
    _notes(service, "notes", sizes=[400, 1, 1, 1, 1, 1])  # the first is ~9 kB, the rest ~25 B
    batches = KeywordBatches(store.pool)
    [large] = batches.claim("worker-a", 60.0, 3, BatchLimits(64, 1_000))
    assert large.path == NAMES[0]  # over the budget on its own, and still claimed
    small = batches.claim("worker-a", 60.0, 3, BatchLimits(64, 60))
    assert [job.path for job in small] == NAMES[1:3]  # two fit 60 bytes, three do not
    rest = batches.claim("worker-a", 60.0, 3, BatchLimits(2, 1_000_000))
    assert [job.path for job in rest] == NAMES[3:5]  # and at most `documents` of them
    assert batches.claim("worker-a", 60.0, 3, BatchLimits(64, 1_000_000))[0].path == NAMES[5]
    assert batches.claim("worker-a", 60.0, 3, BatchLimits(64, 1_000_000)) == []


def test_a_stored_batch_leaves_no_pending_full_text_entries_for_search_to_scan(
    service: Actions, store: Store, embedder: Embedder, settings: Settings
) -> None:
    # the full-text indexes buffer inserts in a pending list (one GIN write a batch, not one a
    # row); the writer empties it before it commits, so no search pays to scan it
    ingestor = Ingestor(
        store, build_chunker(settings), embedder, IngestOptions(keywords_first=True)
    )
    for name in ("a", "b"):
        service.docsets.create(name)
        _notes(service, name)
    assert ingestor.process_next() == 2 * len(NAMES)  # across DocSets, one batch
    # each DocSet holds half the table: both get a full-text index of their own
    assert build_missing_indexes(store.pool, graph_min_chunks=10_000, text_min_chunks=1) == 2
    extra = [UploadedFile(f"more/{n}.md", f"More note {n}.\n".encode()) for n in range(5)]
    service.sources.add_files("a", extra)
    assert ingestor.process_next() == len(extra)
    with store.pool.connection() as conn:
        rows = conn.execute(
            "select c.relname, c.reloptions, gin_clean_pending_list(c.oid) from pg_class c"
            " where c.relname like 'chunks_fts%%' order by 1"
        ).fetchall()
    assert [name for name, _, _ in rows] == [
        "chunks_fts_docset_1_idx",
        "chunks_fts_docset_2_idx",
        "chunks_fts_idx",
    ]
    assert all("fastupdate=on" in options for _, options, _ in rows)
    assert [pending_pages for _, _, pending_pages in rows] == [0, 0, 0]


@pytest.mark.parametrize("limits", [BatchLimits(1, 1_000_000), BatchLimits(64, 1)])
def test_batches_of_one_store_the_same_rows_as_one_batch(
    service: Actions, store: Store, embedder: Embedder, settings: Settings, limits: BatchLimits
) -> None:
    chunker = build_chunker(settings)
    for name, batch in (("one", IngestOptions().keyword_batch), ("each", limits)):
        service.docsets.create(name)
        _notes(service, name, sizes=[3, 1, 40, 2, 1, 7])
        options = IngestOptions(keywords_first=True, keyword_batch=batch)
        Ingestor(store, chunker, embedder, options).process_next()
        while any(d.vector_tier is None for d in service.documents.all(name)):
            assert Ingestor(store, chunker, embedder, options).process_next() == 1
    with store.pool.connection() as conn:
        rows = conn.execute(
            "select ds.name, d.path, c.ordinal, c.content, c.fts::text from chunks c"
            " join documents d on d.id = c.document_id join docsets ds on ds.id = c.docset_id"
            " order by 2, 3"
        ).fetchall()
    by_docset: dict[str, list[tuple[object, ...]]] = {"one": [], "each": []}
    for docset, *row in rows:
        by_docset[str(docset)].append(tuple(row))
    assert by_docset["one"] and by_docset["one"] == by_docset["each"]
