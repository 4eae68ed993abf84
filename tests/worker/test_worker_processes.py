"""Standalone `ragspace worker` processes on one database: crashes and concurrency."""

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.models import EmbeddingStatus
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from tests.conftest import ModuleParts
from tests.waiting import wait_for

pytestmark = pytest.mark.slow  # ragspace worker processes, one of them SIGKILLed

DATA = Path(__file__).parent.parent / "data"
PROJECT = Path(__file__).resolve().parent.parent.parent
# 23 chunks each; with one text per embedding call a document takes a few seconds
DOCUMENTS = [f"textwrap{n}.py" for n in range(6)]
WORKER = "import sys; from ragspace_cli.main import main; raise SystemExit(main(sys.argv[1:]))"

ChunkSets = dict[str, list[tuple[int, str]]]
StartWorker = Callable[..., "subprocess.Popen[bytes]"]


def _files() -> list[UploadedFile]:
    data = (DATA / "textwrap.py").read_bytes()
    # distinct paths give distinct chunk headers, so no chunk is a cache hit of another
    return [UploadedFile(path, data) for path in DOCUMENTS]


def _chunk_sets(store: Store, docset: str) -> ChunkSets:
    with store.pool.connection() as conn:
        rows = conn.execute(
            "select d.path, c.ordinal, c.content_hash from chunks c"
            " join documents d on d.id = c.document_id join docsets ds on ds.id = d.docset_id"
            " where ds.name = %s order by d.path, c.ordinal",
            (docset,),
        ).fetchall()
    sets: ChunkSets = {}
    for path, ordinal, digest in rows:
        sets.setdefault(path, []).append((ordinal, digest))
    return sets


def _counts(store: Store, docset: str) -> dict[str, int]:
    with store.pool.connection() as conn:
        rows = conn.execute(
            "select d.embedding_status, count(*) from documents d"
            " join docsets ds on ds.id = d.docset_id where ds.name = %s group by 1",
            (docset,),
        ).fetchall()
    return {str(status): int(count) for status, count in rows}


def _settled(store: Store) -> bool:
    with store.pool.connection() as conn:
        row = conn.execute(
            "select count(*) from ingestion_jobs where state in ('queued', 'running')"
        ).fetchone()
    return row is not None and row[0] == 0


