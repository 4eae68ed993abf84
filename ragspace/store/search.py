"""Search SQL: the candidates of the vector side (vector_rankings.py) and of BM25 full-text
search, each with its sides' ranks and raw scores; ranking/ orders them. A hybrid search's
two kinds of side run as two queries at once.
Small look-ups before it plan that query: the DocSets' sizes for a vector side, the chosen
terms for the keyword side."""

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from ragspace.models import Hit
from ragspace.ranking.candidates import Candidate, Evidence, Side
from ragspace.store.search_request import SearchRequest
from ragspace.store.vector_plan import session_settings
from ragspace.store.vector_rankings import strictest, vector_rankings, vector_type

QueryVector = np.ndarray[Any, np.dtype[np.float32]]


def run_search(
    pool: ConnectionPool[psycopg.Connection[Any]],
    request: SearchRequest,
    embed: Callable[[], QueryVector] | None = None,
) -> list[Candidate]:
    """Each side's best `candidates` chunks in the given DocSets, in chunk id order.

    A hybrid search runs its vector sides and its keyword sides as two queries on two
    connections at once: each is planned for itself (one query planned both sides together,
    HNSW settings included) and the answer comes when the slower one ends, not after both
    (100,000-chunk DocSet among a million chunks, p50: one query 56.7 ms, the vector sides
    16.1 and the keyword sides 32.6 alone, the two at once 37.0: docs/benchmarks.md).

    `embed`, for a request without a vector, gives the query's vector: it is called while
    the keyword half already runs, so the query's embedding overlaps the keyword search."""
    if not request.docset_ids:
        return []
    if embed is not None and request.keyword_terms:
        keyword_future = _SIDES.submit(_run_part, pool, _keyword_half(request))
        vector_side = _run_part(pool, _vector_half(replace(request, query_vector=embed())))
        return _merged(vector_side, keyword_future.result())
    if embed is not None:
        request = replace(request, query_vector=embed())
    if request.query_vector is None or not request.keyword_terms:
        return _run_part(pool, request)
    vector_future = _SIDES.submit(_run_part, pool, _vector_half(request))
    keyword_side = _run_part(pool, _keyword_half(request))  # no connection is held below
    return _merged(vector_future.result(), keyword_side)


# Threads that run a hybrid search's vector sides beside its keyword sides; when all are busy
# a search waits for one (at most this many extra connections are taken by searches).
_SIDES = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ragspace-search")


def _vector_half(request: SearchRequest) -> SearchRequest:
    return replace(request, keyword_terms=(), documents=False)


def _keyword_half(request: SearchRequest) -> SearchRequest:
    return replace(request, query_vector=None)


def _run_part(
    pool: ConnectionPool[psycopg.Connection[Any]], request: SearchRequest
) -> list[Candidate]:
    with pool.connection() as conn, conn.transaction():
        prepared = _prepare(conn, request)
        if prepared is None:
            return []
        with conn.cursor(row_factory=dict_row) as cur:
            # never a prepared statement: a generic plan would not see the tsquery's value
            rows = cur.execute(*prepared, prepare=False).fetchall()
    return [_candidate(row) for row in rows]


def _merged(vector_side: list[Candidate], keyword_side: list[Candidate]) -> list[Candidate]:
    """One candidate per chunk, with the evidence of every side that offered it."""
    merged = {candidate.hit.chunk_id: candidate for candidate in vector_side}
    for candidate in keyword_side:
        found = merged.get(candidate.hit.chunk_id)
        if found is None:
            merged[candidate.hit.chunk_id] = candidate
            continue
        hit = found.hit.model_copy(update={"keyword_rank": candidate.hit.keyword_rank})
        merged[candidate.hit.chunk_id] = Candidate(hit, found.evidence | candidate.evidence)
    return [merged[chunk_id] for chunk_id in sorted(merged)]


def _candidate(row: dict[str, Any]) -> Candidate:
    evidence: dict[Side, Evidence] = {}
    for side in Side:
        rank, score = row.pop(f"side_{side}_rank"), row.pop(f"side_{side}_score")
        if rank is not None:
            evidence[side] = Evidence(int(rank), float(score))
    return Candidate(Hit.model_validate(row), evidence)


def explain_search(pool: ConnectionPool[psycopg.Connection[Any]], request: SearchRequest) -> str:
    """The query plans Postgres runs for this search (EXPLAIN's text; a hybrid search's vector
    query, then its keyword query), e.g. to see which index each ranking uses; empty when
    there is nothing to search."""
    if not request.docset_ids:
        return ""
    plans: list[str] = []
    halves = [request]
    if request.query_vector is not None and request.keyword_terms:
        halves = [_vector_half(request), _keyword_half(request)]
    for part in halves:
        with pool.connection() as conn, conn.transaction():
            prepared = _prepare(conn, part)
            if prepared is None:
                continue
            query, parameters = prepared
            rows = conn.execute(sql.SQL("explain ") + query, parameters, prepare=False)
            plans.append("\n".join(str(row[0]) for row in rows.fetchall()))
    return "\n\n".join(plans)


