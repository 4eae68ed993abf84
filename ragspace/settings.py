"""Configuration read from the environment and `.env`; every field is in `.env.example`."""

from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# The local model's relevance floors (cosine of the best prose / code hit), calibrated on the
# shared evaluation sets and off-topic questions with bench/relevance_floor.py (figures in
# docs/benchmarks.md). Questions meet prose at higher cosines than code, so each has its own.
LOCAL_RELEVANCE_FLOOR_PROSE = 0.40
LOCAL_RELEVANCE_FLOOR_CODE = 0.24
# Searches whose DocSets hold at most this many chunks rank them by exact vector distance
# instead of walking the HNSW graph shared by every DocSet (ragspace/store/vector_plan.py).
# An exact scan costs about 0.7 µs a chunk on 2 cores (docs/benchmarks.md), so 14 ms here:
# a 10,000-chunk DocSet's hybrid search stays within its 30 ms.
EXACT_SEARCH_MAX_CHUNKS = 20_000
# HNSW candidate list size: the smallest of 400, 600, 800 and 1,000 at which a 100,000-chunk
# DocSet's own graph reaches recall@10 0.99 against exact search on near-random vectors
# (bench/experiments/hnsw_walks.py; shared walks raise it further by the selection's share)
HNSW_EF_SEARCH = 800


