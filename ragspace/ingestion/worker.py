"""Background ingestion: claim a job, chunk, embed (cached, batched), swap the chunk set.

The lease heartbeats are `leases.py`, the embedding passes `embedding_passes.py` and the
job's chunks `job_chunks.py`; here the job's life: claim, run, retry or fail.
"""

import logging
import random
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

import numpy as np

from ragspace.chunking.chunker import Chunker
from ragspace.embedding.embedders import Embedder, Vectors
from ragspace.embedding.native_memory import release_free_memory
from ragspace.errors import DatabaseUnavailableError, RagspaceError, TransientError
from ragspace.ingestion.embedding_passes import QualityPass, wants_keyword_pass
from ragspace.ingestion.job_chunks import PreparedJob, prepare_job
from ragspace.ingestion.leases import LeaseLostError, batch_kept_alive, kept_alive, worker_name
from ragspace.settings import Settings
from ragspace.settings.area import default_of
from ragspace.settings.chunking import ChunkingSettings
from ragspace.settings.embedding import EmbeddingSettings
from ragspace.settings.ingestion import IngestionSettings
from ragspace.store import ClaimedJob, EmbeddingCache, JobQueue, JobResult, Store
from ragspace.store.keyword_batches import BatchLimits, KeywordBatches

log = logging.getLogger(__name__)
_T = TypeVar("_T")
# A keyword pass takes milliseconds a document, so new documents are claimed and stored many
# at once; bounded so a batch stays well within a lease and its memory small
KEYWORD_BATCH = BatchLimits(documents=64, content_bytes=2_000_000)
# batches of keyword passes one call runs, each chunked while the one before is written;
# bounded so a worker stops within seconds when asked
KEYWORD_BATCHES_IN_A_ROW = 8


@dataclass(frozen=True)
class IngestOptions:
    """Batching, leases and retries of the ingestion pipeline; each defaults to its setting."""

    batch_size: int = default_of(EmbeddingSettings, "embedding_batch_size")
    concurrency: int = default_of(EmbeddingSettings, "embedding_concurrency")
    lease_seconds: float = default_of(IngestionSettings, "job_lease_seconds")
    max_attempts: int = default_of(IngestionSettings, "job_max_attempts")
    retry_base_seconds: float = default_of(IngestionSettings, "job_retry_base_seconds")
    retry_max_seconds: float = default_of(IngestionSettings, "job_retry_max_seconds")
    max_chunks: int = default_of(ChunkingSettings, "max_chunks_per_document")
    # a keyword pass (chunks without vectors, found by keywords) before each new document's
    # vector pass: on with the local model (about 20 chunks/s on 2 cores), so a big upload is
    # keyword-searchable in seconds rather than minutes (docs/architecture.md)
    keywords_first: bool = False
    keyword_batch: BatchLimits = field(default=KEYWORD_BATCH)

    @classmethod
    def from_settings(cls, settings: Settings) -> "IngestOptions":
        """Batching, lease and retry settings as configured."""
        return cls(
            batch_size=settings.embedding.embedding_batch_size,
            concurrency=settings.embedding.embedding_concurrency,
            lease_seconds=settings.ingestion.job_lease_seconds,
            max_attempts=settings.ingestion.job_max_attempts,
            retry_base_seconds=settings.ingestion.job_retry_base_seconds,
            retry_max_seconds=settings.ingestion.job_retry_max_seconds,
            max_chunks=settings.chunking.max_chunks_per_document,
            # OpenAI embeds fast enough that a keyword pass first would only add a chunk swap
            keywords_first=not settings.uses_openai,
        )

    @property
    def heartbeat_seconds(self) -> float:
        """A third of the lease: two heartbeats may be missed before the job is reclaimed."""
        return self.lease_seconds / 3

    def retry_delay(self, attempt: int) -> float:
        """Exponential backoff with jitter: base * 2^(attempt-1), scaled by 0.5-1.0, capped."""
        ceiling = min(self.retry_max_seconds, self.retry_base_seconds * 2.0 ** (attempt - 1))
        return float(ceiling * random.uniform(0.5, 1.0))


