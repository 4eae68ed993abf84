"""Background ingestion: claim a job, chunk, embed (cached, batched), swap the chunk set."""

import logging
import os
import random
import socket
import threading
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragspace.chunking.chunker import Chunker
from ragspace.embeddings import Embedder, Vectors
from ragspace.errors import DatabaseUnavailableError, RagspaceError, TransientError
from ragspace.hashing import content_hash
from ragspace.models import ChunkDraft
from ragspace.native_memory import release_free_memory
from ragspace.static_embedder import FastTier
from ragspace.store import ClaimedJob, JobQueue, JobResult, Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class IngestOptions:
    """Batching, leases and retries of the ingestion pipeline."""

    batch_size: int = 32
    concurrency: int = 1
    lease_seconds: float = 60.0
    max_attempts: int = 3
    retry_base_seconds: float = 5.0
    retry_max_seconds: float = 300.0
    max_chunks: int = 10_000

    @property
    def heartbeat_seconds(self) -> float:
        """A third of the lease: two heartbeats may be missed before the job is reclaimed."""
        return self.lease_seconds / 3

    def retry_delay(self, attempt: int) -> float:
        """Exponential backoff with jitter: base * 2^(attempt-1), scaled by 0.5-1.0, capped."""
        ceiling = min(self.retry_max_seconds, self.retry_base_seconds * 2.0 ** (attempt - 1))
        return float(ceiling * random.uniform(0.5, 1.0))


class LeaseLostError(Exception):
    """Another worker reclaimed the job; this one must not write its result."""


