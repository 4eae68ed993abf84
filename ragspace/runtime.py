"""Composition of the service layer: settings -> database -> models -> services -> workers."""

import logging
from dataclasses import dataclass

from ragspace.chunking import Chunker
from ragspace.embeddings import Embedder, LocalEmbedder, OpenAIEmbedder
from ragspace.services import RagspaceService
from ragspace.settings import Settings
from ragspace.store import Database, Store
from ragspace.worker import IngestOptions, Ingestor, WorkerPool

log = logging.getLogger(__name__)


def build_embedder(settings: Settings) -> Embedder:
    """OpenAI embeddings when a key is configured, otherwise the bundled local model."""
    if settings.openai_api_key is not None and settings.uses_openai:
        return OpenAIEmbedder(
            api_key=settings.openai_api_key.get_secret_value(),
            model=settings.openai_embedding_model,
            dimensions=settings.openai_embedding_dimensions,
            base_url=settings.openai_base_url,
            timeout=settings.openai_timeout_seconds,
            max_retries=settings.openai_max_retries,
            batch_size=settings.embedding_batch_size,
        )
    return LocalEmbedder(
        batch_size=settings.embedding_batch_size, threads=settings.local_embedding_threads
    )


def build_chunker(settings: Settings) -> Chunker:
    """The chunker with the configured sizes."""
    return Chunker(settings.code_chunk_size, settings.prose_chunk_size, settings.chunk_overlap)


def ingest_options(settings: Settings) -> IngestOptions:
    """Batching, lease and retry settings of the ingestion pipeline."""
    return IngestOptions(
        batch_size=settings.embedding_batch_size,
        concurrency=settings.embedding_concurrency,
        lease_seconds=settings.job_lease_seconds,
        max_attempts=settings.job_max_attempts,
        retry_base_seconds=settings.job_retry_base_seconds,
        retry_max_seconds=settings.job_retry_max_seconds,
    )


@dataclass
class Runtime:
    """Everything a front end needs, and the one place that shuts it down."""

    settings: Settings
    database: Database
    store: Store
    embedder: Embedder
    ingestor: Ingestor
    workers: WorkerPool
    service: RagspaceService

    def close(self) -> None:
        """Stop the workers, close the pool and stop the embedded database."""
        self.workers.stop()
        self.database.close()


def open_runtime(settings: Settings, worker_threads: int | None = None) -> Runtime:
    """Open the database, load the models and start the in-process ingestion workers."""
    database = Database.open(settings)
    try:
        store = Store(database.pool)
        embedder = build_embedder(settings)
        ingestor = Ingestor(store, build_chunker(settings), embedder, ingest_options(settings))
        threads = settings.worker_threads if worker_threads is None else worker_threads
        # jobs of a stopped process are taken over when their lease expires, never at
        # start-up: other processes sharing the database may still be running them
        workers = WorkerPool(ingestor, threads, settings.worker_poll_seconds)
        service = RagspaceService(store, embedder, settings.max_upload_bytes, workers.wake)
        workers.start()
    except BaseException:
        database.close()
        raise
    log.info("RAGSpace ready (embedding model %s)", embedder.model_id)
    return Runtime(settings, database, store, embedder, ingestor, workers, service)
