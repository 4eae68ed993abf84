"""The ingestion job queue as workers see it: claim, lease, complete, fail. All its SQL.

The embedding cache is `embedding_cache.py`; asking for (re-)embedding, `reembed_requests.py`.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from ragspace.models import ChunkDraft
from ragspace.store.chunk_rows import ChunkSet, store_vector_pass
from ragspace.store.embedding_cache import Vector, store_vectors
from ragspace.store.symbols import replace_symbols
from ragspace.store.write_lock import lock_docset_writes
from ragspace.symbols.records import FileSymbols

_REQUEUE_OR_FAIL = """
    state = case
        when exists (select 1 from ingestion_jobs q
                     where q.document_id = j.document_id and q.state = 'queued') then 'done'
        when {give_up} then 'error' else 'queued' end
"""
# a job handed back to the queue, its attempt not counted (an outage, a keyword pass done)
HANDED_BACK = f"""{_REQUEUE_OR_FAIL.format(give_up="false")},
    attempts = greatest(j.attempts - 1, 0), lease_owner = null,
    lease_expires_at = null, run_after = now(), updated_at = now()"""


@dataclass(frozen=True)
class ClaimedJob:
    """A running job with the document it is about and the model it must embed with."""

    id: int
    document_id: int
    docset_id: int
    kind: str
    force: bool
    attempts: int
    max_attempts: int
    owner: str
    path: str
    title: str
    language: str
    content: str
    metadata: dict[str, Any]
    embedding_model: str
    content_hash: str = ""
    # how far the document's current content is searchable: None (not at all), 'keywords'
    # (its chunks are in, without vectors) or 'quality' (with vectors)
    vector_tier: str | None = None


@dataclass(frozen=True)
class JobResult:
    """What a finished job stores: the chunk set, its vectors and the new cache entries."""

    chunks: Sequence[ChunkDraft]
    vectors: Vector
    content_hashes: Sequence[str]
    model: str
    new_cache: dict[str, Vector]
    texts_cached: int
    symbols: FileSymbols | None = None  # the symbol table rows, swapped in with the chunks
    # the document's rows already come from this content (its keyword pass stored them):
    # left as they are, `symbols` unused
    symbols_stored: bool = False


class JobQueue:
    """Jobs claimed with FOR UPDATE SKIP LOCKED under a lease kept alive by heartbeats."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]]) -> None:
        self._pool = pool

    # Claiming and leases

    def reclaim_expired(self) -> int:
        """Requeue (or fail, when out of attempts) jobs whose worker stopped heartbeating."""
        query = f"""
            with expired as (
                update ingestion_jobs j set {_REQUEUE_OR_FAIL.format(give_up="attempts >= max_attempts")},
                    last_error = 'The worker ' || coalesce(lease_owner, '?')
                        || ' stopped responding while processing this document.',
                    run_after = now(), lease_expires_at = null, updated_at = now(),
                    finished_at = case when attempts >= max_attempts then now() end
                where j.state = 'running' and j.lease_expires_at < now()
                  and j.docset_id = any(%s)
                returning j.document_id, j.docset_id, j.state, j.last_error)
            update documents d set
                embedding_status = case when e.state = 'error' then 'error' else 'pending' end,
                error_message = case when e.state = 'error' then e.last_error end,
                updated_at = now()
            from expired e where d.id = e.document_id
            returning d.docset_id, e.state
            """  # noqa: E501
        with self._pool.connection() as conn, conn.transaction():
            docsets = [
                int(row[0])
                for row in conn.execute(
                    "select distinct docset_id from ingestion_jobs"
                    " where state = 'running' and lease_expires_at < now() order by 1"
                )
            ]
            if not docsets:
                return 0
            for docset_id in docsets:  # in order, so two reclaims cannot wait on each other
                lock_docset_writes(conn, docset_id)
            rows = conn.execute(query.encode(), (docsets,)).fetchall()
            for docset_id, state in rows:
                if state == "error":
                    after_final_state(conn, int(docset_id))
        return len(rows)

    def claim(
        self, owner: str, lease_seconds: float, max_attempts: int, keywords_first: bool = False
    ) -> ClaimedJob | None:
        """Take the next due job whose document no other worker is processing.

        With `keywords_first`, documents whose current content is not searchable yet come
        first: their keyword pass (chunks without vectors) takes milliseconds, so every new
        document is found by keywords before any document gets its (slow) vector pass.
        """
        parameters = {"owner": owner, "lease": lease_seconds, "max": max_attempts, "limit": 1}
        with (
            self._pool.connection() as conn,
            conn.transaction(),
            conn.cursor(row_factory=dict_row) as cur,
        ):
            found: list[int] = []
            if keywords_first:  # two steps, each an index walk: one order by both sorted all
                walk_the_queue(cur)
                found = due_jobs(cur, "and d.vector_tier is null", parameters)
            if not found:
                found = due_jobs(cur, "", parameters)
            jobs = start_jobs(cur, found, parameters)
        return jobs[0] if jobs else None

    def heartbeat(self, job: ClaimedJob, lease_seconds: float) -> bool:
        """Extend the lease; False when the job is no longer this worker's."""
        with self._pool.connection() as conn:
            return extend_leases(conn, [job], lease_seconds) == 1

    def release(self, job: ClaimedJob) -> bool:
        """Hand a job interrupted by a database outage back to the queue, attempt not counted."""
        query = f"""
            with released as (
                update ingestion_jobs j set {HANDED_BACK}
                where j.id = %s and j.lease_owner = %s and j.state = 'running'
                returning j.document_id)
            update documents d set embedding_status = 'pending', updated_at = now()
            from released r where d.id = r.document_id
            """
        with self._pool.connection() as conn, conn.transaction():
            lock_docset_writes(conn, job.docset_id)
            return conn.execute(query.encode(), (job.id, job.owner)).rowcount == 1

    def set_progress(self, job: ClaimedJob, embedded: int, total: int) -> None:
        """Record how many of the document's chunks have vectors."""
        with self._pool.connection() as conn:
            conn.execute(
                "update documents set chunks_embedded = %s, chunks_total = %s, updated_at = now()"
                " where id = %s",
                (embedded, total, job.document_id),
            )

    # Finishing

    def complete(self, job: ClaimedJob, result: JobResult) -> bool:
        """Swap in the chunk set, fill the cache and finish the job in one transaction."""
        with self._pool.connection() as conn, conn.transaction():
            lock_docset_writes(conn, job.docset_id)
            if not _holds_lease(conn, job):
                return False
            if not result.symbols_stored:  # first: the chunk swap rewrites the card from both
                replace_symbols(conn, job.document_id, job.docset_id, result.symbols)
            chunks = ChunkSet(
                job.document_id,
                job.docset_id,
                result.chunks,
                result.vectors,
                result.content_hashes,
            )
            store_vector_pass(conn, chunks, symbols_renewed=not result.symbols_stored)
            store_vectors(conn, result.model, result.new_cache, overwrite=job.force)
            count = len(result.chunks)
            conn.execute(
                """
                update documents d set embedding_status = case when exists (
                        select 1 from ingestion_jobs q
                        where q.document_id = d.id and q.state = 'queued')
                    then 'pending' else 'done' end,
                    vector_tier = case when d.content_hash = %s then 'quality'
                                  else d.vector_tier end,
                    error_message = null, chunk_count = %s, chunks_embedded = %s,
                    chunks_total = %s, finished_at = now(), updated_at = now()
                where d.id = %s
                """,
                (job.content_hash, count, count, count, job.document_id),
            )
            conn.execute(
                "update ingestion_jobs set state = 'done', last_error = null, finished_at = now(),"
                " lease_expires_at = null, texts_embedded = %s, texts_cached = %s,"
                " updated_at = now() where id = %s",
                (len(result.new_cache), result.texts_cached, job.id),
            )
            after_final_state(conn, job.docset_id)
        return True

    def fail(self, job: ClaimedJob, message: str, retry_in: float | None) -> str:
        """Requeue after `retry_in` seconds, or (None) end in `error`; returns the new state."""
        give_up = "true" if retry_in is None else "false"
        with self._pool.connection() as conn, conn.transaction():
            lock_docset_writes(conn, job.docset_id)
            if not _holds_lease(conn, job):
                return "lost"
            row = conn.execute(
                f"""
                update ingestion_jobs j set {_REQUEUE_OR_FAIL.format(give_up=give_up)},
                    last_error = %s, lease_expires_at = null, updated_at = now(),
                    run_after = now() + make_interval(secs => %s),
                    finished_at = case when {give_up} then now() end
                where j.id = %s returning j.state
                """.encode(),
                (message, retry_in or 0.0, job.id),
            ).fetchone()
            assert row is not None
            state = str(row[0])
            final = state == "error"
            conn.execute(
                "update documents set embedding_status = %s, error_message = %s,"
                " chunks_embedded = 0, updated_at = now(),"
                " finished_at = case when %s then now() end where id = %s",
                ("error" if final else "pending", message, final, job.document_id),
            )
            if final:
                # mid model switch, old-model chunks must not outlive the switch
                conn.execute(
                    "with gone as (delete from chunks c using docsets ds"
                    " where c.document_id = %s and ds.id = c.docset_id"
                    " and ds.target_embedding_model is not null returning c.document_id)"
                    " update documents set chunk_count = 0"
                    " where id = %s and exists (select 1 from gone)",
                    (job.document_id, job.document_id),
                )
                after_final_state(conn, job.docset_id)
        return state


