"""The composition root: settings -> database -> models -> actions -> workers."""

import logging
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from ragspace.actions import Actions, AppMode
from ragspace.actions.answers import AnswerActions
from ragspace.actions.docsets import DocsetActions
from ragspace.actions.documents import DocumentActions
from ragspace.actions.evaluation import EvaluationActions
from ragspace.actions.expansion import HitExpansion
from ragspace.actions.scope import SearchScope
from ragspace.actions.search import SearchActions
from ragspace.actions.sources import SourceActions
from ragspace.actions.symbols import SymbolActions
from ragspace.answering.answer import AnswerOptions, AnswerPipeline, RepoMapSource
from ragspace.answering.context import ContextBuilder
from ragspace.answering.llm import ChatModel, OpenAIChatModel
from ragspace.answering.rerank import Reranker
from ragspace.chunking.chunker import Chunker
from ragspace.embedding.embedders import (
    LOCAL_DIMENSIONS,
    LOCAL_MODEL_ID,
    Embedder,
    LazyEmbedder,
    LocalEmbedder,
    OpenAIEmbedder,
    openai_model_id,
)
from ragspace.errors import ConfigError
from ragspace.eval.runner import Evaluator
from ragspace.ingestion.scheduler import ResyncScheduler
from ragspace.ingestion.symbol_backfill import SymbolBackfill
from ragspace.ingestion.worker import IngestOptions, Ingestor, WorkerPool
from ragspace.models import RetrievalMode
from ragspace.ranking.options import RankingOptions
from ragspace.search.keyword_ranking import keyword_only_ranking
from ragspace.search.retrieval import RelevanceFloor, RetrievalOptions, Retriever
from ragspace.settings import Settings
from ragspace.sources.files import ArchiveLimits
from ragspace.sources.github_client import GithubClient, GithubConfig
from ragspace.sources.github_fetcher import GithubFetcher
from ragspace.sources.llms_txt import LlmsTxtCrawler
from ragspace.sources.sync import SourceSyncer
from ragspace.sources.web import WebConfig
from ragspace.store import (
    Database,
    DeliveryLog,
    EmbeddingCache,
    JobQueue,
    ReembedRequests,
    Store,
    SyncSchedule,
)
from ragspace.store.docset_indexes import build_missing_indexes
from ragspace.store.symbols import SymbolIndex

log = logging.getLogger(__name__)


def build_embedder(settings: Settings) -> Embedder:
    """OpenAI embeddings when a key is configured (and the provider is not `local`),
    otherwise the bundled local model."""
    if settings.embedding.embedding_provider == "openai" and not settings.openai.configured:
        raise ConfigError(
            "RAGSPACE_EMBEDDING_PROVIDER=openai needs OPENAI_API_KEY; set the key, or the "
            "provider to auto or local."
        )
    if settings.openai.openai_api_key is not None and settings.uses_openai:
        return OpenAIEmbedder(
            api_key=settings.openai.openai_api_key.get_secret_value(),
            model=settings.embedding.openai_embedding_model,
            dimensions=settings.embedding.openai_embedding_dimensions,
            base_url=settings.openai.openai_base_url,
            timeout=settings.openai.openai_timeout_seconds,
            max_retries=settings.openai.openai_max_retries,
            batch_size=settings.embedding.embedding_batch_size,
        )
    return LocalEmbedder(
        batch_size=settings.embedding.local_embedding_batch_size,
        threads=settings.embedding.local_embedding_threads,
        providers=[
            p.strip() for p in settings.embedding.local_embedding_providers.split(",") if p.strip()
        ],
    )


def lazy_embedder(settings: Settings) -> LazyEmbedder:
    """The configured embedder, built (model loaded) only when something is embedded."""
    if settings.openai.openai_api_key is not None and settings.uses_openai:
        model_id = openai_model_id(
            settings.embedding.openai_embedding_model,
            settings.embedding.openai_embedding_dimensions,
        )
        return LazyEmbedder(
            lambda: build_embedder(settings),
            model_id,
            settings.embedding.openai_embedding_dimensions,
        )
    return LazyEmbedder(lambda: build_embedder(settings), LOCAL_MODEL_ID, LOCAL_DIMENSIONS)


def archive_limits(settings: Settings) -> ArchiveLimits:
    """Upload limits; in character units the chunk limit also caps a document's text."""
    largest_chunk = max(settings.chunking.code_chunk_size, settings.chunking.prose_chunk_size)
    return ArchiveLimits(
        settings.limits.zip_max_members,
        settings.limits.zip_max_total_bytes,
        settings.limits.upload_text_budget_bytes,
        # a document longer than this splits into more chunks than allowed (a token can
        # be many characters, so no such bound exists in token units)
        settings.chunking.max_chunks_per_document * largest_chunk
        if settings.chunking.chunk_size_unit == "chars"
        else None,
    )


