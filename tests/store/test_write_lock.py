"""Writers of a DocSet take its write lock first, and a claim never waits on a document:
the two rules that keep a sync and a worker from deadlocking. Real Postgres."""

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from ragspace.models import ChunkDraft, SourceKind
from ragspace.store import ClaimedJob, JobQueue, JobResult, NewDocument, ReembedRequests, Store
from ragspace.store.keyword_batches import KeywordBatches, KeywordPass
from ragspace.store.symbols import fill_symbols
from ragspace.store.write_lock import lock_docset_writes
from ragspace.symbols.records import FileSymbols

WAIT_SECONDS = 10.0  # a deadline for events, not a sleep: the events come in milliseconds


@dataclass
class Scene:
    """A DocSet with one synced document whose job a worker has claimed."""

    store: Store
    jobs: JobQueue
    docset_id: int
    source_id: int
    document_id: int
    job: ClaimedJob


def _document(text: str, path: str = "a.md") -> NewDocument:
    return NewDocument(path=path, title=path, language="markdown", content=text, content_hash=text)


def _chunks() -> list[ChunkDraft]:
    return [ChunkDraft(ordinal=0, content="the new text", start_line=1, end_line=1)]


@pytest.fixture
def scene(store: Store) -> Scene:
    docset_id = store.docsets.create("docs", "", "local/test", 384).id
    source_id = store.sources.create(docset_id, SourceKind.WEB, "https://docs.example").id
    synced = store.sources.apply_sync(docset_id, source_id, [_document("v1")], [], {})
    [document_id] = synced.document_ids
    jobs = JobQueue(store.pool)
    job = jobs.claim("worker-a", 60.0, 3)
    assert job is not None and job.document_id == document_id
    return Scene(store, jobs, docset_id, source_id, document_id, job)


def _reclaim_after_the_lease_expired(scene: Scene) -> int:
    with scene.store.pool.connection() as conn:
        conn.execute(
            "update ingestion_jobs set lease_expires_at = now() - interval '1 second'"
            " where id = %s",
            (scene.job.id,),
        )
    return scene.jobs.reclaim_expired()


def _backends_waiting_on_advisory_locks(scene: Scene) -> int:
    with scene.store.pool.connection() as conn:
        row = conn.execute(
            "select count(*) from pg_stat_activity where datname = current_database()"
            " and wait_event_type = 'Lock' and wait_event = 'advisory'"
        ).fetchone()
    return int(row[0]) if row else 0


WRITES: dict[str, Callable[[Scene], object]] = {
    "sync": lambda s: s.store.sources.apply_sync(
        s.docset_id, s.source_id, [_document("v2")], [], {}
    ),
    "upload": lambda s: s.store.documents.upsert(s.docset_id, None, [_document("v2", "b.md")]),
    "delete documents": lambda s: s.store.documents.delete(s.docset_id, ["a.md"]),
    "replace chunks": lambda s: s.store.chunks.replace(
        s.document_id, s.docset_id, _chunks(), np.ones((1, 384), np.float32), ["h"]
    ),
    "re-embed documents": lambda s: ReembedRequests(s.store.pool).enqueue([s.document_id], True),
    "re-embed DocSet": lambda s: ReembedRequests(s.store.pool).reembed_docset(
        s.docset_id, "local/test", 384
    ),
    "keyword pass": lambda s: KeywordBatches(s.store.pool).complete(
        [KeywordPass(s.job, _chunks(), ["h"])]
    ),
    "vector pass": lambda s: s.jobs.complete(
        s.job,
        JobResult(_chunks(), np.ones((1, 384), np.float32), ["h"], "local/test", {}, 0),
    ),
    "failure": lambda s: s.jobs.fail(s.job, "boom", retry_in=None),
    "release": lambda s: s.jobs.release(s.job),
    "reclaim": _reclaim_after_the_lease_expired,
    "symbol backfill": lambda s: fill_symbols(
        s.store.pool, s.document_id, s.docset_id, "v1", FileSymbols()
    ),
    "delete DocSet": lambda s: s.store.docsets.delete(s.docset_id),
}


@pytest.mark.parametrize("write", WRITES.values(), ids=WRITES.keys())
def test_every_writer_of_a_docset_waits_for_its_write_lock(
    scene: Scene, write: Callable[[Scene], object]
) -> None:
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(write(scene))
        except Exception as exc:  # reported below, in the test's thread
            outcome.append(exc)

    writer = threading.Thread(target=run)
    with scene.store.pool.connection() as holder, holder.transaction():
        lock_docset_writes(holder, scene.docset_id)
        writer.start()
        deadline = time.monotonic() + WAIT_SECONDS
        while not _backends_waiting_on_advisory_locks(scene):
            assert writer.is_alive(), f"the write did not wait for the lock: {outcome}"
            assert time.monotonic() < deadline, "the write never asked for the lock"
            time.sleep(0.01)
        assert not outcome  # still waiting, nothing written
    writer.join(WAIT_SECONDS)
    assert not writer.is_alive() and len(outcome) == 1
    assert not isinstance(outcome[0], Exception), outcome[0]


def test_a_claim_skips_a_document_another_transaction_holds_instead_of_waiting(
    scene: Scene,
) -> None:
    """A sync holding a document row may be waiting for the claimed job's index entry;
    a claim that waited for the row would close the cycle (a deadlock)."""
    store = scene.store
    [other] = store.documents.upsert(scene.docset_id, None, [_document("v1", "b.md")])
    [third] = store.documents.upsert(scene.docset_id, None, [_document("v1", "c.md")])
    claimed: list[ClaimedJob | None] = []
    with store.pool.connection() as holder, holder.transaction():
        holder.execute("select 1 from documents where id = %s for update", (other,))
        claimer = threading.Thread(target=lambda: claimed.append(scene.jobs.claim("b", 60, 3)))
        claimer.start()
        claimer.join(WAIT_SECONDS)
        assert not claimer.is_alive(), "the claim waited for a document row"
    [job] = claimed
    assert job is not None and job.document_id == third  # b.md's job is left for later
    after = scene.jobs.claim("b", 60, 3)
    assert after is not None and after.document_id == other  # taken once the row is free