def walk_the_queue(cur: psycopg.Cursor[Any]) -> None:
    """Plan the claim as a walk of the queue index that stops at the first match, even before
    the tables have statistics: right after a bulk upload Postgres has none and would sort
    every queued job instead (measured, 3,000 jobs: 15-29 ms a claim instead of 0.7 ms)."""
    cur.execute("set local enable_sort = off")
    cur.execute("set local enable_bitmapscan = off")


def due_query(only: str) -> bytes:
    """The next due jobs (`only`: a further condition on their document) with their
    documents' sizes, locked, in queue order (`ingestion_jobs_queue_idx`), so the first
    `limit` matches end the walk.

    The job's document row is locked with the job, and a job whose document another
    transaction holds is skipped: a claim then never waits while holding a job that a sync
    of its document waits for (the sync's new queued job checks the job's index entry), so
    the two cannot deadlock; the skipped job is claimed once the sync has committed."""
    return f"""
        select j.id, octet_length(d.content) as size from ingestion_jobs j
        join documents d on d.id = j.document_id
        where j.state = 'queued' and j.run_after <= now() {only}
          and not exists (select 1 from ingestion_jobs r
                          where r.document_id = j.document_id and r.state = 'running')
        order by j.run_after, j.id
        for update of j, d skip locked limit %(limit)s
        """.encode()