def build_chunker(settings: Settings) -> Chunker:
    """The chunker with the configured sizes."""
    return Chunker(
        settings.chunking.code_chunk_size,
        settings.chunking.prose_chunk_size,
        settings.chunking.chunk_overlap,
        unit=settings.chunking.chunk_size_unit,
    )


def build_chat_model(settings: Settings) -> ChatModel | None:
    """The configured chat model, or None when no API key is set (extractive answers)."""
    if settings.openai.openai_api_key is None or not settings.openai.configured:
        return None
    return OpenAIChatModel(
        api_key=settings.openai.openai_api_key.get_secret_value(),
        model=settings.openai.openai_chat_model,
        base_url=settings.openai.openai_base_url,
        timeout=settings.openai.openai_timeout_seconds,
        max_retries=settings.openai.openai_max_retries,
    )


def chat_endpoint(settings: Settings) -> str:
    """Which chat model the settings configure, and at which host."""
    return endpoint_text(settings.openai.openai_chat_model, settings.openai.openai_base_url)


def endpoint_text(model: str, base_url: str | None) -> str:
    """`llama3.2 at 127.0.0.1:11434`: the address's host and port only (a URL can carry a
    password)."""
    address = urlsplit(base_url or "https://api.openai.com/v1")
    host = address.hostname or "?"
    where = f"{host}:{address.port}" if address.port else host
    return f"{model} at {where}"


def build_actions(
    settings: Settings,
    store: Store,
    embedder: Embedder,
    chat: ChatModel | None = None,
    on_new_work: Callable[[], None] | None = None,
    syncer: SourceSyncer | None = None,
    ingestor: Ingestor | None = None,
) -> Actions:
    """The actions over a store, with retrieval, answers and sources from settings."""
    retriever = build_retriever(settings, store, embedder)
    requests = ReembedRequests(store.pool)
    scope = SearchScope(store, embedder, requests)
    symbols = SymbolActions(SymbolIndex(store.pool), store, scope)
    answers = build_answers(settings, store, retriever, chat, symbols.map_for_prompt)
    new_work = on_new_work or (lambda: None)
    read_only = settings.access.read_only
    return Actions(
        docsets=DocsetActions(store, embedder, scope, read_only),
        sources=SourceActions(
            store,
            syncer or build_syncer(settings, store),
            SyncSchedule(store.pool),
            DeliveryLog(store.pool),
            archive_limits(settings),
            settings.limits.max_upload_bytes,
            new_work,
            read_only,
        ),
        documents=DocumentActions(store, embedder, requests, scope, new_work, read_only),
        search=SearchActions(
            retriever, scope, answers.relevance_floor, HitExpansion(store), symbols
        ),
        answers=AnswerActions(answers, scope, symbols),
        evaluation=EvaluationActions(
            Evaluator(retriever, answers), scope, read_only, store, ingestor
        ),
        symbols=symbols,
        mode=AppMode(
            embedding_model=embedder.model_id,
            local_embeddings=embedder.model_id == LOCAL_MODEL_ID,
            llm_answers=answers.chat is not None,
            max_upload_bytes=settings.limits.max_upload_bytes,
            chat_model=_answering(answers.chat),
        ),
        read_only=read_only,
    )


def build_retriever(settings: Settings, store: Store, embedder: Embedder) -> Retriever:
    """Hybrid retrieval with the configured tuning."""
    ranking = RankingOptions.from_settings(settings.retrieval)
    return Retriever(
        store,
        embedder,
        RetrievalOptions(
            mode=RetrievalMode(settings.retrieval.retrieval_mode),
            candidates=settings.retrieval.retrieval_candidates,
            ranking=ranking,
            keyword_ranking=keyword_only_ranking(ranking),
            ef_search=settings.retrieval.hnsw_ef_search,
            exact_max_chunks=settings.retrieval.exact_search_max_chunks,
        ),
    )


def _answering(chat: ChatModel | None) -> str:
    """The chat model that writes answers, as the mode line names it ('' for none)."""
    if isinstance(chat, OpenAIChatModel):
        return endpoint_text(chat.model, chat.base_url)
    return "a chat model" if chat is not None else ""