class Ingestor:
    """Processes one job at a time; safe to run in several threads or processes."""

    def __init__(
        self,
        store: Store,
        chunker: Chunker,
        embedder: Embedder,
        options: IngestOptions | None = None,
        jobs: JobQueue | None = None,
        fast: FastTier | None = None,
    ) -> None:
        self._store = store
        self._chunker = chunker
        self._embedder = embedder
        self._options = options or IngestOptions()
        self._jobs = jobs or JobQueue(store.pool)
        self._fast = fast

    def process_next(self) -> bool:
        """Run the next due job; False when there was none."""
        self._jobs.reclaim_expired()
        job = self._jobs.claim(
            _owner(),
            self._options.lease_seconds,
            self._options.max_attempts,
            fast_first=self._fast is not None and self._fast.embedder is not None,
        )
        if job is None:
            return False
        try:
            with self._heartbeat(job) as lost:
                self._ingest(job, lost)
        except LeaseLostError:
            log.warning("Lost the lease on %s; another worker took it over", job.path)
        except DatabaseUnavailableError:
            self._release_when_back(job)
            raise
        except TransientError as exc:
            self._fail(job, str(exc), retryable=True)
        except RagspaceError as exc:
            self._fail(job, str(exc), retryable=False)
        except Exception as exc:
            log.exception("Unexpected failure ingesting %s", job.path)
            self._fail(job, f"Internal error while ingesting ({type(exc).__name__}).", True)
        return True

    def process_all(self) -> int:
        """Run jobs until none is due; returns how many were taken."""
        count = 0
        while self.process_next():
            count += 1
        return count

    def _release_when_back(self, job: ClaimedJob) -> None:
        """Requeue a job cut off by an outage once the database returns (within the lease).

        Otherwise its lease expires and `reclaim_expired` takes it back; either way the chunk
        swap is one transaction, so nothing is stored twice.
        """
        health = getattr(self._store.pool, "health", None)
        if health is None or not health.wait_until_up(self._options.lease_seconds):
            return
        try:
            if self._jobs.release(job):
                log.info("Requeued %s after the database outage", job.path)
        except DatabaseUnavailableError:
            pass  # down again: the lease will expire

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

    @contextmanager
    def _heartbeat(self, job: ClaimedJob) -> Iterator[threading.Event]:
        """Extend the lease in the background; the event is set once the lease is lost."""
        stop, lost = threading.Event(), threading.Event()

        def beat() -> None:
            while not stop.wait(self._options.heartbeat_seconds):
                try:
                    if not self._jobs.heartbeat(job, self._options.lease_seconds):
                        lost.set()
                        return
                except DatabaseUnavailableError:
                    pass  # the outage is logged once by the database health
                except Exception:  # a missed beat is fine; the lease covers two more
                    log.exception("Heartbeat for %s failed", job.path)

        thread = threading.Thread(target=beat, name=f"heartbeat-{job.id}", daemon=True)
        thread.start()
        try:
            yield lost
        finally:
            stop.set()
            thread.join()

    def _ingest(self, job: ClaimedJob, lost: threading.Event) -> None:
        model = self._embedder.model_id
        if job.embedding_model != model:
            raise RagspaceError(
                f"This DocSet's vectors come from {job.embedding_model}, but the configured "
                f"embedding model is {model}; use 'Re-embed whole DocSet' to switch it."
            )
        chunks, texts = self._embeddable(self._split(job))
        hashes = [content_hash(chunk.embedding_text) for chunk in chunks]
        cached = {} if job.force else self._jobs.cached_vectors(model, hashes)
        static = self._fast.embedder if self._fast is not None else None
        # static vectors are kept on every chunk: cheap, and they let `--tier fast` evaluate
        # the fast tier on exactly the chunks the quality tier sees
        fast_vectors = static.embed([chunk.embedding_text for chunk in chunks]) if static else None
        if fast_vectors is not None and self._wants_fast_pass(job, hashes, cached):
            if lost.is_set() or not self._jobs.complete_fast(job, chunks, fast_vectors, hashes):
                raise LeaseLostError(job.path)
            log.info("Fast tier: %s searchable (%d chunks)", job.path, len(chunks))
            return
        fresh = self._embed_missing(job, hashes, texts, cached, lost)
        vectors = np.array([cached.get(h, fresh.get(h)) for h in hashes], dtype=np.float32)
        texts_cached = sum(1 for h in hashes if h in cached)
        result = JobResult(chunks, vectors, hashes, model, fresh, texts_cached, fast_vectors)
        if lost.is_set() or not self._jobs.complete(job, result):
            raise LeaseLostError(job.path)
        log.info("Ingested %s: %d chunks (%d embedded)", job.path, len(chunks), len(fresh))

    @staticmethod
    def _wants_fast_pass(
        job: ClaimedJob, hashes: Sequence[str], cached: dict[str, Vectors]
    ) -> bool:
        """A fast pass first when the current content has no vectors yet and the quality
        vectors are not all in the cache (then the quality pass costs no more than it)."""
        if job.vector_tier is not None:  # already searchable: upgrade (or re-embed) directly
            return False
        return not all(h in cached for h in hashes)

    def _split(self, job: ClaimedJob) -> list[ChunkDraft]:
        """The document's chunks with its citation metadata, within the chunk limit."""
        self._check_length(job)
        chunks = self._chunker.split(job.content, job.language, job.path)
        if not chunks:
            raise RagspaceError(f"{job.path} has no text to index.")
        if len(chunks) > self._options.max_chunks:
            raise RagspaceError(
                f"{job.path} splits into {len(chunks):,} chunks; the limit is "
                f"{self._options.max_chunks:,} per document (RAGSPACE_MAX_CHUNKS_PER_DOCUMENT). "
                "Split the file or raise the limit."
            )
        return [with_document_metadata(chunk, job.metadata) for chunk in chunks]

    def _check_length(self, job: ClaimedJob) -> None:
        """Refuse, before chunking it, text too long for the chunk limit (character units)."""
        if self._chunker.unit != "chars":  # a token can be many characters: no such bound
            return
        largest = max(self._chunker.code_chunk_size, self._chunker.prose_chunk_size)
        bound = self._options.max_chunks * largest
        if len(job.content) > bound:
            raise RagspaceError(
                f"{job.path} has {len(job.content):,} characters of text; at most {bound:,} fit "
                f"{self._options.max_chunks:,} chunks per document "
                "(RAGSPACE_MAX_CHUNKS_PER_DOCUMENT). Split the file or raise the limit."
            )

    def _embeddable(self, chunks: list[ChunkDraft]) -> tuple[list[ChunkDraft], list[str]]:
        """Texts within the embedder's input limit; cut ones carry a note in their metadata."""
        limit: int | None = getattr(self._embedder, "max_input_chars", None)
        texts = [chunk.embedding_text for chunk in chunks]
        if limit is None:
            return chunks, texts
        kept: list[ChunkDraft] = []
        for index, (chunk, text) in enumerate(zip(chunks, texts, strict=True)):
            if len(text) > limit:
                note = (
                    f"Only the first {limit:,} of {len(text):,} characters were embedded "
                    f"({self._embedder.model_id} input limit)."
                )
                chunk = chunk.model_copy(update={"metadata": {**chunk.metadata, "note": note}})
                texts[index] = text[:limit]
            kept.append(chunk)
        return kept, texts

    def _embed_missing(
        self,
        job: ClaimedJob,
        hashes: Sequence[str],
        texts: Sequence[str],
        cached: dict[str, Vectors],
        lost: threading.Event,
    ) -> dict[str, Vectors]:
        """Embed each uncached text once, in batches, recording progress after each batch."""
        todo: dict[str, str] = {}
        for digest, text in zip(hashes, texts, strict=True):
            if digest not in cached:
                todo.setdefault(digest, text)
        weight = Counter(hashes)
        done = len(hashes) - sum(weight[h] for h in todo)
        self._jobs.set_progress(job, done, len(hashes))
        keys = list(todo)
        size = self._options.batch_size
        batches = [keys[i : i + size] for i in range(0, len(keys), size)]
        fresh: dict[str, Vectors] = {}

        def embed(batch: list[str]) -> Vectors:
            if lost.is_set():
                raise LeaseLostError(job.path)
            return self._embedder.embed([todo[h] for h in batch])

        with ThreadPoolExecutor(max(1, self._options.concurrency)) as pool:
            for batch, vectors in zip(batches, pool.map(embed, batches), strict=True):
                fresh.update(zip(batch, vectors, strict=True))
                done += sum(weight[h] for h in batch)
                self._jobs.set_progress(job, done, len(hashes))
        return fresh


