"""The only package that speaks SQL: server start-up, migrations and queries."""

from ragspace.store.database import Database
from ragspace.store.jobs import ClaimedJob, JobQueue, JobResult
from ragspace.store.search import SearchRequest
from ragspace.store.store import (
    NewDocument,
    Store,
    StoredDocument,
    SyncResult,
)

__all__ = [
    "ClaimedJob",
    "Database",
    "JobQueue",
    "JobResult",
    "NewDocument",
    "SearchRequest",
    "Store",
    "StoredDocument",
    "SyncResult",
]