def due_jobs(
    cur: psycopg.Cursor[Any], only: str, parameters: dict[str, Any], max_bytes: int = 0
) -> list[int]:
    """Lock the next due jobs (up to `parameters['limit']`); with `max_bytes`, only as many
    as fit that much content, and always the first."""
    rows = cur.execute(due_query(only), parameters).fetchall()
    chosen: list[int] = []
    size = 0
    for row in rows:
        size += int(row["size"] or 0)
        if chosen and max_bytes and size > max_bytes:
            break
        chosen.append(int(row["id"]))
    return chosen


_START_JOBS = b"""
    update ingestion_jobs j set state = 'running', attempts = j.attempts + 1,
        max_attempts = %(max)s, lease_owner = %(owner)s,
        lease_expires_at = now() + make_interval(secs => %(lease)s),
        heartbeat_at = now(), started_at = now(), updated_at = now()
    where j.id = any(%(ids)s)
    returning j.id, j.document_id, j.docset_id, j.kind, j.force, j.attempts, j.max_attempts
"""
_START_DOCUMENTS = b"""
    update documents d set embedding_status = 'processing', started_at = now(),
        finished_at = null, chunks_embedded = 0, chunks_total = 0, updated_at = now()
    from docsets ds
    where ds.id = d.docset_id and d.id = any(%s)
    returning d.id, d.path, d.title, d.language, d.content, d.metadata, d.content_hash,
        d.vector_tier,
        coalesce(ds.target_embedding_model, ds.embedding_model) as embedding_model
"""


