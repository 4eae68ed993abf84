"""Scheduled re-sync of sources: intervals, due sources claimed once, push-triggered syncs."""

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from ragspace.errors import NotFoundError
from ragspace.models import Source, SourceKind
from ragspace.store.source_rows import SOURCE_COLUMNS

_GITHUB_KINDS = [SourceKind.GITHUB_REPO.value, SourceKind.GITHUB_FILE.value]


class SyncSchedule:
    """When each source re-syncs next, and which worker runs a due sync (one only)."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]]) -> None:
        self._pool = pool

    def set_interval(self, source_id: int, interval: timedelta | None) -> Source:
        """Re-sync the source every `interval` from now on (None: never on a schedule)."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            row = cur.execute(
                "update sources set resync_interval = %(every)s::interval,"
                " next_sync_at = now() + %(every)s::interval, updated_at = now()"
                f" where id = %(id)s and kind <> 'upload' returning {SOURCE_COLUMNS}".encode(),
                {"every": interval, "id": source_id},
            ).fetchone()
        if row is None:
            raise NotFoundError(f"Source #{source_id} does not exist or is an upload.")
        return Source.model_validate(row)

    def claim_due(self, owner: str, lease_seconds: float) -> Source | None:
        """Take the next due source no other worker is syncing; its next run moves on at once.

        The next due time is set when the sync starts, so a failing source is tried again
        at its next interval, never in a tight loop; a push during the sync makes it due again.
        """
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            row = cur.execute(
                """
                update sources set
                    next_sync_at = now() + resync_interval,
                    sync_claimed_by = %(owner)s,
                    sync_claimed_until = now() + make_interval(secs => %(lease)s),
                    updated_at = now()
                where id = (
                    select id from sources
                    where next_sync_at <= now() and kind <> 'upload'
                      and (sync_claimed_until is null or sync_claimed_until < now())
                    order by next_sync_at, id
                    for update skip locked limit 1)
                """
                f"returning {SOURCE_COLUMNS}".encode(),
                {"owner": owner, "lease": lease_seconds},
            ).fetchone()
        return None if row is None else Source.model_validate(row)

    def release(self, source_id: int, owner: str) -> None:
        """End this worker's claim on a source (its sync finished or failed)."""
        with self._pool.connection() as conn:
            conn.execute(
                "update sources set sync_claimed_by = null, sync_claimed_until = null"
                " where id = %s and sync_claimed_by = %s",
                (source_id, owner),
            )

    def github_sources(self) -> list[Source]:
        """Every GitHub repository and file source, of every DocSet."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                f"select {SOURCE_COLUMNS} from sources where kind = any(%s) order by id".encode(),
                (_GITHUB_KINDS,),
            ).fetchall()
        return [Source.model_validate(row) for row in rows]

    def make_due(self, source_ids: Sequence[int]) -> list[int]:
        """Queue a re-sync of these sources now (the next idle worker runs it); their ids."""
        with self._pool.connection() as conn:
            rows = conn.execute(
                "update sources set next_sync_at = now(), updated_at = now()"
                " where id = any(%s) and kind <> 'upload' returning id",
                (list(source_ids),),
            ).fetchall()
        return sorted(int(row[0]) for row in rows)