class Settings(BaseSettings):
    """All RAGSpace settings. Secrets are `SecretStr` so they print redacted."""

    # an empty variable means "unset" (the default), never "" (an empty path setting would
    # otherwise be Path(""), the working directory)
    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        env_ignore_empty=True,
    )

    database_url: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("DATABASE_URL"),
        description="Postgres connection string (e.g. Supabase). Unset: embedded Postgres.",
    )
    data_dir: Path = Field(
        default=Path(".ragspace"),
        validation_alias=AliasChoices("RAGSPACE_DATA_DIR"),
        description="Folder for the embedded Postgres data and other local state.",
    )
    embedded_shared_buffers: str = Field(
        default="1GB",
        pattern=r"^[1-9][0-9]*(kB|MB|GB)$",
        validation_alias=AliasChoices("RAGSPACE_EMBEDDED_SHARED_BUFFERS"),
        description=(
            "Buffer cache of the embedded Postgres (e.g. 512MB, 1GB); taken at its next start. "
            "Keeps the HNSW and full-text indexes of ~100,000 chunks in memory. "
            "Ignored with DATABASE_URL."
        ),
    )
    migrations_dir: Path = Field(
        default=PROJECT_ROOT / "supabase" / "migrations",
        validation_alias=AliasChoices("RAGSPACE_MIGRATIONS_DIR"),
        description="Folder of the SQL migrations applied at start-up.",
    )
    db_pool_max_size: int = Field(
        default=10,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_DB_POOL_MAX_SIZE"),
        description="Maximum number of pooled database connections.",
    )
    db_timeout_seconds: float = Field(
        default=5.0,
        ge=1.0,
        validation_alias=AliasChoices("RAGSPACE_DB_TIMEOUT_SECONDS"),
        description=(
            "Longest wait for a database connection before a request fails with "
            "'database unavailable' (also the connect timeout)."
        ),
    )

    openai_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("OPENAI_API_KEY"),
        description="OpenAI (or compatible) API key. Unset: local embedder, no LLM.",
    )
    openai_base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("OPENAI_BASE_URL"),
        description="Base URL of an OpenAI-compatible API; unset means api.openai.com.",
    )
    openai_embedding_model: str = Field(
        default="text-embedding-3-small",
        validation_alias=AliasChoices("OPENAI_EMBEDDING_MODEL"),
        description="Embedding model used when OPENAI_API_KEY is set.",
    )
    openai_embedding_dimensions: int = Field(
        default=1536,
        ge=1,
        le=2000,
        validation_alias=AliasChoices("OPENAI_EMBEDDING_DIMENSIONS"),
        description="Vector size requested from the OpenAI embedding model.",
    )
    openai_timeout_seconds: float = Field(
        default=60.0,
        gt=0,
        validation_alias=AliasChoices("OPENAI_TIMEOUT_SECONDS"),
        description="Per-request timeout for OpenAI calls.",
    )
    openai_max_retries: int = Field(
        default=2,
        ge=0,
        validation_alias=AliasChoices("OPENAI_MAX_RETRIES"),
        description="Retries after a 429, 5xx or timeout (Retry-After is honoured).",
    )
    embedding_batch_size: int = Field(
        default=32,
        ge=1,
        le=2048,
        validation_alias=AliasChoices("RAGSPACE_EMBEDDING_BATCH_SIZE"),
        description="Texts per embedding call (one OpenAI request; a step of ingestion progress).",
    )
    local_embedding_batch_size: int = Field(
        default=4,
        ge=1,
        le=256,
        validation_alias=AliasChoices("RAGSPACE_LOCAL_EMBEDDING_BATCH_SIZE"),
        description=(
            "Texts per inference of the local model. Small batches pad least: on 2 cores 4 ran "
            "about 1.4x faster than 32 (docs/benchmarks.md)."
        ),
    )
    local_embedding_threads: int = Field(
        default=0,
        ge=0,
        validation_alias=AliasChoices("RAGSPACE_LOCAL_EMBEDDING_THREADS"),
        description="onnxruntime intra-op threads for the local embedder; 0 = all cores.",
    )
    local_embedding_providers: str = Field(
        default="CPUExecutionProvider",
        validation_alias=AliasChoices("RAGSPACE_LOCAL_EMBEDDING_PROVIDERS"),
        description="onnxruntime execution providers for the local model, comma-separated, in "
        "order of preference; a GPU needs `onnxruntime-gpu` installed in place of `onnxruntime`"
        " and e.g. CUDAExecutionProvider,CPUExecutionProvider (README, Scale out).",
    )
    code_chunk_size: int = Field(
        default=800,
        ge=100,
        validation_alias=AliasChoices("RAGSPACE_CODE_CHUNK_SIZE"),
        description="Largest code chunk (in chunk_size_unit); 800 chars won the eval sweep.",
    )
    prose_chunk_size: int = Field(
        default=600,
        ge=100,
        validation_alias=AliasChoices("RAGSPACE_PROSE_CHUNK_SIZE"),
        description="Largest prose chunk (markdown, text, reST, HTML); smaller docs stay whole.",
    )
    chunk_overlap: int = Field(
        default=100,
        ge=0,
        validation_alias=AliasChoices("RAGSPACE_CHUNK_OVERLAP"),
        description="Overlap when a definition or section itself must be split (max half a chunk).",
    )
    chunk_size_unit: Literal["chars", "tokens"] = Field(
        default="chars",
        validation_alias=AliasChoices("RAGSPACE_CHUNK_SIZE_UNIT"),
        description="Unit of the chunk sizes and overlap: characters or local MiniLM tokens.",
    )
    max_upload_bytes: int = Field(
        default=20 * 1024 * 1024,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_MAX_UPLOAD_BYTES"),
        description="Largest uploaded file accepted, in bytes.",
    )
    zip_max_members: int = Field(
        default=2000,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_ZIP_MAX_MEMBERS"),
        description="Most files read from one uploaded .zip archive.",
    )
    zip_max_total_bytes: int = Field(
        default=200 * 1024 * 1024,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_ZIP_MAX_TOTAL_BYTES"),
        description="Largest total uncompressed size of one .zip archive (zip-bomb guard).",
    )
    upload_text_budget_bytes: int = Field(
        default=64 * 1024 * 1024,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_UPLOAD_TEXT_BUDGET_BYTES"),
        description="Most bytes all files of one upload (files, folder, archives "
        "decompressed) or the text of all pages of one web crawl may read; files and "
        "pages past it are refused unread.",
    )
    github_token: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("GITHUB_TOKEN"),
        description="GitHub token for private repositories and higher rate limits.",
    )
    github_api_url: str = Field(
        default="https://api.github.com",
        validation_alias=AliasChoices("GITHUB_API_URL"),
        description="GitHub REST API base URL (GitHub Enterprise: https://host/api/v3).",
    )
    github_max_files: int = Field(
        default=5000,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_GITHUB_MAX_FILES"),
        description="Most files indexed from one repository after filters.",
    )
    github_max_file_bytes: int = Field(
        default=1024 * 1024,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_GITHUB_MAX_FILE_BYTES"),
        description="Repository files larger than this are skipped.",
    )
    github_max_archive_bytes: int = Field(
        default=500 * 1024 * 1024,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_GITHUB_MAX_ARCHIVE_BYTES"),
        description="Largest repository tarball downloaded.",
    )
    http_timeout_seconds: float = Field(
        default=30.0,
        gt=0,
        validation_alias=AliasChoices("RAGSPACE_HTTP_TIMEOUT_SECONDS"),
        description="Timeout of every GitHub and web request.",
    )
    web_max_pages: int = Field(
        default=500,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_WEB_MAX_PAGES"),
        description="Upper bound on pages fetched from one documentation site.",
    )
    web_max_seconds: float = Field(
        default=600.0,
        gt=0,
        validation_alias=AliasChoices("RAGSPACE_WEB_MAX_SECONDS"),
        description="Time budget of one crawl; pages not fetched by then are skipped.",
    )
    allow_private_urls: bool = Field(
        default=False,
        validation_alias=AliasChoices("RAGSPACE_ALLOW_PRIVATE_URLS"),
        description="Let web sources fetch loopback, private and link-local addresses "
        "(SSRF guard off). Only for a server that may read internal sites.",
    )
    web_concurrency: int = Field(
        default=4,
        ge=1,
        le=16,
        validation_alias=AliasChoices("RAGSPACE_WEB_CONCURRENCY"),
        description="Parallel requests to one documentation site (be polite).",
    )
    max_chunks_per_document: int = Field(
        default=10_000,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_MAX_CHUNKS_PER_DOCUMENT"),
        description="A document that splits into more chunks than this ends in error.",
    )
    worker_threads: int = Field(
        default=1,
        ge=0,
        validation_alias=AliasChoices("RAGSPACE_WORKER_THREADS"),
        description="In-process ingestion workers started by the app; 0 disables them.",
    )
    worker_poll_seconds: float = Field(
        default=2.0,
        gt=0,
        validation_alias=AliasChoices("RAGSPACE_WORKER_POLL_SECONDS"),
        description="How often an idle worker looks for new jobs (other processes' uploads).",
    )
    embedding_concurrency: int = Field(
        default=1,
        ge=1,
        le=32,
        validation_alias=AliasChoices("RAGSPACE_EMBEDDING_CONCURRENCY"),
        description="Embedding batches of one document in flight at once (raise for OpenAI).",
    )
    job_lease_seconds: float = Field(
        default=60.0,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_JOB_LEASE_SECONDS"),
        description="A job whose worker misses heartbeats (every third of this) this long is "
        "taken over by another worker.",
    )
    resync_lease_seconds: float = Field(
        default=1800.0,
        ge=10,
        validation_alias=AliasChoices("RAGSPACE_RESYNC_LEASE_SECONDS"),
        description="A scheduled re-sync whose worker stopped is not run by another worker "
        "for this long; then it runs again at its next due time.",
    )
    github_webhook_secret: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("RAGSPACE_GITHUB_WEBHOOK_SECRET"),
        description="Secret of a GitHub push webhook; when set, POST /webhooks/github accepts "
        "pushes signed with it and re-syncs the matching GitHub sources.",
    )
    job_max_attempts: int = Field(
        default=3,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_JOB_MAX_ATTEMPTS"),
        description="Attempts per ingestion job before the document ends in `error`.",
    )
    job_retry_base_seconds: float = Field(
        default=5.0,
        ge=0,
        validation_alias=AliasChoices("RAGSPACE_JOB_RETRY_BASE_SECONDS"),
        description="First retry delay; doubles per attempt, with 50-100% jitter.",
    )
    job_retry_max_seconds: float = Field(
        default=300.0,
        ge=0,
        validation_alias=AliasChoices("RAGSPACE_JOB_RETRY_MAX_SECONDS"),
        description="Longest delay between two attempts of a job.",
    )

    openai_chat_model: str = Field(
        default="gpt-4o-mini",
        validation_alias=AliasChoices("OPENAI_CHAT_MODEL"),
        description="Chat model for answers, reranking and query rewriting.",
    )
    retrieval_mode: str = Field(
        default="hybrid",
        pattern="^(hybrid|vector|keyword)$",
        validation_alias=AliasChoices("RAGSPACE_RETRIEVAL_MODE"),
        description="Default search: hybrid (vector + full-text, fused), vector or keyword.",
    )
    retrieval_candidates: int = Field(
        default=50,
        ge=1,
        le=1000,
        validation_alias=AliasChoices("RAGSPACE_RETRIEVAL_CANDIDATES"),
        description="Candidates taken from each of vector and full-text search before fusion.",
    )
    fusion: str = Field(
        default="convex",
        pattern="^(convex|rrf)$",
        validation_alias=AliasChoices("RAGSPACE_FUSION"),
        description=(
            "How hybrid search fuses its rankings: convex (each side's scores scaled to 0-1 "
            "over its candidates, weighed by RAGSPACE_VECTOR_SHARE) or rrf (reciprocal rank "
            "fusion with RAGSPACE_RRF_K and RAGSPACE_KEYWORD_WEIGHT)."
        ),
    )
    vector_share: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        validation_alias=AliasChoices("RAGSPACE_VECTOR_SHARE"),
        description="Convex fusion: the vector side's share of a hit's score (0-1).",
    )
    rrf_k: int = Field(
        default=10,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_RRF_K"),
        description="RRF fusion's constant k: score = sum of weight / (k + rank).",
    )
    keyword_weight: float = Field(
        default=1.25,
        ge=0.0,
        le=10.0,
        validation_alias=AliasChoices("RAGSPACE_KEYWORD_WEIGHT"),
        description="RRF fusion: weight of the full-text ranking (vectors weigh 1).",
    )
    hnsw_ef_search: int = Field(
        default=HNSW_EF_SEARCH,
        ge=1,
        le=1000,
        validation_alias=AliasChoices("RAGSPACE_HNSW_EF_SEARCH"),
        description=(
            "HNSW candidate list size at query time, for DocSets too large for an exact scan; "
            "raised as the searched DocSets' share of all chunks shrinks."
        ),
    )
    exact_search_max_chunks: int = Field(
        default=EXACT_SEARCH_MAX_CHUNKS,
        ge=0,
        validation_alias=AliasChoices("RAGSPACE_EXACT_SEARCH_MAX_CHUNKS"),
        description=(
            "Searches over DocSets holding at most this many chunks compare every vector "
            "(exact, whatever else the database holds); larger ones use the HNSW index."
        ),
    )
    min_similarity: float = Field(
        default=0.2,
        ge=-1,
        le=1,
        validation_alias=AliasChoices("RAGSPACE_MIN_SIMILARITY"),
        description="Below this cosine similarity, with no keyword match, nothing is relevant.",
    )
    relevance_floor_prose: float | None = Field(
        default=None,
        ge=0,
        le=1,
        validation_alias=AliasChoices("RAGSPACE_RELEVANCE_FLOOR_PROSE"),
        description=(
            "An answer says nothing in the DocSets answers the question when no prose hit "
            "reaches this cosine similarity and no code hit reaches the code floor. Unset: "
            f"{LOCAL_RELEVANCE_FLOOR_PROSE} with the local model (calibrated with "
            "bench/relevance_floor.py), off with OpenAI embeddings; 0 turns it off."
        ),
    )
    relevance_floor_code: float | None = Field(
        default=None,
        ge=0,
        le=1,
        validation_alias=AliasChoices("RAGSPACE_RELEVANCE_FLOOR_CODE"),
        description=(
            f"The relevance floor for code hits. Unset: {LOCAL_RELEVANCE_FLOOR_CODE} with the "
            "local model, off with OpenAI embeddings; 0 turns it off."
        ),
    )
    rerank: bool = Field(
        default=True,
        validation_alias=AliasChoices("RAGSPACE_RERANK"),
        description="Rerank retrieved passages with the chat model (needs OPENAI_API_KEY).",
    )
    rerank_candidates: int = Field(
        default=20,
        ge=2,
        le=50,
        validation_alias=AliasChoices("RAGSPACE_RERANK_CANDIDATES"),
        description="How many fused results the chat model reorders.",
    )
    rerank_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        validation_alias=AliasChoices("RAGSPACE_RERANK_TIMEOUT_SECONDS"),
        description="Time budget for reranking; past it the fused order is used.",
    )
    context_chars: int = Field(
        default=12_000,
        ge=1000,
        validation_alias=AliasChoices("RAGSPACE_CONTEXT_CHARS"),
        description="Budget (characters) of passages given to the chat model per answer.",
    )

    auth: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("RAGSPACE_AUTH"),
        description="Login for the web app, its API and MCP: user:password pairs, comma-separated.",
    )
    read_only: bool = Field(
        default=False,
        validation_alias=AliasChoices("RAGSPACE_READ_ONLY"),
        description="Refuse every change (DocSets, sources, re-embedding); search and chat stay.",
    )
    mcp_server: bool = Field(
        default=True,
        validation_alias=AliasChoices("RAGSPACE_MCP_SERVER"),
        description="Serve the MCP tools (streamable HTTP) at /gradio_api/mcp/.",
    )
    session_capacity: int = Field(
        default=200,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_SESSION_CAPACITY"),
        description=(
            "Most browser and API sessions whose state the app keeps in memory (about 0.3 MB "
            "each); beyond it the least recently used is forgotten."
        ),
    )

    host: str = Field(
        default="127.0.0.1",
        validation_alias=AliasChoices("RAGSPACE_HOST", "GRADIO_SERVER_NAME"),
        description="Interface the web app listens on.",
    )
    port: int = Field(
        default=7860,
        ge=1,
        le=65535,
        validation_alias=AliasChoices("RAGSPACE_PORT", "PORT", "GRADIO_SERVER_PORT"),
        description="Port the web app listens on.",
    )
    public_url: str = Field(
        default="",
        validation_alias=AliasChoices("RAGSPACE_PUBLIC_URL"),
        description="Address people open the app at (e.g. https://you-ragspace.hf.space); the"
        " `view_url` of CLI and MCP hits opens the cited lines there. Default: http://HOST:PORT.",
    )
    log_level: str = Field(
        default="INFO",
        validation_alias=AliasChoices("RAGSPACE_LOG_LEVEL"),
        description="Python logging level.",
    )

    @property
    def app_url(self) -> str:
        """Where the web app is opened: RAGSPACE_PUBLIC_URL, else its host and port."""
        if self.public_url:
            return self.public_url.rstrip("/")
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"

    @property
    def relevance_floors(self) -> tuple[float, float]:
        """The (prose, code) relevance floors in force: each setting, else the local model's
        calibrated floor (OpenAI embeddings have another cosine scale: no floor)."""
        prose, code = (
            (0.0, 0.0)
            if self.uses_openai
            else (LOCAL_RELEVANCE_FLOOR_PROSE, LOCAL_RELEVANCE_FLOOR_CODE)
        )
        return (
            prose if self.relevance_floor_prose is None else self.relevance_floor_prose,
            code if self.relevance_floor_code is None else self.relevance_floor_code,
        )

    @property
    def uses_openai(self) -> bool:
        """True when an OpenAI API key is configured."""
        return self.openai_api_key is not None and bool(self.openai_api_key.get_secret_value())


def load_settings(**overrides: Any) -> Settings:
    """Read settings from the environment and `.env`, with explicit overrides on top."""
    return Settings(**overrides)
