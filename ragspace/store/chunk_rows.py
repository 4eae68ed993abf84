"""The `chunks` table: a document's chunks, their swap, and search over them."""

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from ragspace.models import (
    ChunkDraft,
)
from ragspace.ranking.candidates import Candidate
from ragspace.store.document_cards import refresh_cards
from ragspace.store.search import QueryVector, run_search
from ragspace.store.search_request import SearchRequest
from ragspace.store.vector_rankings import vector_type
from ragspace.store.write_lock import lock_docset_writes


class ChunkRows:
    """The `chunks` table: a document's chunks, their swap, and search over them."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]]) -> None:
        self._pool = pool

    def of_document(self, document_id: int) -> list[ChunkDraft]:
        """A document's stored chunks in order."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                "select ordinal, content, start_line, end_line, header, metadata from chunks"
                " where document_id = %s order by ordinal",
                (document_id,),
            ).fetchall()
        return [ChunkDraft.model_validate(row) for row in rows]

    def replace(
        self,
        document_id: int,
        docset_id: int,
        chunks: Sequence[ChunkDraft],
        embeddings: np.ndarray[Any, np.dtype[np.float32]],
        content_hashes: Sequence[str],
        document_hash: str | None = None,
    ) -> None:
        """Swap a document's chunk set in one transaction and mark it done.

        With `document_hash`, a document whose content changed meanwhile (a re-sync) gets the
        chunks but stays `pending`, so its new content is embedded next.
        """
        with self._pool.connection() as conn, conn.transaction():
            lock_docset_writes(conn, docset_id)
            copy_chunks(conn, document_id, docset_id, chunks, embeddings, content_hashes)
            conn.execute(
                "update documents set embedding_status = case when %s::text is null"
                " or content_hash = %s::text then 'done' else 'pending' end,"
                " vector_tier = case when %s::text is null or content_hash = %s::text"
                " then 'quality' else vector_tier end,"
                " error_message = null, chunk_count = %s, updated_at = now() where id = %s",
                (document_hash,) * 4 + (len(chunks), document_id),
            )

    def search(
        self, request: SearchRequest, embed: Callable[[], QueryVector] | None = None
    ) -> list[Candidate]:
        """Each side's candidates with their ranks and scores (ranking/ orders them); with
        `embed`, the query's vector is computed while the keyword side already runs."""
        return run_search(self._pool, request, embed)

    def similarities(
        self,
        chunk_ids: Sequence[int],
        query_vector: np.ndarray[Any, np.dtype[np.float32]],
        dimensions: int,
    ) -> dict[int, float]:
        """Cosine similarity of a query vector to these chunks' quality vectors, by chunk id."""
        return chunk_similarities(self._pool, chunk_ids, query_vector, dimensions)

    def without_vectors(self, docset_ids: Sequence[int]) -> int:
        """Chunks of these DocSets still waiting for their vectors (found by keywords only)."""
        with self._pool.connection() as conn:
            row = conn.execute(
                "select count(*) from chunks where docset_id = any(%s) and embedding is null",
                (list(docset_ids),),
            ).fetchone()
        assert row is not None
        return int(row[0])

    def window(self, document_id: int, first: int, last: int) -> list[ChunkDraft]:
        """A document's chunks with ordinals first..last, in order."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                "select ordinal, content, start_line, end_line, header, metadata from chunks"
                " where document_id = %s and ordinal between %s and %s order by ordinal",
                (document_id, first, last),
            ).fetchall()
        return [ChunkDraft.model_validate(row) for row in rows]


_CHUNK_COPY = (
    "copy chunks (document_id, docset_id, ordinal, content, header, start_line,"
    " end_line, metadata, content_hash, embedding) from stdin (format binary)"
)
_CHUNK_TYPES = [
    *("int8", "int8", "int4", "text", "text", "int4", "int4", "jsonb", "text"),
    "vector",
]
VectorRows = np.ndarray[Any, np.dtype[np.float32]]


@dataclass(frozen=True)
class ChunkSet:
    """A document's new chunks, as `copy_chunk_sets` swaps them in."""

    document_id: int
    docset_id: int
    chunks: Sequence[ChunkDraft]
    embeddings: VectorRows | None  # None: found by keywords until the vector pass
    content_hashes: Sequence[str]


def copy_chunks(
    conn: psycopg.Connection[Any],
    document_id: int,
    docset_id: int,
    chunks: Sequence[ChunkDraft],
    embeddings: VectorRows | None,
    content_hashes: Sequence[str],
) -> None:
    """`copy_chunk_sets` for one document."""
    copy_chunk_sets(conn, [ChunkSet(document_id, docset_id, chunks, embeddings, content_hashes)])


