"""The ingestion engine on real Postgres and the real local embedder: queue, cache, re-embed."""

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ragspace.actions import Actions
from ragspace.chunking.chunker import Chunker
from ragspace.embedding.embedders import Embedder, OpenAIEmbedder
from ragspace.errors import EmbeddingModelMismatchError, ValidationError
from ragspace.ingestion.worker import IngestOptions, Ingestor
from ragspace.models import ChunkDraft, EmbeddingStatus, SearchQuery
from ragspace.runtime import build_actions, build_chunker
from ragspace.settings import Settings, load_settings
from ragspace.sources.files import UploadedFile
from ragspace.store import EmbeddingCache, JobQueue, JobResult, NewDocument, Store
from ragspace_ui.status_view import chosen_ids, status_view
from tests.fakes.embedders import RecordingEmbedder
from tests.fakes.openai_server import (
    FakeOpenAI,
    ScriptedResponse,
    malformed,
    rate_limited,
    running_fake_openai,
    server_error,
)

DATA = Path(__file__).parent.parent / "data"
SAMPLES = ["textwrap.py", "deployment-guide.md", "glossary.rst"]


@pytest.fixture
def counting(embedder: Embedder) -> RecordingEmbedder:
    return RecordingEmbedder(embedder)


@pytest.fixture
def counted(store: Store, counting: RecordingEmbedder, settings: Settings) -> Ingestor:
    return Ingestor(store, build_chunker(settings), counting, IngestOptions(batch_size=8))


@pytest.fixture
def counted_service(store: Store, counting: RecordingEmbedder) -> Actions:
    return build_actions(load_settings(env_file=None), store, counting)  # type: ignore[arg-type]


def _upload(service: Actions, docset: str, *names: str) -> None:
    service.sources.add_files(docset, [UploadedFile(n, (DATA / n).read_bytes()) for n in names])


def _jobs(store: Store) -> list[tuple[int, str, int, str | None]]:
    with store.pool.connection() as conn:
        rows = conn.execute(
            "select document_id, state, attempts, last_error from ingestion_jobs order by id"
        ).fetchall()
    return [(int(r[0]), str(r[1]), int(r[2]), r[3]) for r in rows]


def test_status_moves_to_done_with_progress_and_timestamps(
    service: Actions, ingestor: Ingestor, store: Store
) -> None:
    service.docsets.create("docs")
    _upload(service, "docs", *SAMPLES)
    pending = service.documents.all("docs")
    assert {d.embedding_status for d in pending} == {EmbeddingStatus.PENDING}
    assert [state for _, state, _, _ in _jobs(store)] == ["queued"] * 3
    assert ingestor.process_all() == 3
    for document in service.documents.all("docs"):
        assert document.embedding_status == EmbeddingStatus.DONE
        assert document.chunk_count > 0
        assert document.chunks_embedded == document.chunks_total == document.chunk_count
        assert document.started_at is not None and document.finished_at is not None
        assert document.started_at <= document.finished_at
    assert [(state, attempts) for _, state, attempts, _ in _jobs(store)] == [("done", 1)] * 3


def test_cache_skips_unchanged_chunks(
    counted_service: Actions, counted: Ingestor, counting: RecordingEmbedder, store: Store
) -> None:
    counted_service.docsets.create("one")
    _upload(counted_service, "one", *SAMPLES)
    counted.process_all()
    total = sum(d.chunk_count for d in counted_service.documents.all("one"))
    assert len(counting.texts) == total > 0

    counting.texts.clear()
    counted_service.docsets.create("two")  # same files, same chunks: all cached
    _upload(counted_service, "two", *SAMPLES)
    counted.process_all()
    assert counting.texts == []
    assert {d.embedding_status for d in counted_service.documents.all("two")} == {
        EmbeddingStatus.DONE
    }

    # a one-line change re-embeds only the chunks containing it
    source = (DATA / "textwrap.py").read_text().replace("def dedent(", "def dedent_text(")
    counted_service.sources.add_files("two", [UploadedFile("textwrap.py", source.encode())])
    counted.process_all()
    [document] = [d for d in counted_service.documents.all("two") if d.path == "textwrap.py"]
    touched = [
        c.embedding_text
        for c in store.chunks.of_document(document.id)
        if "dedent_text" in c.embedding_text
    ]
    assert 1 <= len(touched) < document.chunk_count
    assert sorted(counting.texts) == sorted(touched)  # exactly the chunks the rename changed


