"""The only package that speaks SQL: server start-up, migrations and queries."""

from ragspace.store.database import Database
from ragspace.store.jobs import ClaimedJob, JobQueue, JobResult
from ragspace.store.store import ClaimedDocument, NewDocument, Store

__all__ = [
    "ClaimedDocument",
    "ClaimedJob",
    "Database",
    "JobQueue",
    "JobResult",
    "NewDocument",
    "Store",
]
