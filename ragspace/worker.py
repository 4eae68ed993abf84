"""Background ingestion: claim a pending document, chunk, embed, store; repeat."""

import hashlib
import logging
import threading
from bisect import bisect_right
from typing import Any

from ragspace.chunking import Chunker
from ragspace.embeddings import Embedder
from ragspace.errors import RagspaceError
from ragspace.models import ChunkDraft
from ragspace.store import ClaimedDocument, Store

log = logging.getLogger(__name__)


class Ingestor:
    """Processes one pending document at a time; safe to run in several threads or processes."""

    def __init__(self, store: Store, chunker: Chunker, embedder: Embedder) -> None:
        self._store = store
        self._chunker = chunker
        self._embedder = embedder

    def process_next(self) -> bool:
        """Ingest the oldest pending document; False when there was none."""
        document = self._store.claim_pending_document()
        if document is None:
            return False
        try:
            self._ingest(document)
        except RagspaceError as exc:
            log.warning("Ingesting %s failed: %s", document.path, exc)
            self._store.mark_document_error(document.id, str(exc))
        except Exception as exc:
            log.exception("Unexpected failure ingesting %s", document.path)
            self._store.mark_document_error(
                document.id, f"Internal error while ingesting ({type(exc).__name__})."
            )
        return True

    def process_all(self) -> int:
        """Ingest until nothing is pending; returns how many documents were taken."""
        count = 0
        while self.process_next():
            count += 1
        return count

    def _ingest(self, document: ClaimedDocument) -> None:
        if document.embedding_model != self._embedder.model_id:
            raise RagspaceError(
                f"This DocSet's vectors come from {document.embedding_model}, but the configured "
                f"embedding model is {self._embedder.model_id}."
            )
        chunks = self._chunker.split(document.content, document.language, document.path)
        if not chunks:
            raise RagspaceError(f"{document.path} has no text to index.")
        chunks = [with_document_metadata(chunk, document.metadata) for chunk in chunks]
        texts = [chunk.embedding_text for chunk in chunks]
        vectors = self._embedder.embed(texts)
        hashes = [hashlib.sha256(text.encode("utf-8")).hexdigest() for text in texts]
        self._store.replace_chunks(
            document.id, document.docset_id, chunks, vectors, hashes, document.content_hash
        )
        log.info("Ingested %s: %d chunks", document.path, len(chunks))


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
    """Threads that run an Ingestor until stopped; `wake()` skips the idle wait."""

    def __init__(self, ingestor: Ingestor, threads: int, idle_seconds: float = 2.0) -> None:
        self._ingestor = ingestor
        self._count = threads
        self._idle_seconds = idle_seconds
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

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                busy = self._ingestor.process_next()
            except Exception:  # the database may be briefly unreachable; keep serving
                log.exception("Ingestion worker error; retrying shortly")
                busy = False
            if not busy:
                self._work.wait(self._idle_seconds)
                self._work.clear()