def _prepare(
    conn: psycopg.Connection[Any], request: SearchRequest
) -> tuple[sql.Composed, dict[str, Any]] | None:
    """The candidates' query and its parameters, with the HNSW settings its vector rankings
    need set on `conn` (for the current transaction); None when no side takes part."""
    # the ref filter is added only when asked for, so an unversioned search keeps its plan
    parts, plans = vector_rankings(conn, request, ref_filter(request.ref, "document_id"))
    parameters = _parameters(request)
    keyword_terms: sql.Composable = sql.SQL("")
    terms = _weighted_terms(conn, parameters) if request.keyword_terms else None
    if terms is not None:
        parameters.update(terms.parameters())
        keyword_terms = sql.Composed(
            [
                _KEYWORD_MATCHES.format(ref=ref_filter(request.ref, "c.document_id")),
                sql.SQL(_DOCUMENT_MATCHES if request.documents else ""),
            ]
        )
        parts.append(_KEYWORD_CANDIDATES)
        if request.documents:
            parts.append(_DOCUMENT_CANDIDATES)
    if not parts:
        return None
    for statement in session_settings(strictest(plans)):
        conn.execute(statement)
    query = sql.SQL(_CANDIDATES).format(
        keyword_terms=keyword_terms, candidates=sql.SQL(" union all ").join(parts)
    )
    return query, parameters


@dataclass(frozen=True)
class WeightedTerms:
    """The query's lexemes the keyword side searches for, each with its IDF within the
    selected DocSets, their disjunction as a tsquery, and the DocSets' average lengths."""

    lexemes: list[str]
    idfs: list[float]
    match: str  # the tsquery's text: 'a' | 'b'
    average_words: float  # per chunk
    average_chunks: float  # per document

    def parameters(self) -> dict[str, Any]:
        return {
            "lexemes": self.lexemes,
            "idfs": self.idfs,
            "match": self.match,
            "average_words": self.average_words,
            "average_chunks": self.average_chunks,
        }


def _weighted_terms(
    conn: psycopg.Connection[Any], parameters: dict[str, Any]
) -> WeightedTerms | None:
    """The keyword side's terms (see _KEYWORD_TERMS); None when none occurs in the DocSets.

    Chosen in a query of their own so that the candidates' query carries the tsquery as a
    value: Postgres then estimates from the column's statistics how many chunks of the whole
    table match it, and for a small DocSet whose chosen words are common elsewhere reads the
    DocSet's rows instead of intersecting them with the full-text index's (at a million
    chunks, a 510,000-row bitmap for a 1,000-chunk DocSet: docs/benchmarks.md)."""
    row = conn.execute(_WEIGHTED_TERMS, parameters, prepare=False).fetchone()
    if row is None or not row[0]:
        return None
    lexemes, idfs, match, average_words, average_chunks = row
    return WeightedTerms(
        list(lexemes), [float(idf) for idf in idfs], match, average_words, average_chunks
    )


def _parameters(request: SearchRequest) -> dict[str, Any]:
    return {
        "q": request.query_vector,
        "terms": list(request.keyword_terms),
        "docsets": list(request.docset_ids),
        "candidates": request.candidates,
        "max_terms": KEYWORD_MAX_TERMS,
        "max_matches": KEYWORD_MAX_MATCHES,
        "bm25_k1": BM25_K1,
        "bm25_b": BM25_B,
        "ref": request.ref,
    }


# Bounds of the keyword side's work per query (see _KEYWORD_TERMS).
KEYWORD_MAX_TERMS = 8
KEYWORD_MAX_MATCHES = 2_000
# BM25's term-frequency saturation and length normalisation (Robertson's ranges: k1 1.2-2,
# b about 0.75); chosen on the docs set, confirmed on the code set (docs/benchmarks.md)
BM25_K1 = 2.0
BM25_B = 0.6