def start_jobs(
    cur: psycopg.Cursor[Any], job_ids: Sequence[int], parameters: dict[str, Any]
) -> list[ClaimedJob]:
    """Mark the locked jobs running under `parameters['owner']`'s lease and their documents
    processing; the claimed jobs in queue order."""
    if not job_ids:
        return []
    jobs = cur.execute(_START_JOBS, {**parameters, "ids": list(job_ids)}).fetchall()
    documents = cur.execute(_START_DOCUMENTS, ([job["document_id"] for job in jobs],))
    by_id = {row.pop("id"): row for row in documents.fetchall()}
    order = {job_id: place for place, job_id in enumerate(job_ids)}
    jobs.sort(key=lambda job: order[job["id"]])
    # the job's foreign key keeps the document
    return [
        ClaimedJob(owner=parameters["owner"], **job, **by_id[job["document_id"]]) for job in jobs
    ]


def _holds_lease(conn: psycopg.Connection[Any], job: ClaimedJob) -> bool:
    """Lock the job row; True if this worker still owns it (a reclaimed job must not write)."""
    return job.id in held_leases(conn, [job])


def held_leases(conn: psycopg.Connection[Any], jobs: Sequence[ClaimedJob]) -> set[int]:
    """Lock the jobs' rows (in id order); the ids of those their owners still hold."""
    rows = conn.execute(
        "select j.id from ingestion_jobs j"
        " join unnest(%s::bigint[], %s::text[]) as mine(id, owner)"
        " on j.id = mine.id and j.lease_owner = mine.owner"
        " where j.state = 'running' order by j.id for update of j",
        ([job.id for job in jobs], [job.owner for job in jobs]),
    ).fetchall()
    return {int(row[0]) for row in rows}


def extend_leases(
    conn: psycopg.Connection[Any], jobs: Sequence[ClaimedJob], lease_seconds: float
) -> int:
    """Extend the leases their owners still hold, in one statement; how many were."""
    return conn.execute(
        "update ingestion_jobs j set heartbeat_at = now(), updated_at = now(),"
        " lease_expires_at = now() + make_interval(secs => %s)"
        " from unnest(%s::bigint[], %s::text[]) as mine(id, owner)"
        " where j.id = mine.id and j.lease_owner = mine.owner and j.state = 'running'",
        (lease_seconds, [job.id for job in jobs], [job.owner for job in jobs]),
    ).rowcount


def after_final_state(conn: psycopg.Connection[Any], docset_id: int) -> None:
    """Finish a DocSet's model switch once none of its documents waits or runs."""
    conn.execute(
        """
        update docsets ds set embedding_model = ds.target_embedding_model,
            embedding_dimensions = ds.target_embedding_dimensions,
            target_embedding_model = null, target_embedding_dimensions = null,
            updated_at = now()
        where ds.id = %s and ds.target_embedding_model is not null
          and not exists (select 1 from documents d where d.docset_id = ds.id
                          and d.embedding_status in ('pending', 'processing'))
          and not exists (select 1 from ingestion_jobs j where j.docset_id = ds.id
                          and j.state in ('queued', 'running'))
        """,
        (docset_id,),
    )
