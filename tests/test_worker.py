"""Background ingestion threads and the runtime that composes everything."""

import time
from pathlib import Path

import pytest

from ragspace.models import EmbeddingStatus
from ragspace.runtime import open_runtime
from ragspace.settings import Settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Store

DATA = Path(__file__).parent / "data"


def _wait_until_settled(store: Store, timeout: float = 60.0) -> list[EmbeddingStatus]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        statuses = [d.embedding_status for d in store.list_documents()]
        if not {EmbeddingStatus.PENDING, EmbeddingStatus.PROCESSING} & set(statuses):
            return statuses
        time.sleep(0.1)
    pytest.fail("documents did not settle in time")


def test_runtime_workers_ingest_uploads_in_the_background(settings: Settings) -> None:
    runtime = open_runtime(settings, worker_threads=2)
    try:
        runtime.service.create_docset("bg")
        files = [UploadedFile(n, (DATA / n).read_bytes()) for n in ("glossary.rst", "textwrap.py")]
        runtime.service.add_files("bg", files)
        assert _wait_until_settled(runtime.store) == [EmbeddingStatus.DONE] * 2
    finally:
        runtime.close()


def test_runtime_requeues_documents_left_processing(settings: Settings, store: Store) -> None:
    docset = store.create_docset("crashed", "", "local/all-MiniLM-L6-v2-int8", 384)
    runtime = open_runtime(settings, worker_threads=0)
    runtime.service.add_files(
        "crashed", [UploadedFile("g.rst", (DATA / "glossary.rst").read_bytes())]
    )
    claimed = store.claim_pending_document()  # a worker takes it, then its process dies
    assert claimed is not None
    runtime.close()

    runtime = open_runtime(settings, worker_threads=1)
    try:
        assert _wait_until_settled(runtime.store) == [EmbeddingStatus.DONE]
        assert runtime.store.get_docset(docset.id).chunk_count > 0
    finally:
        runtime.close()