def ref_filter(ref: str | None, document_id: str) -> sql.Composable:
    """`and` the chunk's document is at the ref (documents.ref; '' for unversioned sources);
    nothing without a ref. A primary-key probe per candidate, so the HNSW scan keeps its
    order and filters as it goes."""
    if ref is None:
        return sql.SQL("")
    return sql.SQL(
        " and exists (select 1 from documents rd where rd.id = {} and rd.ref = %(ref)s)"
    ).format(sql.SQL(document_id))


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
               greatest(coalesce(sum(chunk_count), 0), 1)::float8
                   / greatest(count(*), 1) as average_chunks,
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
_WEIGHTED_TERMS = (
    "with "
    + _KEYWORD_TERMS.rstrip().removesuffix(",")
    + """
    select array_agg(lexeme order by lexeme), array_agg(idf order by lexeme),
           string_agg(quote_literal(lexeme), ' | ' order by lexeme)::tsquery::text,
           (select average_words from corpus), (select average_chunks from corpus)
    from weighted_terms
"""
)
# The chunks that hold any chosen lexeme (one scan, by the full-text index or of the DocSets'
# rows, whichever the planner expects to be cheaper for this tsquery); for each, once, its
# vector cut down to those lexemes (`setweight` marks them A, as nothing else in `fts` is, and
# `ts_filter` keeps them: both in C, without expanding the whole vector) gives each lexeme's
# positions in the chunk: its term frequency.
_KEYWORD_MATCHES = sql.SQL(
    """
    weighted_terms as (
        select lexeme, idf from unnest(%(lexemes)s::text[], %(idfs)s::float8[]) as w(lexeme, idf)
    ),
    corpus as (
        select %(average_words)s::float8 as average_words,
               %(average_chunks)s::float8 as average_chunks
    ),
    keyword_matches as materialized (
        select c.id, c.document_id, c.fts_words, u.lexeme, u.tf
        from chunks c
        cross join lateral (
            select lexeme, coalesce(array_length(positions, 1), 1) as tf
            from unnest(ts_filter(setweight(c.fts, 'A', %(lexemes)s::text[]), '{{a}}'))) u
        where c.fts @@ %(match)s::tsquery and c.docset_id = any(%(docsets)s){ref}
    ),
    keyword_chunks as (
        select m.id, m.document_id,
               sum(w.idf * m.tf * (%(bm25_k1)s + 1)
                   / (m.tf + %(bm25_k1)s * (1 - %(bm25_b)s + %(bm25_b)s
                                            * m.fts_words / corpus.average_words))) as score
        from keyword_matches m join weighted_terms w on w.lexeme = m.lexeme cross join corpus
        group by m.id, m.document_id
    ),
    """
)
# The same BM25 over whole documents: a lexeme's frequency summed over a document's chunks,
# its length in chunks (`documents.chunk_count`, against the average); a file that is about
# the question as a whole rises even when no single chunk says it all. Each document is
# offered through its best-scoring chunk.
_DOCUMENT_MATCHES = """
    keyword_documents as (
        select t.document_id,
               sum(w.idf * t.tf * (%(bm25_k1)s + 1)
                   / (t.tf + %(bm25_k1)s * (1 - %(bm25_b)s + %(bm25_b)s
                                            * d.chunk_count / corpus.average_chunks))) as score
        from (select document_id, lexeme, sum(tf) as tf
              from keyword_matches group by document_id, lexeme) t
        join weighted_terms w on w.lexeme = t.lexeme
        join documents d on d.id = t.document_id
        cross join corpus
        group by t.document_id
    ),
"""
_KEYWORD_CANDIDATES = sql.SQL(
    """
    (select id, 'keyword'::text as side,
            row_number() over (order by score desc, id) as rank, score
     from keyword_chunks order by score desc, id limit %(candidates)s)
    """
)
_DOCUMENT_CANDIDATES = sql.SQL(
    """
    (select id, 'document'::text as side,
            row_number() over (order by score desc, id) as rank, score
     from (select distinct on (k.document_id) k.id, d.score
           from keyword_documents d join keyword_chunks k on k.document_id = d.document_id
           order by k.document_id, k.score desc, k.id) best
     order by score desc, id limit %(candidates)s)
    """
)
_SIDE_COLUMNS = ",\n".join(
    f"max(score) filter (where side = '{side}') as {side}_score, "
    f"min(rank) filter (where side = '{side}') as {side}_rank"
    for side in Side
)
_CANDIDATES = (
    """
    with {keyword_terms}
    candidates as ({candidates}),
    sides as (select id, """
    + _SIDE_COLUMNS
    + """
        from candidates group by id)
    select c.id as chunk_id, c.document_id, ds.name as docset_name, d.path, d.title,
           c.ordinal, c.content, c.start_line, c.end_line, c.metadata, 0.0::float8 as score,
           s.vector_score as vector_similarity,
           s.keyword_rank::int as keyword_rank, """
    + ", ".join(
        f"s.{side}_score as side_{side}_score, s.{side}_rank as side_{side}_rank" for side in Side
    )
    + """,
           nullif(d.ref, '') as ref,
           case when d.ref <> '' then src.sync_state ->> 'commit' end as resolved_sha,
           coalesce(src.last_synced_at, d.updated_at) as indexed_at
    from sides s
    join chunks c on c.id = s.id
    join documents d on d.id = c.document_id
    join docsets ds on ds.id = c.docset_id
    left join sources src on src.id = d.source_id
    order by c.id
"""
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