def _owner() -> str:
    """Names this worker thread in leases: host, process and thread."""
    return f"{socket.gethostname()}:{os.getpid()}:{threading.current_thread().name}"


def with_document_metadata(chunk: ChunkDraft, document_metadata: dict[str, Any]) -> ChunkDraft:
    """The chunk with its document's citation facts, pages or cells and section anchor added."""
    extra: dict[str, Any] = dict(document_metadata.get("cite", {}))
    pages = _position(document_metadata.get("page_lines", []), chunk.start_line, chunk.end_line)
    if pages is not None:
        extra["page"], extra["page_end"] = pages
    cells = _position(document_metadata.get("cell_lines", []), chunk.start_line, chunk.end_line)
    if cells is not None:
        extra["cell"], extra["cell_end"] = cells
    anchors = _position(document_metadata.get("anchors", []), chunk.start_line, chunk.start_line)
    if anchors is not None:
        extra["anchor"] = anchors[0]
    if not extra:
        return chunk
    return chunk.model_copy(update={"metadata": {**chunk.metadata, **extra}})


def _position(starts: list[list[Any]], first: int, last: int) -> tuple[Any, Any] | None:
    """Values in force at lines `first` and `last` of `[[start_line, value], ...]`."""
    if not starts:
        return None
    lines = [int(start) for start, _ in starts]
    begin, end = bisect_right(lines, first) - 1, bisect_right(lines, last) - 1
    if begin < 0:
        return None
    return starts[begin][1], starts[end][1]


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
