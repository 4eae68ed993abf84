"""Configuration read from the environment and `.env`; every field is in `.env.example`."""

from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    """All RAGSpace settings. Secrets are `SecretStr` so they print redacted."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", populate_by_name=True
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
        description="Texts per embedding call.",
    )
    local_embedding_threads: int = Field(
        default=0,
        ge=0,
        validation_alias=AliasChoices("RAGSPACE_LOCAL_EMBEDDING_THREADS"),
        description="onnxruntime intra-op threads for the local embedder; 0 = all cores.",
    )

    code_chunk_size: int = Field(
        default=1200,
        ge=100,
        validation_alias=AliasChoices("RAGSPACE_CODE_CHUNK_SIZE"),
        description="Target chunk size in characters for source code.",
    )
    prose_chunk_size: int = Field(
        default=1000,
        ge=100,
        validation_alias=AliasChoices("RAGSPACE_PROSE_CHUNK_SIZE"),
        description="Target chunk size in characters for prose (markdown, text, reST).",
    )
    chunk_overlap: int = Field(
        default=100,
        ge=0,
        validation_alias=AliasChoices("RAGSPACE_CHUNK_OVERLAP"),
        description="Characters shared by consecutive chunks of one document.",
    )
    max_upload_bytes: int = Field(
        default=20 * 1024 * 1024,
        ge=1,
        validation_alias=AliasChoices("RAGSPACE_MAX_UPLOAD_BYTES"),
        description="Largest uploaded file accepted, in bytes.",
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
    log_level: str = Field(
        default="INFO",
        validation_alias=AliasChoices("RAGSPACE_LOG_LEVEL"),
        description="Python logging level.",
    )

    @property
    def uses_openai(self) -> bool:
        """True when an OpenAI API key is configured."""
        return self.openai_api_key is not None and bool(self.openai_api_key.get_secret_value())


def load_settings(**overrides: Any) -> Settings:
    """Read settings from the environment and `.env`, with explicit overrides on top."""
    return Settings(**overrides)