def test_cached_vectors_are_the_embedders(
    service: Actions, ingestor: Ingestor, embedder: Embedder, store: Store
) -> None:
    service.docsets.create("docs")
    _upload(service, "docs", "glossary.rst")
    ingestor.process_all()
    [document] = service.documents.all("docs")
    text = store.chunks.of_document(document.id)[0]
    with store.pool.connection() as conn:
        [(digest,)] = conn.execute(
            "select content_hash from chunks where document_id = %s and ordinal = 0",
            (document.id,),
        ).fetchall()
    cached = EmbeddingCache(store.pool).vectors(embedder.model_id, [digest])[digest]
    expected = embedder.embed([text.embedding_text])[0]
    np.testing.assert_allclose(cached, expected, atol=1e-3)


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    with running_fake_openai() as fake:
        yield fake


def _openai_ingestor(
    store: Store, fake: FakeOpenAI, options: IngestOptions, chunker: Chunker | None = None
) -> tuple[OpenAIEmbedder, Ingestor]:
    openai = OpenAIEmbedder(
        api_key="sk-test", model="text-embedding-3-small", dimensions=8,
        base_url=fake.base_url, timeout=5.0, max_retries=2,
    )  # fmt: skip
    ingestor = Ingestor(store, chunker or Chunker(1200, 1000, 100), openai, options)
    return openai, ingestor


def _openai_document(store: Store, openai: OpenAIEmbedder, text: str = "") -> int:
    docset = store.docsets.create("api", "", openai.model_id, openai.dimensions)
    service = build_actions(load_settings(env_file=None), store, openai)
    content = text or (DATA / "glossary.rst").read_text()
    [document] = service.sources.add_files("api", [UploadedFile("glossary.rst", content.encode())])
    assert document.docset_id == docset.id
    return document.id


def test_openai_429_then_success_honours_retry_after(store: Store, fake_openai: FakeOpenAI) -> None:
    openai, ingestor = _openai_ingestor(store, fake_openai, IngestOptions(max_attempts=1))
    document_id = _openai_document(store, openai)
    fake_openai.script = [rate_limited(retry_after="1")]
    started = time.monotonic()
    ingestor.process_all()
    assert time.monotonic() - started >= 0.9  # waited as Retry-After asked
    assert len(fake_openai.requests) == 2
    document = store.documents.get(document_id)
    assert document.embedding_status == EmbeddingStatus.DONE
    assert document.chunk_count == len(fake_openai.requests[-1]["input"])


def test_openai_500_three_times_ends_in_error_with_the_message(
    store: Store, fake_openai: FakeOpenAI
) -> None:
    openai, ingestor = _openai_ingestor(store, fake_openai, IngestOptions(max_attempts=1))
    document_id = _openai_document(store, openai)
    fake_openai.script = [server_error()] * 3
    ingestor.process_all()
    assert len(fake_openai.requests) == 3
    document = store.documents.get(document_id)
    assert document.embedding_status == EmbeddingStatus.ERROR
    assert document.error_message is not None
    assert "answered 500" in document.error_message
    assert "The server had an error" in document.error_message
    [(_, state, attempts, last_error)] = _jobs(store)
    assert (state, attempts, last_error) == ("error", 1, document.error_message)


