"""The `sources` table and a sync's changes to a source's documents."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from ragspace.errors import NotFoundError
from ragspace.models import (
    NewDocument,
    Source,
    SourceKind,
    SourceOptions,
    StoredDocument,
    stored_options,
)
from ragspace.store.document_rows import upsert_document
from ragspace.store.write_lock import lock_docset_writes

SOURCE_COLUMNS = (
    "id, docset_id, kind, location, options, created_at, sync_state, error_message,"
    " last_synced_at, resync_interval, next_sync_at"
)


@dataclass(frozen=True)
class SyncResult:
    """What a sync changed: upserted document ids, new or changed paths, removed paths."""

    document_ids: list[int]
    changed_paths: list[str]
    removed_paths: list[str]


class SourceRows:
    """The `sources` table and a sync's changes to a source's documents."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]]) -> None:
        self._pool = pool

    def create(
        self,
        docset_id: int,
        kind: SourceKind,
        location: str,
        options: SourceOptions | None = None,
    ) -> Source:
        """Record where documents of a DocSet come from (options stored as JSON)."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            row = cur.execute(
                "insert into sources (docset_id, kind, location, options) values (%s, %s, %s, %s)"
                f" returning {SOURCE_COLUMNS}",
                (docset_id, kind.value, location, Jsonb(stored_options(options))),
            ).fetchone()
        assert row is not None
        return Source.model_validate(row)

    def get(self, source_id: int) -> Source:
        """One source by id, with its last sync state."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            row = cur.execute(
                f"select {SOURCE_COLUMNS} from sources where id = %s".encode(), (source_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"Source #{source_id} does not exist.")
        return Source.model_validate(row)

    def of_docset(self, docset_id: int) -> list[Source]:
        """The sources of a DocSet, oldest first."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                f"select {SOURCE_COLUMNS} from sources where docset_id = %s order by id".encode(),
                (docset_id,),
            ).fetchall()
        return [Source.model_validate(row) for row in rows]

    def documents(self, source_id: int) -> dict[str, StoredDocument]:
        """What a source holds now, by path: content hash, status and metadata."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                "select id, path, content_hash, embedding_status, metadata from documents"
                " where source_id = %s",
                (source_id,),
            ).fetchall()
        return {row["path"]: StoredDocument(**row) for row in rows}

    def apply_sync(
        self,
        docset_id: int,
        source_id: int,
        documents: Sequence[NewDocument],
        kept_paths: Sequence[str],
        sync_state: dict[str, Any],
        ref: str = "",
    ) -> SyncResult:
        """In one transaction: upsert fetched documents, delete the source's vanished ones.

        `ref` is the GitHub ref the source is synced at: its documents are that version's
        ('' for sources without versions).
        """
        keep = {doc.path for doc in documents} | set(kept_paths)
        with self._pool.connection() as conn, conn.transaction():
            lock_docset_writes(conn, docset_id)
            before = {
                str(r[0]): str(r[1])
                for r in conn.execute(
                    "select path, content_hash from documents where source_id = %s", (source_id,)
                ).fetchall()
            }
            ids = [upsert_document(conn, docset_id, source_id, doc, ref) for doc in documents]
            removed = [path for path in before if path not in keep]
            conn.execute(
                "delete from documents where source_id = %s and path = any(%s)",
                (source_id, removed),
            )
            conn.execute(
                "update sources set sync_state = %s, error_message = null,"
                " last_synced_at = now(), updated_at = now() where id = %s",
                (Jsonb(sync_state), source_id),
            )
        changed = [d.path for d in documents if before.get(d.path) != d.content_hash]
        return SyncResult(document_ids=ids, changed_paths=changed, removed_paths=sorted(removed))

    def record_error(self, source_id: int, message: str) -> None:
        """Remember why the last sync of a source failed; its documents stay as they were."""
        with self._pool.connection() as conn:
            conn.execute(
                "update sources set error_message = %s, updated_at = now() where id = %s",
                (message, source_id),
            )

    def remove(self, source_id: int) -> None:
        """Forget a source whose first documents could not be stored (none of them were)."""
        with self._pool.connection() as conn:
            conn.execute("delete from sources where id = %s", (source_id,))