class Ingestor:
    """Processes one job at a time; safe to run in several threads or processes."""

    def __init__(
        self,
        store: Store,
        chunker: Chunker,
        embedder: Embedder,
        options: IngestOptions | None = None,
        jobs: JobQueue | None = None,
        cache: EmbeddingCache | None = None,
    ) -> None:
        self._store = store
        self._chunker = chunker
        self._embedder = embedder
        self._options = options or IngestOptions()
        # runtime.build_ingestor passes both; the defaults serve tests and scripts
        self._jobs = jobs or JobQueue(store.pool)
        self._cache = cache or EmbeddingCache(store.pool)
        self._batches = KeywordBatches(store.pool)
        self._quality = QualityPass(
            embedder, self._jobs, self._options.batch_size, self._options.concurrency
        )

    def process_next(self) -> int:
        """Run the next due job or, keyword passes first, the next batch of new documents'
        jobs; how many jobs were taken (0: none was due)."""
        self._jobs.reclaim_expired()
        owner, lease = worker_name(), self._options.lease_seconds
        if self._options.keywords_first and (taken := self._keyword_batches(owner)):
            return taken
        job = self._jobs.claim(
            owner, lease, self._options.max_attempts, keywords_first=self._options.keywords_first
        )
        if job is None:
            return 0
        with kept_alive(self._jobs, job, lease, self._options.heartbeat_seconds) as lost:
            self._guarded([job], lambda: self._ingest(job, lost))
        return 1

    def process_all(self) -> int:
        """Run jobs until none is due; returns how many were taken."""
        count = 0
        while taken := self.process_next():
            count += taken
        return count

    def _guarded(self, jobs: Sequence[ClaimedJob], work: Callable[[], _T]) -> _T | None:
        """Run `work` for these jobs; a failure ends (or retries) every one of them."""
        try:
            return work()
        except LeaseLostError as exc:
            log.warning("Lost the lease on %s; another worker took it over", exc)
        except DatabaseUnavailableError:
            self._release_when_back(jobs)
            raise
        except TransientError as exc:
            self._fail_all(jobs, str(exc), retryable=True)
        except RagspaceError as exc:
            self._fail_all(jobs, str(exc), retryable=False)
        except Exception as exc:
            log.exception("Unexpected failure ingesting %s", ", ".join(j.path for j in jobs))
            message = f"Internal error while ingesting ({type(exc).__name__})."
            self._fail_all(jobs, message, retryable=True)
        return None

    def _release_when_back(self, jobs: Sequence[ClaimedJob]) -> None:
        """Requeue jobs cut off by an outage once the database returns (within the lease).

        Otherwise their leases expire and `reclaim_expired` takes them back; either way the
        chunk swap is one transaction, so nothing is stored twice.
        """
        health = getattr(self._store.pool, "health", None)
        if health is None or not health.wait_until_up(self._options.lease_seconds):
            return
        try:
            for job in jobs:
                if self._jobs.release(job):
                    log.info("Requeued %s after the database outage", job.path)
        except DatabaseUnavailableError:
            pass  # down again: the leases will expire

    def _fail_all(self, jobs: Sequence[ClaimedJob], message: str, retryable: bool) -> None:
        for job in jobs:
            self._fail(job, message, retryable)

    def _fail(self, job: ClaimedJob, message: str, retryable: bool) -> None:
        retry_in = None
        if retryable and job.attempts < job.max_attempts:
            retry_in = self._options.retry_delay(job.attempts)
            message = (
                f"Attempt {job.attempts} of {job.max_attempts} failed, retrying in "
                f"{retry_in:.0f} s: {message}"
            )
        state = self._jobs.fail(job, message, retry_in)
        log.warning("Ingesting %s failed (%s): %s", job.path, state, message)

    def _keyword_batches(self, owner: str) -> int:
        """Batches of new documents' jobs, up to `KEYWORD_BATCHES_IN_A_ROW`: the next one
        claimed and chunked here while the one before is written on a thread of its own
        (Python chunks while Postgres writes); how many jobs were taken."""
        lease, every = self._options.lease_seconds, self._options.heartbeat_seconds
        limits, taken = self._options.keyword_batch, 0
        writing: _Write | None = None
        with ThreadPoolExecutor(1, thread_name_prefix="keyword-write") as writer:
            try:
                for _ in range(KEYWORD_BATCHES_IN_A_ROW):
                    batch = self._batches.claim(owner, lease, self._options.max_attempts, limits)
                    if not batch:
                        break
                    with ExitStack() as opened:  # the heartbeats stop here on an error
                        lost = opened.enter_context(
                            batch_kept_alive(self._batches, batch, lease, every)
                        )
                        ready = self._prepared_batch(batch)
                        if writing is not None:
                            previous, writing = writing, None
                            previous.wait()
                        leases = opened.pop_all()  # else they last until the write ends
                    writing = _Write(writer.submit(self._run_batch, ready, lost), leases)
                    taken += len(batch)
            finally:
                if writing is not None:
                    writing.wait()
        return taken

    def _prepared_batch(self, batch: Sequence[ClaimedJob]) -> list[PreparedJob]:
        """Each new document chunked on its own: a failure ends that job only."""
        prepared = [self._guarded([job], partial(self._prepared, job)) for job in batch]
        return [p for p in prepared if p is not None]

    def _run_batch(self, ready: Sequence[PreparedJob], lost: threading.Event) -> None:
        """New documents' chunks, claimed together: the keyword passes stored in one
        transaction, and the documents whose vectors are all cached given their vector pass
        at once."""
        hashes = [h for p in ready if not p.job.force for h in p.hashes]
        cached = self._cache.vectors(self._embedder.model_id, hashes)
        own = {p.job.id: p.cached(cached) for p in ready}
        keywords = [p for p in ready if wants_keyword_pass(p.job, p.hashes, own[p.job.id])]
        if keywords:
            self._guarded([p.job for p in keywords], lambda: self._store_keywords(keywords))
        stored = {p.job.id for p in keywords}
        for vector_pass in ready:
            if vector_pass.job.id not in stored:
                vectors = own[vector_pass.job.id]
                self._guarded([vector_pass.job], partial(self._finish, vector_pass, vectors, lost))

    def _ingest(self, job: ClaimedJob, lost: threading.Event) -> None:
        prepared = self._prepared(job)
        cached = prepared.cached(self._cache.vectors(self._embedder.model_id, prepared.hashes))
        if self._options.keywords_first and wants_keyword_pass(job, prepared.hashes, cached):
            if lost.is_set():
                raise LeaseLostError(job.path)
            self._store_keywords([prepared])
        else:
            self._finish(prepared, cached, lost)

    def _prepared(self, job: ClaimedJob) -> PreparedJob:
        model = self._embedder.model_id
        if job.embedding_model != model:
            raise RagspaceError(
                f"This DocSet's vectors come from {job.embedding_model}, but the configured "
                f"embedding model is {model}; use 'Re-embed whole DocSet' to switch it."
            )
        return prepare_job(job, self._chunker, self._embedder, self._options.max_chunks)

    def _store_keywords(self, passes: Sequence[PreparedJob]) -> None:
        """Store the keyword passes (chunks without vectors) together; lost jobs are left out."""
        written = self._batches.complete([p.keyword_pass() for p in passes])
        for prepared in passes:
            job = prepared.job
            if job.id not in written:
                log.warning("Lost the lease on %s; another worker took it over", job.path)
        chunks = sum(len(p.chunks) for p in passes if p.job.id in written)
        log.info(
            "Keyword pass: %d document(s) searchable by keywords (%d chunks)", len(written), chunks
        )

    def _finish(
        self, prepared: PreparedJob, cached: dict[str, Vectors], lost: threading.Event
    ) -> None:
        """The vector pass: embed what the cache lacks (`cached`: the document's cached
        vectors), swap in the chunks with vectors."""
        job, hashes, model = prepared.job, prepared.hashes, self._embedder.model_id
        fresh = self._quality.embed_missing(job, hashes, prepared.texts, cached, lost)
        vectors = np.array([cached.get(h, fresh.get(h)) for h in hashes], dtype=np.float32)
        texts_cached = sum(1 for h in hashes if h in cached)
        result = JobResult(
            prepared.chunks,
            vectors,
            hashes,
            model,
            fresh,
            texts_cached,
            prepared.symbols,
            prepared.symbols_stored,
        )
        if lost.is_set() or not self._jobs.complete(job, result):
            raise LeaseLostError(job.path)
        log.info("Ingested %s: %d chunks (%d embedded)", job.path, len(hashes), len(fresh))


