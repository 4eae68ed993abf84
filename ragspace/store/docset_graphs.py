"""HNSW graphs of their own for DocSets too large for an exact scan.

The shared HNSW index walked with a DocSet filter misses a large DocSet's neighbours when
other DocSets fill most of the table (docs/benchmarks.md, issue 42). A DocSet above the exact
limit therefore gets a partial index over its own rows (`where docset_id = N`), which its
searches walk as if it were alone in the database. Built with a larger `ef_construction` than
the shared one: on near-random vectors, the default graph's recall@10 stops at 0.989.

Indexes are named `chunks_embedding_{dims}_docset_{id}_idx`; they are built concurrently (no
lock on writers) by whichever worker is idle first, one at a time per database (advisory
lock), and dropped with their DocSet.
"""

import logging
from typing import Any

import psycopg
from psycopg import sql
from psycopg_pool import ConnectionPool

log = logging.getLogger(__name__)

# vector widths that have a shared HNSW index, hence a cast to index on
INDEXED_DIMENSIONS = (384, 1536)
EF_CONSTRUCTION = 128
_BUILD_LOCK = 4_242_042  # advisory lock key: one build at a time per database


def graph_name(docset_id: int, dimensions: int) -> str:
    """The name of a DocSet's own HNSW index."""
    return f"chunks_embedding_{dimensions}_docset_{docset_id}_idx"


def docsets_with_graphs(
    conn: psycopg.Connection[Any], docset_ids: list[int], dimensions: int
) -> set[int]:
    """Which of these DocSets have a valid (fully built) graph of their own at this width."""
    names = [graph_name(docset_id, dimensions) for docset_id in docset_ids]
    rows = conn.execute(
        "select c.relname from pg_class c join pg_index i on i.indexrelid = c.oid"
        " where c.relname = any(%s) and i.indisvalid",
        (names,),
    ).fetchall()
    built = {str(row[0]) for row in rows}
    return {d for d in docset_ids if graph_name(d, dimensions) in built}


def build_missing_graphs(pool: ConnectionPool[psycopg.Connection[Any]], min_chunks: int) -> int:
    """Build the graph of every DocSet holding more than `min_chunks` chunks that lacks one,
    and drop graphs whose DocSet is gone or failed half-way; how many were built. Returns at
    once when another process is building."""
    with pool.connection() as conn:
        conn.autocommit = True  # CREATE INDEX CONCURRENTLY runs outside a transaction
        try:
            locked = conn.execute("select pg_try_advisory_lock(%s)", (_BUILD_LOCK,)).fetchone()
            if not (locked and locked[0]):
                return 0
            try:
                _drop_stale(conn)
                return sum(_build(conn, d, dims) for d, dims in _wanted(conn, min_chunks))
            finally:
                conn.execute("select pg_advisory_unlock(%s)", (_BUILD_LOCK,))
        finally:
            conn.autocommit = False


def _wanted(conn: psycopg.Connection[Any], min_chunks: int) -> list[tuple[int, int]]:
    """(DocSet, width) of the large DocSets whose graph does not exist yet."""
    rows = conn.execute(
        "select d.id, d.embedding_dimensions from docsets d"
        " join docset_lengths l on l.docset_id = d.id"
        " where l.chunks > %s and d.embedding_dimensions = any(%s) order by d.id",
        (min_chunks, list(INDEXED_DIMENSIONS)),
    ).fetchall()
    names = [graph_name(int(d), int(dims)) for d, dims in rows]
    present = {
        str(r[0])
        for r in conn.execute("select relname from pg_class where relname = any(%s)", (names,))
    }
    return [(int(d), int(dims)) for d, dims in rows if graph_name(int(d), int(dims)) not in present]


def _build(conn: psycopg.Connection[Any], docset_id: int, dimensions: int) -> int:
    name = graph_name(docset_id, dimensions)
    log.info("Building the HNSW graph of DocSet #%s (%s)", docset_id, name)
    conn.execute(
        sql.SQL(
            "create index concurrently if not exists {name} on chunks using hnsw"
            " ((embedding::vector({dims})) vector_cosine_ops) with (ef_construction = {efc})"
            " where docset_id = {docset} and vector_dims(embedding) = {dims}"
        ).format(
            name=sql.Identifier(name),
            dims=sql.Literal(dimensions),
            efc=sql.Literal(EF_CONSTRUCTION),
            docset=sql.Literal(docset_id),
        )
    )
    return 1


def _drop_stale(conn: psycopg.Connection[Any]) -> None:
    """Drop DocSet graphs whose DocSet no longer exists, and builds that failed half-way
    (an interrupted concurrent build leaves an invalid index behind)."""
    rows = conn.execute(
        "select c.relname from pg_class c join pg_index i on i.indexrelid = c.oid"
        " where c.relname like 'chunks\\_embedding\\_%%\\_docset\\_%%\\_idx'"
        " and (not i.indisvalid or not exists (select 1 from docsets d"
        "      where c.relname like 'chunks\\_embedding\\_%%\\_docset\\_' || d.id || '\\_idx'))"
    ).fetchall()
    for (name,) in rows:
        conn.execute(sql.SQL("drop index concurrently if exists {}").format(sql.Identifier(name)))