@pytest.fixture
def start_worker(database_url: str, tmp_path: Path) -> Iterator[StartWorker]:
    """Start `ragspace worker` processes on the test database; all are stopped afterwards."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(name: str, *options: str) -> subprocess.Popen[bytes]:
        """`ragspace worker` with these options (two ingestion threads by default)."""
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "RAGSPACE_DATA_DIR": str(tmp_path / name),
            "RAGSPACE_EMBEDDING_BATCH_SIZE": "1",
            "RAGSPACE_LOCAL_EMBEDDING_THREADS": "1",
            "RAGSPACE_JOB_LEASE_SECONDS": "3",
            "RAGSPACE_WORKER_POLL_SECONDS": "0.2",
            "PYTHONPATH": str(PROJECT),
        }
        log = (tmp_path / f"{name}.log").open("wb")
        process = subprocess.Popen(
            [sys.executable, "-c", WORKER, "worker", *options],
            env=env,
            cwd=tmp_path,
            stdout=log,
            stderr=log,
        )
        processes.append(process)
        return process

    yield start
    running = [process for process in processes if process.poll() is None]
    for process in running:  # all asked to stop first: they wind down side by side
        process.terminate()
    for process in running:
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="module")
def reference(module_parts: ModuleParts) -> ChunkSets:
    """The chunk sets of an uninterrupted in-process run, in a database of its own (so the
    workers' database starts with an empty embedding cache)."""
    module_parts.service.docsets.create("reference")
    module_parts.service.sources.add_files("reference", _files())
    module_parts.ingestor.process_all()
    sets = _chunk_sets(module_parts.store, "reference")
    assert sorted(sets) == DOCUMENTS
    return sets


def test_sigkilled_worker_loses_nothing(
    service: Actions, store: Store, reference: ChunkSets, start_worker: StartWorker
) -> None:
    service.docsets.create("crash")
    service.sources.add_files("crash", _files())
    first = start_worker("first")

    def mid_docset() -> bool:
        counts = _counts(store, "crash")
        return counts.get("done", 0) >= 2 and counts.get("processing", 0) >= 1

    wait_for(mid_docset, "the first worker to be mid-DocSet", 180)
    os.kill(first.pid, signal.SIGKILL)
    first.wait(10)
    with store.pool.connection() as conn:
        # two ingestion threads by default: it may die holding two documents
        killed_documents = {
            path
            for (path,) in conn.execute(
                "select d.path from documents d where d.embedding_status = 'processing'"
            ).fetchall()
        }
    assert 1 <= len(killed_documents) <= 2

    start_worker("second")
    wait_for(lambda: _settled(store), "the second worker to finish", 240)
    assert _counts(store, "crash") == {"done": len(DOCUMENTS)}
    assert _chunk_sets(store, "crash") == reference
    with store.pool.connection() as conn:
        jobs = conn.execute(
            "select d.path, j.state, j.attempts, j.lease_owner from ingestion_jobs j"
            " join documents d on d.id = j.document_id join docsets ds on ds.id = d.docset_id"
            " where ds.name = 'crash'"
        ).fetchall()
    assert len(jobs) == len(DOCUMENTS)
    assert all(state == "done" for _, state, _, _ in jobs)
    attempts = {path: attempts for path, _, attempts, _ in jobs}
    for killed_document in killed_documents:
        assert attempts[killed_document] == 2  # taken over after the lease expired


def _owned_by(process: "subprocess.Popen[bytes]") -> str:
    """A LIKE pattern for lease owners of this process (`host:pid:thread`, leases.py)."""
    return f"%:{process.pid}:%"


def _most_running_per_document(store: Store) -> int:
    with store.pool.connection() as conn:
        row = conn.execute(
            "select coalesce(max(n), 0) from (select count(*) as n from ingestion_jobs"
            " where state = 'running' group by document_id) as running"
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_two_workers_take_jobs_and_a_sigkilled_one_loses_and_repeats_nothing(
    service: Actions,
    store: Store,
    reference: ChunkSets,
    module_parts: ModuleParts,
    start_worker: StartWorker,
) -> None:
    # the embedded server stands in for the external database (Supabase) both machines share;
    # throughout, no document is ever being processed by both workers at once
    running_per_document: list[int] = []
    with module_parts.store.pool.connection() as conn:
        [(single_worker_texts,)] = conn.execute(
            "select sum(texts_embedded) from ingestion_jobs"
        ).fetchall()
    service.docsets.create("fleet")
    service.sources.add_files("fleet", _files())
    # the doomed one takes one document at a time, so that once it has finished one it is soon
    # early in the next (with two threads, its two documents are embedded side by side and
    # end together, and the survivor's two threads may leave it none to start); the survivor
    # runs the default two
    doomed, survivor = start_worker("doomed", "--threads", "1"), start_worker("survivor")

    def doomed_is_mid_document() -> bool:
        # both took jobs, and the doomed one is embedding (vector pass) a document now
        with store.pool.connection() as conn:
            row = conn.execute(
                "select count(*) filter (where j.state = 'done' and j.lease_owner like %s),"
                " count(*) filter (where j.lease_owner like %s),"
                " count(*) filter (where j.state = 'running' and j.lease_owner like %s"
                "   and d.vector_tier = 'keywords'"
                # far from its end: eight more model calls outlast the time to the kill
                "   and d.chunks_embedded between 1 and d.chunks_total - 8)"
                " from ingestion_jobs j join documents d on d.id = j.document_id",
                (_owned_by(doomed), _owned_by(survivor), _owned_by(doomed)),
            ).fetchone()
        assert row is not None
        running_per_document.append(_most_running_per_document(store))
        return row[0] >= 1 and row[1] >= 1 and row[2] >= 1

    wait_for(doomed_is_mid_document, "both workers to take jobs, one mid-document", 180)
    os.kill(doomed.pid, signal.SIGKILL)
    doomed.wait(10)
    with store.pool.connection() as conn:
        # what it held when it died (its lease lasts 3 s: nobody takes the job before that)
        killed_documents = {
            path
            for (path,) in conn.execute(
                "select d.path from ingestion_jobs j join documents d on d.id = j.document_id"
                " where j.state = 'running' and j.lease_owner like %s",
                (_owned_by(doomed),),
            ).fetchall()
        }
    assert len(killed_documents) == 1

    def settled() -> bool:
        running_per_document.append(_most_running_per_document(store))
        return _settled(store)

    wait_for(settled, "the surviving worker to finish every document", 240)
    assert max(running_per_document) == 1
    assert survivor.poll() is None  # still serving
    assert _counts(store, "fleet") == {"done": len(DOCUMENTS)}
    assert _chunk_sets(store, "fleet") == reference  # nothing lost, no chunk stored twice
    with store.pool.connection() as conn:
        jobs = conn.execute(
            "select d.path, j.state, j.attempts, j.lease_owner like %s, j.texts_embedded,"
            " j.texts_cached from ingestion_jobs j join documents d on d.id = j.document_id",
            (_owned_by(survivor),),
        ).fetchall()
    assert len(jobs) == len(DOCUMENTS) and all(state == "done" for _, state, *_ in jobs)
    by_path = {path: (attempts, survivor_owns) for path, _, attempts, survivor_owns, *_ in jobs}
    for killed_document in killed_documents:  # the survivor took each over once
        assert by_path.pop(killed_document) == (2, True)
    assert all(attempts == 1 for attempts, _ in by_path.values())  # none other ran twice
    assert {owner for _, owner in by_path.values()} == {True, False}  # both finished some
    # what was stored was embedded once: the killed attempt's vectors were never kept, and
    # no worker took a text from the embedding cache that the other had just filled
    assert sum(embedded for *_, embedded, _ in jobs) == single_worker_texts
    assert sum(cached for *_, cached in jobs) == 0
    statuses = {d.embedding_status for d in service.documents.all("fleet")}
    assert statuses == {EmbeddingStatus.DONE}
