"""Where the data lives: Postgres (embedded or DATABASE_URL) and its connections."""

from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr

from ragspace.settings.area import PROJECT_ROOT, AreaSettings


class DatabaseSettings(AreaSettings):
    """Where the data lives: Postgres (embedded or DATABASE_URL) and its connections."""

    database_url: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("DATABASE_URL"),
        description="Postgres connection string (e.g. Supabase). Unset: embedded Postgres.",
    )
    data_dir: Path = Field(
        default=Path(".ragspace"),
        description="Folder for the embedded Postgres data and other local state.",
    )
    embedded_shared_buffers: str = Field(
        default="1GB",
        pattern=r"^[1-9][0-9]*(kB|MB|GB)$",
        description=(
            "Buffer cache of the embedded Postgres (e.g. 512MB, 1GB); taken at its next start. "
            "Keeps the HNSW and full-text indexes of ~100,000 chunks in memory. "
            "Ignored with DATABASE_URL."
        ),
    )
    migrations_dir: Path = Field(
        default=PROJECT_ROOT / "supabase" / "migrations",
        description="Folder of the SQL migrations applied at start-up.",
    )
    db_pool_max_size: int = Field(
        default=10,
        ge=1,
        description="Maximum number of pooled database connections.",
    )
    db_timeout_seconds: float = Field(
        default=5.0,
        ge=1.0,
        description=(
            "Longest wait for a database connection before a request fails with "
            "'database unavailable' (also the connect timeout)."
        ),
    )