def build_answers(
    settings: Settings,
    store: Store,
    retriever: Retriever,
    chat: ChatModel | None,
    repo_map: RepoMapSource | None = None,
) -> AnswerPipeline:
    """The answer pipeline: context, relevance floor, reranking when a chat model is set,
    and the repository map for architecture questions."""
    reranker = (
        Reranker(chat, settings.retrieval.rerank_timeout_seconds)
        if chat and settings.retrieval.rerank
        else None
    )
    return AnswerPipeline(
        retriever,
        ContextBuilder(store, settings.retrieval.context_chars),
        AnswerOptions(
            min_similarity=settings.retrieval.min_similarity,
            rerank_candidates=settings.retrieval.rerank_candidates,
            relevance_floor=RelevanceFloor(*settings.relevance_floors),
        ),
        chat=chat,
        reranker=reranker,
        repo_map=repo_map,
    )


def build_syncer(settings: Settings, store: Store) -> SourceSyncer:
    """Every fetched source type's fetcher, with the configured token, timeouts and caps."""
    github = GithubFetcher(
        GithubClient(GithubConfig.from_settings(settings)),
        settings.sources.github_max_file_bytes,
        chunk_chars=settings.chunking.code_chunk_size,
    )
    web = LlmsTxtCrawler(WebConfig.from_settings(settings))  # page by page without llms.txt
    return SourceSyncer(store, [github, web])


@dataclass
class Runtime:
    """Everything a front end needs, and the one place that shuts it down."""

    settings: Settings
    database: Database
    store: Store
    embedder: Embedder
    ingestor: Ingestor
    workers: WorkerPool
    actions: Actions
    scheduler: ResyncScheduler | None = None

    def close(self) -> None:
        """Stop the workers, close the pool and stop the embedded database."""
        if self.scheduler is not None:
            self.scheduler.stop()
        self.workers.stop()
        self.database.close()


def build_ingestor(settings: Settings, store: Store, embedder: Embedder) -> Ingestor:
    """The ingestion pipeline over the job queue and the embedding cache."""
    return Ingestor(
        store,
        build_chunker(settings),
        embedder,
        IngestOptions.from_settings(settings),
        jobs=JobQueue(store.pool),
        cache=EmbeddingCache(store.pool),
    )


def build_workers(settings: Settings, store: Store, ingestor: Ingestor, threads: int) -> WorkerPool:
    """The in-process ingestion workers (not started)."""
    # jobs of a stopped process are taken over when their lease expires, never at
    # start-up: other processes sharing the database may still be running them
    backfill = SymbolBackfill(store.pool)

    def upkeep() -> None:
        # DocSets too large for an exact scan get an HNSW graph of their own, and large
        # DocSets among others a full-text index of their own
        build_missing_indexes(store.pool, settings.retrieval.exact_search_max_chunks)
        backfill.step()  # symbol rows for documents ingested before the table existed

    return WorkerPool(ingestor, threads, settings.ingestion.worker_poll_seconds, on_idle=upkeep)


def open_runtime(
    settings: Settings,
    worker_threads: int | None = None,
    load_models: bool = True,
    scheduled_syncs: bool = False,
) -> Runtime:
    """Open the database, load the models and start the in-process ingestion workers.

    Without `load_models` the embedder is built on its first use: a command that never
    embeds (list, rename, status...) never imports onnxruntime. Use it without workers.
    With `scheduled_syncs` (the app and `ragspace worker`), a thread also runs due re-syncs.
    """
    database = Database.open(settings)
    try:
        store = Store(database.pool)
        embedder = build_embedder(settings) if load_models else lazy_embedder(settings)
        ingestor = build_ingestor(settings, store, embedder)
        threads = settings.ingestion.worker_threads if worker_threads is None else worker_threads
        workers = build_workers(settings, store, ingestor, threads)
        syncer = build_syncer(settings, store)
        scheduler = (
            # the same sync path as `ragspace sync` and the Re-sync button
            ResyncScheduler(
                store,
                syncer.sync,
                workers.wake,
                settings.ingestion.resync_lease_seconds,
                settings.ingestion.worker_poll_seconds,
            )
            if scheduled_syncs
            else None
        )

        def new_work() -> None:
            workers.wake()
            if scheduler is not None:
                scheduler.wake()

        actions = build_actions(
            settings,
            store,
            embedder,
            build_chat_model(settings),
            on_new_work=new_work,
            syncer=syncer,
            ingestor=ingestor,
        )
        workers.start()
        if scheduler is not None:
            scheduler.start()
    except BaseException:
        database.close()
        raise
    log.info("RAGSpace ready (embedding model %s)", embedder.model_id)
    return Runtime(settings, database, store, embedder, ingestor, workers, actions, scheduler)
