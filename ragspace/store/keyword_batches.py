"""Keyword passes in batches: new documents' chunks stored without vectors (found by
keywords) and their jobs queued again for the vector pass, many documents a claim and a
transaction.

One job and one transaction a document cost twice the database time of one for all: the
statement-level triggers that keep BM25's statistics (docset_terms, docset_lengths) ran
once a document, and every claim and lease check was its own round trip (measured on the
pytest checkout, docs/benchmarks.md "Keyword tier"). Each document keeps its own job row,
status and lease: a job whose lease was lost is left out of the write, the others stored.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from ragspace.models import ChunkDraft
from ragspace.store.chunk_rows import ChunkSet, copy_chunk_sets
from ragspace.store.jobs import (
    HANDED_BACK,
    ClaimedJob,
    due_jobs,
    extend_leases,
    held_leases,
    start_jobs,
    walk_the_queue,
)
from ragspace.store.symbols import SymbolSet, replace_symbol_sets
from ragspace.store.write_lock import lock_docset_writes
from ragspace.symbols.records import FileSymbols


@dataclass(frozen=True)
class KeywordPass:
    """What a document's keyword pass stores: its chunks (no vectors) and symbol rows."""

    job: ClaimedJob
    chunks: Sequence[ChunkDraft]
    content_hashes: Sequence[str]
    symbols: FileSymbols | None = None


@dataclass(frozen=True)
class BatchLimits:
    """How much one batch claims: at most `documents` jobs and `content_bytes` of text (a
    larger first document is claimed alone)."""

    documents: int
    content_bytes: int


class KeywordBatches:
    """Claim new documents' jobs together and store their keyword passes in one transaction."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]]) -> None:
        self._pool = pool

    def claim(
        self, owner: str, lease_seconds: float, max_attempts: int, limits: BatchLimits
    ) -> list[ClaimedJob]:
        """The next due jobs whose documents' current content is not searchable yet, in
        queue order, each under its own lease."""
        parameters = {
            "owner": owner,
            "lease": lease_seconds,
            "max": max_attempts,
            "limit": limits.documents,
        }
        with (
            self._pool.connection() as conn,
            conn.transaction(),
            conn.cursor(row_factory=dict_row) as cur,
        ):
            walk_the_queue(cur)
            found = due_jobs(cur, "and d.vector_tier is null", parameters, limits.content_bytes)
            return start_jobs(cur, found, parameters)

    def heartbeat(self, jobs: Sequence[ClaimedJob], lease_seconds: float) -> bool:
        """Extend the leases of the batch's jobs; False when none of them is this worker's
        any more (a lost one is left out when the batch is written)."""
        with self._pool.connection() as conn:
            return extend_leases(conn, jobs, lease_seconds) > 0

    def complete(self, passes: Sequence[KeywordPass]) -> set[int]:
        """Swap in the chunk sets and symbol rows of the jobs this worker still holds, and
        queue those jobs again for their vector passes; the ids of the jobs written.

        An attempt is not counted: the keyword pass is a first step, not a try. If a
        document's content changed meanwhile (another job is queued), its job ends here;
        that one follows."""
        if not passes:
            return set()
        with self._pool.connection() as conn, conn.transaction():
            for docset_id in sorted({p.job.docset_id for p in passes}):  # in order: no cycles
                lock_docset_writes(conn, docset_id)
            held = held_leases(conn, [p.job for p in passes])  # a reclaimed job must not write
            kept = [p for p in passes if p.job.id in held]
            if not kept:
                return held
            # the symbols first: the chunk swap rewrites each card from both
            replace_symbol_sets(conn, [_symbol_set(p) for p in kept])
            copy_chunk_sets(conn, [_chunk_set(p) for p in kept])
            # the jobs before the documents: the documents' pending trigger then finds them
            # queued and adds nothing
            conn.execute(_REQUEUE.encode(), ([p.job.id for p in kept],))
            conn.execute(
                _KEYWORDS_STORED,
                (
                    [p.job.document_id for p in kept],
                    [p.job.content_hash for p in kept],
                    [len(p.chunks) for p in kept],
                ),
            )
        return held


_REQUEUE = f"""
    update ingestion_jobs j set {HANDED_BACK}, texts_embedded = 0, texts_cached = 0
    where j.id = any(%s)
"""
_KEYWORDS_STORED = b"""
    update documents d set embedding_status = 'pending', error_message = null,
        vector_tier = case when d.content_hash = stored.hash then 'keywords'
                      else d.vector_tier end,
        chunk_count = stored.chunks, chunks_embedded = 0, chunks_total = stored.chunks,
        updated_at = now()
    from unnest(%s::bigint[], %s::text[], %s::int[]) as stored(id, hash, chunks)
    where d.id = stored.id
"""


def _symbol_set(keyword_pass: KeywordPass) -> SymbolSet:
    job = keyword_pass.job
    return SymbolSet(job.document_id, job.docset_id, keyword_pass.symbols)


def _chunk_set(keyword_pass: KeywordPass) -> ChunkSet:
    job = keyword_pass.job
    return ChunkSet(
        job.document_id, job.docset_id, keyword_pass.chunks, None, keyword_pass.content_hashes
    )
