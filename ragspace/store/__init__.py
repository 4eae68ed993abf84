"""The only package that speaks SQL: server start-up, migrations and queries."""

from ragspace.store.database import Database
from ragspace.store.store import (
    ClaimedDocument,
    NewDocument,
    SearchRequest,
    Store,
    StoredDocument,
    SyncResult,
)

__all__ = [
    "ClaimedDocument",
    "Database",
    "NewDocument",
    "SearchRequest",
    "Store",
    "StoredDocument",
    "SyncResult",
]