def copy_chunk_sets(conn: psycopg.Connection[Any], sets: Sequence[ChunkSet]) -> None:
    """Delete these documents' chunks and binary-COPY the new sets, inside the caller's
    transaction: one statement of each for every document, so the statement-level triggers
    that keep BM25's statistics run once (a statement a document cost twice the time).

    `embeddings` None: the chunks are found by keywords until the job's vector pass replaces
    them. The documents' cards are rewritten from the new chunks (and the symbol rows, which
    callers swap first)."""
    document_ids = [chunk_set.document_id for chunk_set in sets]
    conn.execute("delete from chunks where document_id = any(%s)", (document_ids,))
    with conn.cursor().copy(_CHUNK_COPY) as copy:
        copy.set_types(_CHUNK_TYPES)
        for chunk_set in sets:
            for row in _chunk_rows(chunk_set):
                copy.write_row(row)
    # the full-text indexes take new entries in their pending lists and sort them in at once
    # (a third of the COPY's time, docs/benchmarks.md "Keyword tier"); searches then find
    # no committed entries left to scan
    conn.execute(_EMPTY_PENDING_LISTS)
    refresh_cards(conn, document_ids)


def store_vector_pass(
    conn: psycopg.Connection[Any], chunk_set: ChunkSet, symbols_renewed: bool
) -> None:
    """A vector pass's chunks, inside the caller's transaction: the vectors written into the
    rows of the keyword pass when those are these very chunks, else the set swapped in.
    `symbols_renewed`: the caller swapped the document's symbol rows, so its card is
    rewritten either way (the swap rewrites it from both)."""
    if not fill_vectors(conn, chunk_set):
        copy_chunk_sets(conn, [chunk_set])
    elif symbols_renewed:
        refresh_cards(conn, [chunk_set.document_id])


def fill_vectors(conn: psycopg.Connection[Any], chunk_set: ChunkSet) -> bool:
    """Give a document's stored chunks their vectors in place, when they are exactly the
    chunks of `chunk_set` (its keyword pass stored them): no row deleted or copied again, so
    neither their full-text vectors nor BM25's statistics are computed twice, and the chunks
    keep their ids. False (nothing written) when the stored chunks differ."""
    if chunk_set.embeddings is None:
        return False
    stored = conn.execute(
        "select ordinal, content, header, start_line, end_line, metadata, content_hash"
        " from chunks where document_id = %s order by ordinal for update",
        (chunk_set.document_id,),
    ).fetchall()
    if stored != _as_stored(chunk_set):
        return False
    conn.execute(
        "update chunks c set embedding = v.embedding"
        " from unnest(%s::int4[], %b::vector[]) as v (ordinal, embedding)"
        " where c.document_id = %s and c.ordinal = v.ordinal",
        (
            [chunk.ordinal for chunk in chunk_set.chunks],
            list(chunk_set.embeddings),
            chunk_set.document_id,
        ),
    )
    conn.execute(_EMPTY_PENDING_LISTS)  # the updated rows' new index entries
    return True


_EMPTY_PENDING_LISTS = """
    select gin_clean_pending_list(i.indexrelid) from pg_index i
    join pg_class c on c.oid = i.indexrelid join pg_am am on am.oid = c.relam
    where i.indrelid = 'chunks'::regclass and am.amname = 'gin' order by i.indexrelid
"""


def _as_stored(chunk_set: ChunkSet) -> list[tuple[Any, ...]]:
    """The set's chunks as `fill_vectors` reads them back from their rows."""
    return [
        (c.ordinal, c.content, c.header, c.start_line, c.end_line, c.metadata, digest)
        for c, digest in zip(chunk_set.chunks, chunk_set.content_hashes, strict=True)
    ]


def _chunk_rows(chunk_set: ChunkSet) -> Iterator[tuple[Any, ...]]:
    chunks, embeddings = chunk_set.chunks, chunk_set.embeddings
    vectors = [None] * len(chunks) if embeddings is None else list(embeddings)
    for chunk, vector, digest in zip(chunks, vectors, chunk_set.content_hashes, strict=True):
        yield (
            chunk_set.document_id,
            chunk_set.docset_id,
            chunk.ordinal,
            chunk.content,
            chunk.header,
            chunk.start_line,
            chunk.end_line,
            Jsonb(chunk.metadata),
            digest,
            vector,
        )


def chunk_similarities(
    pool: ConnectionPool[psycopg.Connection[Any]],
    chunk_ids: Sequence[int],
    query_vector: np.ndarray[Any, np.dtype[np.float32]],
    dimensions: int,
) -> dict[int, float]:
    """Cosine similarity of the query to these chunks' quality vectors (chunks without one
    are left out): a hit that only the keyword side found has none from the search."""
    if not chunk_ids:
        return {}
    vt = vector_type(dimensions)
    query = sql.SQL(
        "select id, 1 - (embedding::{vt} <=> %(q)s::{vt}) from chunks"
        " where id = any(%(ids)s) and embedding is not null and vector_dims(embedding) = {dims}"
    ).format(vt=vt, dims=sql.Literal(dimensions))
    with pool.connection() as conn:
        rows = conn.execute(query, {"q": query_vector, "ids": list(chunk_ids)}).fetchall()
    return {int(chunk_id): float(similarity) for chunk_id, similarity in rows}
