"""Search SQL: vector KNN (exact or HNSW, vector_plan.py) and BM25 full-text search, fused in
one query."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from ragspace.models import Fusion, Hit
from ragspace.settings import EXACT_SEARCH_MAX_CHUNKS, HNSW_EF_SEARCH
from ragspace.store.docset_graphs import docsets_with_graphs
from ragspace.store.vector_plan import (
    VectorPlan,
    nearest,
    plan_vector_search,
    session_settings,
)


@dataclass(frozen=True)
class SearchRequest:
    """What to search for and where; a missing vector or keyword query skips that side."""

    docset_ids: Sequence[int]
    dimensions: int
    k: int
    query_vector: np.ndarray[Any, np.dtype[np.float32]] | None = None
    keyword_terms: Sequence[str] = ()
    candidates: int = 50
    fusion: Fusion = Fusion.CONVEX
    # convex fusion: the vector side's share of a hit's score; the full-text side has the rest
    vector_share: float = 0.5
    rrf_k: int = 10
    # the full-text ranking's weight in RRF; the quality vectors' ranking weighs 1
    keyword_weight: float = 1.25
    ef_search: int = HNSW_EF_SEARCH
    # a selection of at most this many chunks is ranked by exact distance (vector_plan.py)
    exact_max_chunks: int = EXACT_SEARCH_MAX_CHUNKS
    # the query's fast-tier (static) vector: ranks chunks that have no quality vector yet
    fast_vector: np.ndarray[Any, np.dtype[np.float32]] | None = None
    # rank every chunk by its fast vector (evaluating the fast tier), not only fast-only ones
    fast_everywhere: bool = False
    # the fast ranking's weight in the fusion, against the quality vectors' (convex: its share
    # is this times the vector share; RRF: the quality and keyword rankings weigh 1)
    fast_weight: float = 1.0
    # only chunks of documents synced at this ref (a GitHub branch, tag or commit); None: all
    ref: str | None = None


def run_search(pool: ConnectionPool[psycopg.Connection[Any]], request: SearchRequest) -> list[Hit]:
    """Vector KNN and/or full-text search in the given DocSets, fused, one query (after one
    look-up of the DocSets' sizes when a vector side takes part, to plan it)."""
    if not request.docset_ids:
        return []
    with pool.connection() as conn, conn.transaction():
        query = _prepare(conn, request)
        if query is None:
            return []
        with conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(query, _parameters(request)).fetchall()
    return [Hit.model_validate(row) for row in rows]


def explain_search(pool: ConnectionPool[psycopg.Connection[Any]], request: SearchRequest) -> str:
    """The query plan Postgres runs for this search (EXPLAIN's text), e.g. to see which index
    each ranking uses; empty when there is nothing to search."""
    with pool.connection() as conn, conn.transaction():
        query = _prepare(conn, request)
        if query is None or not request.docset_ids:
            return ""
        rows = conn.execute(sql.SQL("explain ") + query, _parameters(request)).fetchall()
    return "\n".join(str(row[0]) for row in rows)


def _prepare(conn: psycopg.Connection[Any], request: SearchRequest) -> sql.Composed | None:
    """The fused query, with the HNSW settings its vector rankings need set on `conn` (for
    the current transaction); None when no side takes part."""
    parts, plans = _candidate_rankings(conn, request)
    if not parts:
        return None
    for statement in session_settings(_strictest(plans)):
        conn.execute(statement)
    return sql.SQL(_FUSED).format(
        keyword_terms=sql.SQL(_KEYWORD_TERMS if request.keyword_terms else ""),
        candidates=sql.SQL(" union all ").join(parts),
        contribution=_CONTRIBUTION[request.fusion],
    )


def _candidate_rankings(
    conn: psycopg.Connection[Any], request: SearchRequest
) -> tuple[list[sql.Composable], list[VectorPlan]]:
    """Each side's candidate ranking, and how each vector ranking finds its nearest chunks."""
    parts: list[sql.Composable] = []
    plans: list[VectorPlan] = []
    # the ref filter is added only when asked for, so an unversioned search keeps its plan
    ref = _ref_filter(request.ref, "document_id")
    wants_fast = request.fast_vector is not None
    if request.query_vector is not None or wants_fast:
        sizes, table, fast_only = _selection(conn, request, fast=wants_fast)
        if request.query_vector is not None:
            nearest_quality, quality_plans = _quality_nearest(conn, request, sizes, table, ref)
            parts.append(
                _BY_DISTANCE.format(weight=sql.SQL("%(vector_weight)s"), nearest=nearest_quality)
            )
            plans += quality_plans
        if wants_fast and (request.fast_everywhere or fast_only > 0):
            # the fast index holds every DocSet's waiting chunks: their share is not kept, so
            # a large selection walks it as far as pgvector allows
            plan = (
                VectorPlan(exact=True)  # no index holds every fast vector
                if request.fast_everywhere
                else plan_vector_search(
                    fast_only,
                    0.0,
                    request.candidates,
                    request.ef_search,
                    request.exact_max_chunks,
                )
            )
            parts.append(_fast_ranking(plan, ref, everywhere=request.fast_everywhere))
            plans.append(plan)
    if request.keyword_terms:
        parts.append(_KEYWORD_CANDIDATES.format(ref=_ref_filter(request.ref, "c.document_id")))
    return parts, plans


def _selection(
    conn: psycopg.Connection[Any], request: SearchRequest, fast: bool
) -> tuple[dict[int, int], int, int]:
    """Chunks of each searched DocSet and of every DocSet (kept in `docset_lengths`), and how
    many of the searched DocSets' chunks still wait for their quality vector (counted only
    with `fast`, and only up to one more than an exact scan takes: from a small partial
    index)."""
    rows = conn.execute(
        _SELECTION,
        {
            "docsets": list(request.docset_ids),
            "fast": fast,
            "fast_limit": request.exact_max_chunks + 1,
        },
    ).fetchall()
    sizes = {int(docset): int(chunks) for docset, chunks, _, _ in rows if docset is not None}
    table, fast_only = (int(rows[0][2]), int(rows[0][3])) if rows else (0, 0)
    return sizes, table, fast_only


_SELECTION = """
    with lengths as (select docset_id, chunks from docset_lengths)
    select l.docset_id, l.chunks,
           (select coalesce(sum(chunks), 0) from lengths)::bigint,
           case when %(fast)s then (
               select count(*) from (
                   select 1 from chunks
                   where docset_id = any(%(docsets)s)
                     and embedding is null and fast_embedding is not null
                   limit %(fast_limit)s) waiting)
           else 0 end
    from (select 1) one
    left join lengths l on l.docset_id = any(%(docsets)s)
"""


def _quality_nearest(
    conn: psycopg.Connection[Any],
    request: SearchRequest,
    sizes: dict[int, int],
    table: int,
    ref: sql.Composable,
) -> tuple[sql.Composable, list[VectorPlan]]:
    """The quality vectors' nearest chunks (id, distance) and how they are found: exactly for
    a small selection; else each DocSet with a graph of its own walks it (docset_graphs.py)
    and the others are ranked together, exactly or on the shared graph, by their own size."""
    distance = sql.SQL("embedding::{vt} <=> %(q)s::{vt}").format(
        vt=_vector_type(request.dimensions)
    )
    selected = sum(sizes.values())
    plan = _plan(request, selected, table)
    own = set() if plan.exact else docsets_with_graphs(conn, sorted(sizes), request.dimensions)
    if not own:
        return nearest(plan, distance, _quality_filter(request, list(request.docset_ids), ref)), [
            plan
        ]
    walks: list[sql.Composable] = []
    plans: list[VectorPlan] = []
    for docset_id in sorted(own):  # a literal, so the planner sees the partial index applies
        alone = _plan(request, sizes[docset_id], sizes[docset_id])
        where = sql.SQL("docset_id = {} and vector_dims(embedding) = {}{}").format(
            sql.Literal(docset_id), sql.Literal(request.dimensions), ref
        )
        walks.append(nearest(alone, distance, where))
        plans.append(alone)
    rest = [d for d in request.docset_ids if d not in own]
    if rest:
        rows = sum(sizes.get(d, 0) for d in rest)
        plans.append(_plan(request, rows, table))
        walks.append(nearest(plans[-1], distance, _quality_filter(request, rest, ref)))
    merged = sql.SQL(
        "select id, distance from ({}) walks order by distance, id limit %(candidates)s"
    ).format(sql.SQL(" union all ").join(sql.SQL("({})").format(w) for w in walks))
    return merged, plans


def _plan(request: SearchRequest, rows: int, table: int) -> VectorPlan:
    return plan_vector_search(
        rows, rows / max(table, 1), request.candidates, request.ef_search, request.exact_max_chunks
    )


def _quality_filter(
    request: SearchRequest, docset_ids: list[int], ref: sql.Composable
) -> sql.Composable:
    """These DocSets' rows with a quality vector of the request's width (the shared HNSW
    index of that width is partial on exactly this predicate)."""
    docsets = (
        sql.SQL("%(docsets)s")
        if list(docset_ids) == list(request.docset_ids)
        else sql.Literal(docset_ids)
    )
    return sql.SQL("docset_id = any({}) and vector_dims(embedding) = {}{}").format(
        docsets, sql.Literal(request.dimensions), ref
    )


def _strictest(plans: Sequence[VectorPlan]) -> VectorPlan:
    """One set of HNSW limits for the query: the largest any of its index walks asks for."""
    walks = [plan for plan in plans if not plan.exact]
    if not walks:
        return VectorPlan(exact=True)
    return VectorPlan(
        exact=False,
        ef_search=max(plan.ef_search for plan in walks),
        max_scan_tuples=max(plan.max_scan_tuples for plan in walks),
    )


def _parameters(request: SearchRequest) -> dict[str, Any]:
    return {
        **side_weights(request),
        "q": request.query_vector,
        "fq": request.fast_vector,
        "terms": list(request.keyword_terms),
        "docsets": list(request.docset_ids),
        "candidates": request.candidates,
        "rrf_k": request.rrf_k,
        "max_terms": KEYWORD_MAX_TERMS,
        "max_matches": KEYWORD_MAX_MATCHES,
        "bm25_k1": BM25_K1,
        "bm25_b": BM25_B,
        "k": request.k,
        "ref": request.ref,
    }


def side_weights(request: SearchRequest) -> dict[str, float]:
    """Each ranking's weight in the fusion: a share of the score (convex) or of 1 / (k + rank)."""
    if request.fusion is Fusion.CONVEX:
        vector = request.vector_share
        return {
            "vector_weight": vector,
            "keyword_weight": 1.0 - vector,
            "fast_weight": vector * request.fast_weight,
        }
    return {
        "vector_weight": 1.0,
        "keyword_weight": request.keyword_weight,
        "fast_weight": request.fast_weight,
    }


# Bounds of the keyword side's work per query (see _KEYWORD_TERMS).
KEYWORD_MAX_TERMS = 8
KEYWORD_MAX_MATCHES = 2_000
# BM25's term-frequency saturation and length normalisation (Robertson's ranges: k1 1.2-2,
# b about 0.75); chosen on the docs set, confirmed on the code set (docs/benchmarks.md)
BM25_K1 = 2.0
BM25_B = 0.6


def _vector_type(dimensions: int) -> sql.Composable:
    return sql.SQL("vector({})").format(sql.Literal(dimensions))


def _ref_filter(ref: str | None, document_id: str) -> sql.Composable:
    """`and` the chunk's document is at the ref (documents.ref; '' for unversioned sources);
    nothing without a ref. A primary-key probe per candidate, so the HNSW scan keeps its
    order and filters as it goes."""
    if ref is None:
        return sql.SQL("")
    return sql.SQL(
        " and exists (select 1 from documents rd where rd.id = {} and rd.ref = %(ref)s)"
    ).format(sql.SQL(document_id))


# Each side yields (id, vector_similarity, keyword_rank, rank, scaled, weight): ranks start at
# 1; `scaled` is the side's score mapped onto 0-1 over its own candidates (best 1, worst 0; all
# 1 when they score alike), as convex fusion combines them. A vector ranking's columns, all but
# the weight, from each of its nearest chunks' cosine distance:
_BY_DISTANCE = sql.SQL(
    """(select id, 1 - distance as vector_similarity, null::int as keyword_rank,
            row_number() over (order by distance, id) as rank,
            coalesce((max(distance) over () - distance)
                     / nullif(max(distance) over () - min(distance) over (), 0), 1.0) as scaled,
            {weight}::float8 as weight
     from ({nearest}) nearest)
    """
)


def _fast_ranking(plan: VectorPlan, ref: sql.Composable, everywhere: bool) -> sql.Composable:
    """The fast tier's own ranking: over the chunks that have no quality vector yet (the
    partial HNSW index holds exactly those), or over every chunk (evaluating the fast tier
    alone). Cosines of the static and the quality model are not comparable, so each tier is
    ranked and scaled on its own (in RRF only the ranks meet)."""
    only = sql.SQL("") if everywhere else sql.SQL(" and embedding is null")
    distance = sql.SQL("fast_embedding <=> %(fq)s::vector(384)")
    where = sql.SQL(
        "docset_id = any(%(docsets)s) and fast_embedding is not null{only}{ref}"
    ).format(only=only, ref=ref)
    return _BY_DISTANCE.format(
        weight=sql.SQL("%(fast_weight)s"), nearest=nearest(plan, distance, where)
    )


# Okapi BM25 keyword side: each query lexeme is weighted by its inverse document frequency
# within the selected DocSets (from `docset_terms`, kept by triggers), so rare identifiers
# outrank words that appear everywhere, and its frequency in a chunk counts
# tf (k1 + 1) / (tf + k1 (1 - b + b len / average len)): more occurrences count, with
# diminishing returns, and a long chunk needs more of them (lengths in indexed words, from
# `chunks.fts_words` and `docset_lengths`). Only the rarest lexemes pick the candidates,
# bounded by how many chunks they match, so a question made of common words cannot turn into
# a scan; lexemes in more than half the chunks are left out (their classic
# Robertson-Sparck Jones IDF is not positive) unless nothing rarer matched.
_KEYWORD_TERMS = """
    corpus as (
        select greatest(coalesce(sum(chunk_count), 0), 1)::float8 as n,
               (select coalesce(sum(words)::float8 / nullif(sum(chunks), 0), 1.0)
                from docset_lengths where docset_id = any(%(docsets)s)) as average_words
        from documents where docset_id = any(%(docsets)s)
    ),
    query_lexemes as (
        select distinct lexeme
        from unnest(tsvector_to_array(
            to_tsvector('english', array_to_string(%(terms)s::text[], ' ')))) as lexeme
    ),
    term_frequencies as (
        select q.lexeme, sum(t.df)::float8 as df
        from query_lexemes q
        join docset_terms t on t.lexeme = q.lexeme and t.docset_id = any(%(docsets)s)
        group by q.lexeme
        having sum(t.df) > 0
    ),
    ranked_terms as (
        select lexeme, df, sum(df) over (order by df, lexeme) as matched_before_and_here,
               row_number() over (order by df, lexeme) as rarity
        from term_frequencies
    ),
    weighted_terms as (
        select r.lexeme, quote_literal(r.lexeme)::tsquery as query,
               ln(1 + (corpus.n - r.df + 0.5) / (r.df + 0.5)) as idf
        from ranked_terms r cross join corpus
        where r.rarity = 1
           or (r.rarity <= %(max_terms)s and r.matched_before_and_here <= %(max_matches)s
               and r.df <= corpus.n / 2)
    ),
"""
# The chunks that hold any chosen lexeme (one GIN scan of their disjunction); for each, once,
# its vector cut down to those lexemes (`setweight` marks them A, as nothing else in `fts`
# is, and `ts_filter` keeps them: both in C, without expanding the whole vector) gives each
# lexeme's positions in the chunk: its term frequency.
_KEYWORD_CANDIDATES = sql.SQL(
    """
    (select id, null::float8 as vector_similarity, rank::int as keyword_rank, rank,
            coalesce((score - min(score) over ())
                     / nullif(max(score) over () - min(score) over (), 0), 1.0) as scaled,
            %(keyword_weight)s::float8 as weight
     from (select id, score, row_number() over (order by score desc, id) as rank
           from (select c.id, bm25.score
                 from (select array_agg(lexeme) as lexemes,
                              string_agg(quote_literal(lexeme), ' | ')::tsquery as query
                       from weighted_terms) chosen
                 cross join corpus
                 join chunks c on c.fts @@ chosen.query and c.docset_id = any(%(docsets)s){ref}
                 cross join lateral (
                     select sum(w.idf * u.tf * (%(bm25_k1)s + 1)
                                / (u.tf + %(bm25_k1)s * (1 - %(bm25_b)s + %(bm25_b)s
                                                         * c.fts_words / corpus.average_words)))
                            as score
                     from (select lexeme, coalesce(array_length(positions, 1), 1) as tf
                           from unnest(ts_filter(setweight(c.fts, 'A', chosen.lexemes), '{{a}}'))
                          ) u
                     join weighted_terms w on w.lexeme = u.lexeme) bm25
                 order by bm25.score desc, c.id
                 limit %(candidates)s) matched) ranked)
    """
)
# one candidate's share of its chunk's fused score
_CONTRIBUTION = {
    Fusion.CONVEX: sql.SQL("weight * scaled"),
    Fusion.RRF: sql.SQL("weight / (%(rrf_k)s + rank)"),
}
_FUSED = """
    with {keyword_terms}
    candidates as ({candidates}),
    fused as (
        select id, sum({contribution})::float8 as score,
               max(vector_similarity) as vector_similarity, min(keyword_rank) as keyword_rank
        from candidates group by id
    )
    select c.id as chunk_id, c.document_id, ds.name as docset_name, d.path, d.title,
           c.ordinal, c.content, c.start_line, c.end_line, c.metadata,
           f.score, f.vector_similarity, f.keyword_rank,
           nullif(d.ref, '') as ref,
           case when d.ref <> '' then s.sync_state ->> 'commit' end as resolved_sha,
           coalesce(s.last_synced_at, d.updated_at) as indexed_at
    from fused f
    join chunks c on c.id = f.id
    join documents d on d.id = c.document_id
    join docsets ds on ds.id = c.docset_id
    left join sources s on s.id = d.source_id
    order by f.score desc, c.id
    limit %(k)s
"""


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
    vt = _vector_type(dimensions)
    query = sql.SQL(
        "select id, 1 - (embedding::{vt} <=> %(q)s::{vt}) from chunks"
        " where id = any(%(ids)s) and embedding is not null and vector_dims(embedding) = {dims}"
    ).format(vt=vt, dims=sql.Literal(dimensions))
    with pool.connection() as conn:
        rows = conn.execute(query, {"q": query_vector, "ids": list(chunk_ids)}).fetchall()
    return {int(chunk_id): float(similarity) for chunk_id, similarity in rows}
