"""Background ingestion threads and the runtime that composes everything."""

import threading
import time
from pathlib import Path

import pytest

from ragspace.ingestion.worker import Ingestor, WorkerPool
from ragspace.models import EmbeddingStatus
from ragspace.runtime import open_runtime
from ragspace.settings import Settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Store

DATA = Path(__file__).parent.parent / "data"


def _wait_until_settled(store: Store, timeout: float = 60.0) -> list[EmbeddingStatus]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        statuses = [d.embedding_status for d in store.documents.all()]
        if not {EmbeddingStatus.PENDING, EmbeddingStatus.PROCESSING} & set(statuses):
            return statuses
        time.sleep(0.1)
    pytest.fail("documents did not settle in time")


def test_runtime_workers_ingest_uploads_in_the_background(settings: Settings) -> None:
    runtime = open_runtime(settings, worker_threads=2)
    try:
        runtime.actions.docsets.create("bg")
        files = [UploadedFile(n, (DATA / n).read_bytes()) for n in ("glossary.rst", "textwrap.py")]
        runtime.actions.sources.add_files("bg", files)
        assert _wait_until_settled(runtime.store) == [EmbeddingStatus.DONE] * 2
    finally:
        runtime.close()


def test_idle_workers_give_freed_memory_back(
    ingestor: Ingestor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With nothing to do, a worker trims the C heap before it waits (malloc_trim)."""
    trimmed = threading.Event()
    monkeypatch.setattr("ragspace.ingestion.worker.release_free_memory", trimmed.set)
    pool = WorkerPool(ingestor, threads=1, idle_seconds=60)
    pool.start()
    try:
        assert trimmed.wait(30), "the idle worker did not trim"
    finally:
        pool.stop()
