"""The only package that speaks SQL: server start-up, migrations and queries."""

from ragspace.models import NewDocument, StoredDocument
from ragspace.store.database import Database
from ragspace.store.deliveries import DeliveryLog
from ragspace.store.jobs import ClaimedJob, JobQueue, JobResult
from ragspace.store.schedule import SyncSchedule
from ragspace.store.search_request import SearchRequest
from ragspace.store.store import Store, SyncResult

__all__ = [
    "ClaimedJob",
    "Database",
    "DeliveryLog",
    "JobQueue",
    "JobResult",
    "NewDocument",
    "SearchRequest",
    "Store",
    "StoredDocument",
    "SyncResult",
    "SyncSchedule",
]
