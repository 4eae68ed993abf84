"""Search SQL: HNSW vector KNN and BM25 full-text search, fused in one query."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from ragspace.models import Fusion, Hit


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
    ef_search: int = 400
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
    """Vector KNN and/or full-text search in the given DocSets, fused, one query."""
    parts: list[sql.Composable] = []
    # the ref filter is added only when asked for, so an unversioned search keeps its plan
    ref = _ref_filter(request.ref, "document_id")
    ref_c = _ref_filter(request.ref, "c.document_id")  # the keyword side's alias
    if request.query_vector is not None:
        parts.append(
            _VECTOR_CANDIDATES.format(
                vt=_vector_type(request.dimensions), dims=sql.Literal(request.dimensions), ref=ref
            )
        )
    if request.keyword_terms:
        parts.append(_KEYWORD_CANDIDATES.format(ref=ref_c))
    if not request.docset_ids:
        return []
    if request.fast_vector is not None and (
        request.fast_everywhere or _has_fast_only_chunks(pool, request.docset_ids)
    ):
        fast = _FAST_EVERYWHERE if request.fast_everywhere else _FAST_CANDIDATES
        parts.append(fast.format(ref=ref))
    if not parts:
        return []
    query = sql.SQL(_FUSED).format(
        keyword_terms=sql.SQL(_KEYWORD_TERMS if request.keyword_terms else ""),
        candidates=sql.SQL(" union all ").join(parts),
        contribution=_CONTRIBUTION[request.fusion],
    )
    params = {
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
    with pool.connection() as conn, conn.transaction():
        # keep walking the HNSW graph until enough rows pass the DocSet filter
        conn.execute("set local hnsw.iterative_scan = strict_order")
        conn.execute(
            sql.SQL("set local hnsw.ef_search = {}").format(sql.Literal(request.ef_search))
        )
        with conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(query, params).fetchall()
    return [Hit.model_validate(row) for row in rows]


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


def _has_fast_only_chunks(
    pool: ConnectionPool[psycopg.Connection[Any]], docset_ids: Sequence[int]
) -> bool:
    """Whether some chunk of these DocSets still waits for its quality vector.

    Answered from a small partial index; when false (the usual case once ingestion is
    done) the query is exactly the single-tier one.
    """
    with pool.connection() as conn:
        row = conn.execute(
            "select exists (select 1 from chunks where docset_id = any(%s)"
            " and embedding is null and fast_embedding is not null)",
            (list(docset_ids),),
        ).fetchone()
    return bool(row and row[0])


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
# 1 when they score alike), as convex fusion combines them. Both vector rankings' columns,
# all but the weight, from each candidate's cosine distance:
_BY_DISTANCE = """
    id, 1 - distance as vector_similarity, null::int as keyword_rank,
    row_number() over (order by distance, id) as rank,
    coalesce((max(distance) over () - distance)
             / nullif(max(distance) over () - min(distance) over (), 0), 1.0) as scaled
"""
_VECTOR_CANDIDATES = sql.SQL(
    "(select "
    + _BY_DISTANCE
    + """, %(vector_weight)s::float8 as weight
     from (select id, embedding::{vt} <=> %(q)s::{vt} as distance
           from chunks
           where docset_id = any(%(docsets)s) and vector_dims(embedding) = {dims}{ref}
           order by embedding::{vt} <=> %(q)s::{vt}
           limit %(candidates)s) nearest)
    """
)
# The fast tier's own ranking: over the chunks that have no quality vector yet (the partial
# HNSW index holds exactly those), or over every chunk (an exact scan, for evaluating the fast
# tier alone). Cosines of the static and the quality model are not comparable, so each tier
# is ranked and scaled on its own (in RRF only the ranks meet).
_FAST_RANKING = (
    "(select "
    + _BY_DISTANCE
    + """, %(fast_weight)s::float8 as weight
     from (select id, fast_embedding <=> %(fq)s::vector(384) as distance
           from chunks
           where docset_id = any(%(docsets)s) and fast_embedding is not null {only}{ref}
           order by fast_embedding <=> %(fq)s::vector(384)
           limit %(candidates)s) nearest_fast)
"""
)
_FAST_CANDIDATES = sql.SQL(_FAST_RANKING.replace("{only}", "and embedding is null"))
_FAST_EVERYWHERE = sql.SQL(_FAST_RANKING.replace("{only}", ""))
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