@dataclass
class _Write:
    """A batch's write on the writer thread, and the heartbeats of its jobs' leases."""

    future: "Future[None]"
    leases: ExitStack

    def wait(self) -> None:
        """Wait for the write (its error raised here), then stop the heartbeats."""
        with self.leases:
            self.future.result()


class WorkerPool:
    """Threads that run an Ingestor until stopped; `wake()` skips the idle wait. `on_idle`
    runs when a thread finds no work (upkeep such as building large DocSets' own graphs)."""

    def __init__(
        self,
        ingestor: Ingestor,
        threads: int,
        idle_seconds: float = 2.0,
        on_idle: Callable[[], object] | None = None,
    ) -> None:
        self._ingestor = ingestor
        self._count = threads
        self._idle_seconds = idle_seconds
        self._on_idle = on_idle
        self._stop = threading.Event()
        self._work = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        """Start the worker threads."""
        for number in range(self._count):
            thread = threading.Thread(target=self._run, name=f"ingest-{number}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def wake(self) -> None:
        """Tell idle workers new documents are pending."""
        self._work.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Ask the threads to finish their current document and wait for them."""
        self._stop.set()
        self._work.set()
        for thread in self._threads:
            thread.join(timeout)
        self._threads.clear()

    def _upkeep(self) -> None:
        if self._on_idle is None:
            return
        try:
            self._on_idle()
        except DatabaseUnavailableError:
            pass  # logged once when it went down; tried again at the next idle moment
        except Exception:
            log.exception("Worker upkeep failed; trying again when next idle")

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                busy = self._ingestor.process_next()
            except DatabaseUnavailableError:
                busy = False  # logged once when it went down; poll again after the idle wait
            except Exception:  # the database may be briefly unreachable; keep serving
                log.exception("Ingestion worker error; retrying shortly")
                busy = False
            if not busy:
                self._upkeep()
                # idle: give back what ingestion and the requests in between freed
                release_free_memory()
                self._work.wait(self._idle_seconds)
                self._work.clear()