def test_transient_failures_are_retried_as_jobs(store: Store, fake_openai: FakeOpenAI) -> None:
    options = IngestOptions(max_attempts=2, retry_base_seconds=0.0)
    openai, ingestor = _openai_ingestor(store, fake_openai, options)
    document_id = _openai_document(store, openai)
    fake_openai.script = [server_error()] * 3
    assert ingestor.process_next()
    document = store.documents.get(document_id)
    assert document.embedding_status == EmbeddingStatus.PENDING
    assert document.error_message is not None
    assert document.error_message.startswith("Attempt 1 of 2 failed")
    ingestor.process_all()
    assert store.documents.get(document_id).embedding_status == EmbeddingStatus.DONE
    assert [(state, attempts) for _, state, attempts, _ in _jobs(store)] == [("done", 2)]


def test_a_slow_api_times_out_and_the_job_is_retried(store: Store, fake_openai: FakeOpenAI) -> None:
    openai = OpenAIEmbedder(
        api_key="sk-test", model="text-embedding-3-small", dimensions=8,
        base_url=fake_openai.base_url, timeout=0.5, max_retries=0,
    )  # fmt: skip
    options = IngestOptions(max_attempts=2, retry_base_seconds=0.0)
    ingestor = Ingestor(store, Chunker(1200, 1000, 100), openai, options)
    document_id = _openai_document(store, openai)
    slow = fake_openai.respond({"model": "m", "input": ["x"], "dimensions": 8})
    fake_openai.script = [ScriptedResponse(200, slow.body, delay_seconds=3.0)]
    started = time.monotonic()
    assert ingestor.process_next()
    assert time.monotonic() - started < 2.5  # the request was abandoned at the timeout
    document = store.documents.get(document_id)
    assert document.embedding_status == EmbeddingStatus.PENDING
    assert document.error_message is not None
    assert "could not be reached (APITimeoutError)" in document.error_message
    ingestor.process_all()
    assert store.documents.get(document_id).embedding_status == EmbeddingStatus.DONE


def test_permanent_failures_are_not_retried(store: Store, fake_openai: FakeOpenAI) -> None:
    openai, ingestor = _openai_ingestor(store, fake_openai, IngestOptions(max_attempts=3))
    document_id = _openai_document(store, openai)
    invalid = {"error": {"message": "Invalid 'input'.", "type": "invalid_request_error"}}
    fake_openai.script = [ScriptedResponse(400, invalid)]
    ingestor.process_all()
    assert len(fake_openai.requests) == 1  # neither the SDK nor the queue retries a 400
    document = store.documents.get(document_id)
    assert document.embedding_status == EmbeddingStatus.ERROR
    assert document.error_message is not None
    assert "answered 400" in document.error_message
    assert [(state, attempts) for _, state, attempts, _ in _jobs(store)] == [("error", 1)]


