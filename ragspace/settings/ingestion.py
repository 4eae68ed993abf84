"""Ingestion workers: how many, how often they poll, leases and retries."""

from pydantic import Field

from ragspace.settings.area import AreaSettings


class IngestionSettings(AreaSettings):
    """Ingestion workers: how many, how often they poll, leases and retries."""

    worker_threads: int = Field(
        default=1,
        ge=0,
        description="In-process ingestion workers started by the app; 0 disables them. Two "
        "ingest a big upload faster on an idle machine but slow the searches made meanwhile "
        "(docs/benchmarks.md, Scale).",
    )
    worker_poll_seconds: float = Field(
        default=2.0,
        gt=0,
        description="How often an idle worker looks for new jobs (other processes' uploads).",
    )
    job_lease_seconds: float = Field(
        default=60.0,
        ge=1,
        description="A job whose worker misses heartbeats (every third of this) this long is "
        "taken over by another worker.",
    )
    resync_lease_seconds: float = Field(
        default=1800.0,
        ge=10,
        description="A scheduled re-sync whose worker stopped is not run by another worker "
        "for this long; then it runs again at its next due time.",
    )
    job_max_attempts: int = Field(
        default=3,
        ge=1,
        description="Attempts per ingestion job before the document ends in `error`.",
    )
    job_retry_base_seconds: float = Field(
        default=5.0,
        ge=0,
        description="First retry delay; doubles per attempt, with 50-100% jitter.",
    )
    job_retry_max_seconds: float = Field(
        default=300.0,
        ge=0,
        description="Longest delay between two attempts of a job.",
    )
