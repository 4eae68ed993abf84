"""Requests to (re-)embed documents, and how far a DocSet's re-embedding is. All their SQL."""

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from ragspace.store.jobs import after_final_state
from ragspace.store.write_lock import lock_docset_writes, lock_writes_of_documents


class ReembedRequests:
    """Documents queued for embedding again: chosen ones, failed ones, a whole DocSet."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]]) -> None:
        self._pool = pool

    def enqueue(self, document_ids: Sequence[int], force: bool) -> int:
        """Queue a (re-)embed of these documents; returns how many were queued."""
        with self._pool.connection() as conn, conn.transaction():
            lock_writes_of_documents(conn, document_ids)
            return enqueue_jobs(conn, document_ids, force)

    def failed_documents(self, docset_ids: Sequence[int] | None) -> list[int]:
        """Ids of documents in `error`, optionally within some DocSets."""
        with self._pool.connection() as conn:
            rows = conn.execute(
                "select id from documents where embedding_status = 'error'"
                " and (%s::bigint[] is null or docset_id = any(%s::bigint[])) order by id",
                (None if docset_ids is None else list(docset_ids),) * 2,
            ).fetchall()
        return [int(row[0]) for row in rows]

    def reembed_docset(self, docset_id: int, model: str, dimensions: int) -> int:
        """Force a re-embed of every document; a new model replaces the old once all are done."""
        with self._pool.connection() as conn, conn.transaction():
            lock_docset_writes(conn, docset_id)
            conn.execute(
                "update docsets set target_embedding_model = case when embedding_model = %s"
                " then null else %s end, target_embedding_dimensions = case"
                " when embedding_model = %s then null else %s end, updated_at = now()"
                " where id = %s",
                (model, model, model, dimensions, docset_id),
            )
            rows = conn.execute(
                "select id from documents where docset_id = %s", (docset_id,)
            ).fetchall()
            queued = enqueue_jobs(conn, [int(row[0]) for row in rows], force=True)
            after_final_state(conn, docset_id)  # an empty DocSet switches at once
        return queued

    def docset_progress(self, docset_id: int) -> tuple[int, int]:
        """(documents done, documents in total) of a DocSet."""
        with self._pool.connection() as conn:
            row = conn.execute(
                "select count(*) filter (where embedding_status = 'done'), count(*)"
                " from documents where docset_id = %s",
                (docset_id,),
            ).fetchone()
        assert row is not None
        return int(row[0]), int(row[1])


def enqueue_jobs(conn: psycopg.Connection[Any], document_ids: Sequence[int], force: bool) -> int:
    """Queue (re-)embed jobs for these documents in the caller's transaction; how many."""
    # the job first: the documents' pending trigger then finds it and adds nothing
    queued = conn.execute(
        """
        insert into ingestion_jobs (document_id, docset_id, kind, force)
        select id, docset_id, 'reembed', %s from documents where id = any(%s)
        on conflict (document_id) where state = 'queued'
        do update set force = ingestion_jobs.force or excluded.force, kind = 'reembed',
            run_after = least(ingestion_jobs.run_after, now()), updated_at = now()
        """,
        (force, list(document_ids)),
    ).rowcount
    conn.execute(
        "update documents set embedding_status = 'pending', error_message = null,"
        " chunks_embedded = 0, updated_at = now()"
        " where id = any(%s) and embedding_status <> 'processing'",
        (list(document_ids),),
    )
    return queued