def test_backoff_grows_exponentially_with_jitter() -> None:
    options = IngestOptions(retry_base_seconds=4.0, retry_max_seconds=20.0)
    for attempt, ceiling in [(1, 4.0), (2, 8.0), (3, 16.0), (4, 20.0), (9, 20.0)]:
        delays = [options.retry_delay(attempt) for _ in range(50)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(set(delays)) > 1


def test_overlong_inputs_are_cut_with_a_note(store: Store, fake_openai: FakeOpenAI) -> None:
    chunker = Chunker(100_000, 100_000, 0)
    openai, ingestor = _openai_ingestor(store, fake_openai, IngestOptions(), chunker)
    text = "".join(f"line {i}: {'word ' * 10}\n" for i in range(600))  # ~36,000 characters
    document_id = _openai_document(store, openai, text)
    ingestor.process_all()
    assert store.documents.get(document_id).embedding_status == EmbeddingStatus.DONE
    [chunk] = store.chunks.of_document(document_id)
    assert len(chunk.content) > 30_000  # the stored chunk keeps its whole text
    assert "Only the first 19,000 of" in chunk.metadata["note"]
    assert [len(i) for i in fake_openai.requests[0]["input"]] == [OpenAIEmbedder.MAX_INPUT_CHARS]


def test_expired_lease_is_reclaimed_and_attempts_are_bounded(
    service: Actions, store: Store, settings: Settings, embedder: Embedder
) -> None:
    service.docsets.create("docs")
    _upload(service, "docs", "glossary.rst", "deployment-guide.md")
    jobs = JobQueue(store.pool)
    # two workers claim a job each and die without a heartbeat
    dead = [jobs.claim(f"dead-{n}", 0.2, max_attempts) for n, max_attempts in ((1, 2), (2, 1))]
    assert all(job is not None for job in dead)
    time.sleep(0.4)
    live = Ingestor(store, build_chunker(settings), embedder)
    live.process_all()
    by_document = {d.path: d for d in service.documents.all("docs")}
    retried, exhausted = by_document["glossary.rst"], by_document["deployment-guide.md"]
    assert retried.embedding_status == EmbeddingStatus.DONE
    assert exhausted.embedding_status == EmbeddingStatus.ERROR
    assert exhausted.error_message is not None
    assert "dead-2 stopped responding" in exhausted.error_message
    assert sorted((s, a) for _, s, a, _ in _jobs(store)) == [("done", 2), ("error", 1)]


def test_a_reclaimed_job_cannot_be_written_by_its_old_worker(
    service: Actions, store: Store, ingestor: Ingestor
) -> None:
    service.docsets.create("docs")
    _upload(service, "docs", "glossary.rst")
    jobs = JobQueue(store.pool)
    stale = jobs.claim("stale", 0.1, 3)
    assert stale is not None
    time.sleep(0.3)
    ingestor.process_all()  # reclaims and finishes the job
    chunks = store.chunks.of_document(stale.document_id)
    assert not jobs.heartbeat(stale, 60)
    assert jobs.fail(stale, "late failure", None) == "lost"
    late = ChunkDraft(ordinal=0, content="stale result", start_line=1, end_line=1)
    vector = np.ones((1, 384), dtype=np.float32)
    stale_result = JobResult([late], vector, ["stale"], "local/test", {"stale": vector[0]}, 0)
    assert not jobs.complete(stale, stale_result)
    document = store.documents.get(stale.document_id)
    assert document.embedding_status == EmbeddingStatus.DONE
    assert store.chunks.of_document(stale.document_id) == chunks


def test_search_always_sees_a_complete_chunk_set_while_re_embedding(
    service: Actions, ingestor: Ingestor, store: Store
) -> None:
    service.docsets.create("code")
    _upload(service, "code", "textwrap.py")
    ingestor.process_all()
    [document] = service.documents.all("code")
    expected = sorted((c.start_line, c.end_line) for c in store.chunks.of_document(document.id))
    assert 10 < len(expected) < 50
    seen: list[list[tuple[int, int]]] = []
    overlapping = 0  # searches that started and ended while a re-embedding was running
    reembedding = threading.Event()
    stop = threading.Event()

    def search() -> None:
        nonlocal overlapping
        while not stop.is_set():
            started_during = reembedding.is_set()
            hits = service.search.hits(
                SearchQuery(
                    question="wrap text into lines", docsets=("code",), limit=50, floor=False
                )
            )
            seen.append(sorted((h.start_line, h.end_line) for h in hits))
            overlapping += started_during and reembedding.is_set()

    thread = threading.Thread(target=search)
    thread.start()
    try:
        # rounds until six searches fell inside a re-embedding (bounded by rounds, not time)
        for _ in range(200):
            service.documents.reembed([document.id])
            reembedding.set()
            ingestor.process_all()
            reembedding.clear()
            if overlapping >= 6:
                break
    finally:
        stop.set()
        thread.join()
    assert overlapping >= 6
    assert all(result == expected for result in seen)


def test_reembed_selected_documents_ignores_the_cache(
    counted_service: Actions, counted: Ingestor, counting: RecordingEmbedder, store: Store
) -> None:
    counted_service.docsets.create("docs")
    _upload(counted_service, "docs", *SAMPLES)
    counted.process_all()
    chosen = [d for d in counted_service.documents.all("docs") if d.path == "glossary.rst"]
    counting.texts.clear()
    assert counted_service.documents.reembed([chosen[0].id]) == 1
    assert counted_service.documents.all("docs", EmbeddingStatus.PENDING) == [
        store.documents.get(chosen[0].id)
    ]
    counted.process_all()
    assert len(counting.texts) == chosen[0].chunk_count
    with pytest.raises(ValidationError):
        counted_service.documents.reembed([])


def test_reembed_failed_only_requeues_documents_in_error(
    counted_service: Actions, counted: Ingestor, counting: RecordingEmbedder, store: Store
) -> None:
    counted_service.docsets.create("docs")
    _upload(counted_service, "docs", *SAMPLES)
    counted.process_all()
    broken = next(d for d in counted_service.documents.all("docs") if d.path == "textwrap.py")
    store.documents.mark_error(broken.id, "embedding API was down")
    counting.texts.clear()
    assert counted_service.documents.reembed_failed("docs") == 1
    assert [d.path for d in counted_service.documents.all("docs", EmbeddingStatus.PENDING)] == [
        "textwrap.py"
    ]
    counted.process_all()
    assert counting.texts == []  # its chunks were cached, not forced
    assert store.documents.get(broken.id).embedding_status == EmbeddingStatus.DONE
    assert counted_service.documents.reembed_failed() == 0


def test_reembed_whole_docset_forces_every_chunk(
    counted_service: Actions, counted: Ingestor, counting: RecordingEmbedder
) -> None:
    counted_service.docsets.create("docs")
    _upload(counted_service, "docs", *SAMPLES)
    counted.process_all()
    total = counted_service.docsets.get("docs").chunk_count
    counting.texts.clear()
    assert counted_service.documents.reembed_docset("docs") == 3
    counted.process_all()
    assert len(counting.texts) == total
    assert counted_service.docsets.get("docs").chunk_count == total


def test_model_change_needs_re_embedding_then_switches(
    service: Actions, ingestor: Ingestor, store: Store, embedder: Embedder
) -> None:
    service.docsets.create("docs")
    _upload(service, "docs", "glossary.rst", "deployment-guide.md")
    ingestor.process_all()
    with store.pool.connection() as conn:  # as if the configured model had changed since
        conn.execute("update docsets set embedding_model = 'local/old-model'")
    docset = service.docsets.get("docs")
    assert service.docsets.needs_reembedding(docset)
    with pytest.raises(EmbeddingModelMismatchError, match="needs re-embedding"):
        service.search.hits(SearchQuery(question="deploy", docsets=("docs",), floor=False))
    assert "needs re-embedding" in status_view(service, "docs", None).notice
    assert (
        service.search.hits(SearchQuery(question="deploy", floor=False)) == []
    )  # "all DocSets" skips it

    service.documents.reembed_docset("docs")
    assert service.docsets.get("docs").target_embedding_model == embedder.model_id
    with pytest.raises(EmbeddingModelMismatchError, match="0 of 2 documents done"):
        service.search.hits(SearchQuery(question="deploy", docsets=("docs",), floor=False))
    ingestor.process_all()
    docset = service.docsets.get("docs")
    assert (docset.embedding_model, docset.target_embedding_model) == (embedder.model_id, None)
    assert not service.docsets.needs_reembedding(docset)
    assert service.search.hits(SearchQuery(question="deploy", docsets=("docs",), floor=False))
    assert status_view(service, "docs", None).notice == ""


def test_documents_of_an_outdated_docset_fail_with_a_hint(
    service: Actions, ingestor: Ingestor, store: Store
) -> None:
    store.docsets.create("old", "", "local/old-model", 384)
    _upload(service, "old", "glossary.rst")
    ingestor.process_all()
    [document] = service.documents.all("old")
    assert document.embedding_status == EmbeddingStatus.ERROR
    assert document.error_message is not None
    assert "Re-embed whole DocSet" in document.error_message


def test_status_view_rows_summary_and_selection(service: Actions, ingestor: Ingestor) -> None:
    service.docsets.create("docs")
    _upload(service, "docs", "glossary.rst", "textwrap.py")
    view = status_view(service, "docs", None)
    assert "**pending** 2" in view.summary
    assert {row[5] for row in view.rows} == {"queued"}
    ingestor.process_all()
    view = status_view(service, "docs", "done")
    by_path = {row[1]: row for row in view.rows}
    assert by_path["textwrap.py"][3] == "done"
    chunks = by_path["textwrap.py"][4]
    assert by_path["textwrap.py"][5] == f"{chunks}/{chunks} (100%)"
    assert sorted(chosen_ids(view.choices)) == sorted(row[0] for row in view.rows)
    assert status_view(service, "docs", "error").rows == []


def test_an_empty_docset_switches_model_at_once(
    service: Actions, store: Store, embedder: Embedder
) -> None:
    store.docsets.create("empty", "", "local/old-model", 384)
    assert service.documents.reembed_docset("empty") == 0
    docset = service.docsets.get("empty")
    assert (docset.embedding_model, docset.target_embedding_model) == (embedder.model_id, None)


@pytest.mark.parametrize(
    ("raw", "content_type"),
    [
        (b"<html><body>Please sign in to the Wi-Fi</body></html>", "text/html"),
        (b'{"data": [{"index": 0, "embedding": ', "application/json"),  # cut off
        (b'{"status": "ok"}', "application/json"),  # JSON, but not an embeddings reply
    ],
)
def test_a_malformed_api_reply_fails_the_document_at_once_naming_the_service(
    store: Store, fake_openai: FakeOpenAI, raw: bytes, content_type: str
) -> None:
    openai, ingestor = _openai_ingestor(store, fake_openai, IngestOptions(max_attempts=3))
    document_id = _openai_document(store, openai)
    fake_openai.script = [malformed(raw, content_type)] * 3
    ingestor.process_all()
    assert len(fake_openai.requests) == 1  # neither the SDK nor the queue retries it
    document = store.documents.get(document_id)
    assert document.embedding_status == EmbeddingStatus.ERROR
    message = document.error_message or ""
    assert "embedding API" in message and "malformed reply" in message, message
    assert fake_openai.base_url in message and "Internal error" not in message
    assert [(state, attempts) for _, state, attempts, _ in _jobs(store)] == [("error", 1)]


class SpyChunker(Chunker):
    """The real chunker, counting the documents it is asked to split."""

    splits = 0

    def split(self, text: str, language: str, path: str) -> list[ChunkDraft]:
        self.splits += 1
        return super().split(text, language, path)


def test_text_too_long_for_the_chunk_limit_is_refused_before_chunking(
    store: Store, embedder: Embedder
) -> None:
    chunker = SpyChunker(100, 100, 0)
    ingestor = Ingestor(store, chunker, embedder, IngestOptions(max_chunks=5, max_attempts=3))
    docset = store.docsets.create("long", "", embedder.model_id, embedder.dimensions)
    text = "A line of prose.\n" * 60  # 1,020 characters: more than 5 chunks of 100
    new = NewDocument(
        path="long.md", title="long.md", language="markdown", content=text, content_hash="h1"
    )
    [document_id] = store.documents.upsert(docset.id, None, [new])
    ingestor.process_all()
    document = store.documents.get(document_id)
    assert document.embedding_status == EmbeddingStatus.ERROR
    assert "RAGSPACE_MAX_CHUNKS_PER_DOCUMENT" in (document.error_message or "")
    assert chunker.splits == 0
