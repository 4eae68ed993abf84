"""Indexes of their own for large DocSets: an HNSW graph, and a full-text index.

The shared HNSW index walked with a DocSet filter misses a large DocSet's neighbours when
other DocSets fill most of the table (docs/benchmarks.md, issue 42). A DocSet above the exact
limit therefore gets a partial index over its own rows (`where docset_id = N`), which its
searches walk as if it were alone in the database. Built with a larger `ef_construction` than
the shared one: on near-random vectors, the default graph's recall@10 stops at 0.989.

The keyword side has the same problem in another form: for a DocSet that is a small share of
the table, the shared full-text index returns every chunk of the table holding the question's
words, and the DocSet's own rows, read instead, each fetch their `fts` out of line (10,000
rows: 51 ms at a million chunks, docs/benchmarks.md). A DocSet of at least
`TEXT_INDEX_MIN_CHUNKS` chunks that holds at most half of the table's gets a partial GIN
index of its own, which Postgres picks for a search of that DocSet alone (its plan proves
`docset_id = any('{N}')` implies the index's `docset_id = N`). A DocSet that is most of the
table gets none, and loses its own once it holds more than three quarters: the shared index
serves it as well, and each chunk written would update two indexes for nothing.

Indexes are named `chunks_embedding_{dims}_docset_{id}_idx` and `chunks_fts_docset_{id}_idx`;
they are built concurrently (no lock on writers) by whichever worker is idle first, one at a
time per database (advisory lock), and dropped with their DocSet.
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
# a DocSet's rows read for a keyword search cost about 5 us each at a million chunks: from
# this size on (25 ms) a full-text index of its own pays (docs/benchmarks.md)
TEXT_INDEX_MIN_CHUNKS = 5_000
_BUILD_LOCK = 4_242_042  # advisory lock key: one build at a time per database


def graph_name(docset_id: int, dimensions: int) -> str:
    """The name of a DocSet's own HNSW index."""
    return f"chunks_embedding_{dimensions}_docset_{docset_id}_idx"


def text_index_name(docset_id: int) -> str:
    """The name of a DocSet's own full-text index."""
    return f"chunks_fts_docset_{docset_id}_idx"


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


def build_missing_indexes(
    pool: ConnectionPool[psycopg.Connection[Any]],
    graph_min_chunks: int,
    text_min_chunks: int = TEXT_INDEX_MIN_CHUNKS,
) -> int:
    """Build the graph of every DocSet holding more than `graph_min_chunks` chunks and the
    full-text index of every DocSet of at least `text_min_chunks` holding at most half of the
    table's, where missing; first drop the indexes `_drop_stale` names (DocSet gone, build
    failed half-way, DocSet grown past three quarters of the table). How many were built;
    returns at once when another process is building."""
    with pool.connection() as conn:
        conn.autocommit = True  # CREATE INDEX CONCURRENTLY runs outside a transaction
        try:
            locked = conn.execute("select pg_try_advisory_lock(%s)", (_BUILD_LOCK,)).fetchone()
            if not (locked and locked[0]):
                return 0
            try:
                _drop_stale(conn)
                built = sum(
                    _build_graph(conn, d, dims)
                    for d, dims in _wanted_graphs(conn, graph_min_chunks)
                )
                return built + sum(
                    _build_text_index(conn, d) for d in _wanted_text(conn, text_min_chunks)
                )
            finally:
                conn.execute("select pg_advisory_unlock(%s)", (_BUILD_LOCK,))
        finally:
            conn.autocommit = False


def _missing(conn: psycopg.Connection[Any], names: list[str]) -> set[str]:
    """Which of these index names do not exist."""
    rows = conn.execute("select relname from pg_class where relname = any(%s)", (names,))
    return set(names) - {str(row[0]) for row in rows}


def _wanted_graphs(conn: psycopg.Connection[Any], min_chunks: int) -> list[tuple[int, int]]:
    """(DocSet, width) of the large DocSets whose graph does not exist yet."""
    rows = conn.execute(
        "select d.id, d.embedding_dimensions from docsets d"
        " join docset_lengths l on l.docset_id = d.id"
        " where l.chunks > %s and d.embedding_dimensions = any(%s) order by d.id",
        (min_chunks, list(INDEXED_DIMENSIONS)),
    ).fetchall()
    missing = _missing(conn, [graph_name(int(d), int(dims)) for d, dims in rows])
    return [(int(d), int(dims)) for d, dims in rows if graph_name(int(d), int(dims)) in missing]


def _wanted_text(conn: psycopg.Connection[Any], min_chunks: int) -> list[int]:
    """The DocSets of at least `min_chunks` chunks, at most half of the table's, whose
    full-text index does not exist yet."""
    rows = conn.execute(
        "select docset_id from docset_lengths"
        " where chunks >= %s and chunks * 2 <= (select sum(chunks) from docset_lengths)"
        " order by docset_id",
        (min_chunks,),
    ).fetchall()
    missing = _missing(conn, [text_index_name(int(d)) for (d,) in rows])
    return [int(d) for (d,) in rows if text_index_name(int(d)) in missing]


def _build_graph(conn: psycopg.Connection[Any], docset_id: int, dimensions: int) -> int:
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


def _build_text_index(conn: psycopg.Connection[Any], docset_id: int) -> int:
    name = text_index_name(docset_id)
    log.info("Building the full-text index of DocSet #%s (%s)", docset_id, name)
    conn.execute(
        sql.SQL(
            # as the shared one (migration 20261207000000): a pending list that every writer
            # of chunks empties before it commits (chunk_rows.copy_chunk_sets)
            "create index concurrently if not exists {name} on chunks using gin (fts)"
            " with (fastupdate = on, gin_pending_list_limit = 1024) where docset_id = {docset}"
        ).format(name=sql.Identifier(name), docset=sql.Literal(docset_id))
    )
    return 1


def _drop_stale(conn: psycopg.Connection[Any]) -> None:
    """Drop DocSet indexes whose DocSet no longer exists, builds that failed half-way (an
    interrupted concurrent build leaves an invalid index behind), and the full-text indexes
    of DocSets that have come to hold more than three quarters of the table (built at half
    at most: the gap keeps a DocSet near the line from gaining and losing one in turn)."""
    rows = conn.execute(_STALE).fetchall() + conn.execute(_OUTGROWN).fetchall()
    for (name,) in rows:
        conn.execute(sql.SQL("drop index concurrently if exists {}").format(sql.Identifier(name)))


_STALE = """
    select c.relname from pg_class c join pg_index i on i.indexrelid = c.oid
    where (c.relname like 'chunks\\_embedding\\_%%\\_docset\\_%%\\_idx'
           or c.relname like 'chunks\\_fts\\_docset\\_%%\\_idx')
      and (not i.indisvalid or not exists (select 1 from docsets d
           where c.relname like 'chunks\\_embedding\\_%%\\_docset\\_' || d.id || '\\_idx'
              or c.relname = 'chunks_fts_docset_' || d.id || '_idx'))
"""
_OUTGROWN = """
    select c.relname from pg_class c
    join docset_lengths l on c.relname = 'chunks_fts_docset_' || l.docset_id || '_idx'
    where l.chunks * 4 > 3 * (select sum(chunks) from docset_lengths)
"""
