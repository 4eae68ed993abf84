"""The only package that speaks SQL: server start-up, migrations and queries."""

from ragspace.models import NewDocument, StoredDocument
from ragspace.store.database import Database
from ragspace.store.deliveries import DeliveryLog
from ragspace.store.embedding_cache import EmbeddingCache
from ragspace.store.jobs import ClaimedJob, JobQueue, JobResult
from ragspace.store.reembed_requests import ReembedRequests
from ragspace.store.schedule import SyncSchedule
from ragspace.store.search_request import SearchRequest
from ragspace.store.source_rows import SyncResult
from ragspace.store.store import Store

__all__ = [
    "ClaimedJob",
    "Database",
    "DeliveryLog",
    "EmbeddingCache",
    "JobQueue",
    "JobResult",
    "NewDocument",
    "ReembedRequests",
    "SearchRequest",
    "Store",
    "StoredDocument",
    "SyncResult",
    "SyncSchedule",
]
