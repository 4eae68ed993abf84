"""Search SQL: the candidates of the vector side (vector_rankings.py) and of BM25 full-text
search, each with its sides' ranks and raw scores; ranking/ orders them. A hybrid search's
two kinds of side run as two queries at once.
Small look-ups before it plan that query: the DocSets' sizes for a vector side, the chosen
terms for the keyword side."""

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import numpy as np
import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from ragspace.models import Hit
from ragspace.ranking.candidates import Candidate, Evidence, Side
from ragspace.store.keyword_side import (
    BM25_B,
    BM25_K1,
    FILE_CANDIDATES,
    FILE_MATCHES,
    FILE_MAX_TERMS,
    KEYWORD_CANDIDATES,
    KEYWORD_MATCHES,
    KEYWORD_MAX_MATCHES,
    KEYWORD_MAX_TERMS,
    weighted_terms,
)
from ragspace.store.search_request import SearchRequest
from ragspace.store.vector_plan import session_settings
from ragspace.store.vector_rankings import strictest, vector_rankings

QueryVector = np.ndarray[Any, np.dtype[np.float32]]


def run_search(
    pool: ConnectionPool[psycopg.Connection[Any]],
    request: SearchRequest,
    embed: Callable[[], QueryVector] | None = None,
) -> list[Candidate]:
    """Each side's best `candidates` chunks in the given DocSets, in chunk id order.

    A hybrid search runs its keyword sides (on a thread of `_SIDES`) and its vector sides (in
    the calling thread) as two queries on two connections at once, so the answer comes when
    the slower one ends, not after both (100,000-chunk DocSet among a million chunks, p50:
    the vector half 12-13 ms and the keyword half 25-26 ms alone, both in one statement
    35-40 ms, at once 27-30 ms: bench/experiments/search_halves.py, docs/benchmarks.md).

    `embed`, for a request without a vector, gives the query's vector: it is called while
    the keyword half already runs, so the query's embedding overlaps the keyword search."""
    if not request.docset_ids:
        return []
    if not _is_hybrid(request, embed):  # one side: one statement
        if embed is not None:
            request = replace(request, query_vector=embed())
        return [candidate for candidate, _ in _run_part(pool, request)]
    keyword_future = _SIDES.submit(_run_part, pool, _keyword_half(request))
    if embed is not None:  # embedded while the keyword half already runs
        request = replace(request, query_vector=embed())
    vector_side = _run_part(pool, _vector_half(request))  # no connection is held below
    keyword_side = keyword_future.result()
    if _one_version_per_document(vector_side + keyword_side):
        return _merged(vector_side, keyword_side)
    # a document's chunks were replaced between the two reads (a re-embedding or re-sync
    # committed): search again in one statement, one snapshot, so that no result mixes two
    # versions of a file
    return [candidate for candidate, _ in _run_part(pool, request)]


# Threads that run one half of each hybrid search beside the calling thread; when all are
# busy a search waits for one (at most this many extra connections are taken by searches).
_SIDES = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ragspace-search")


def _is_hybrid(request: SearchRequest, embed: Callable[[], QueryVector] | None = None) -> bool:
    """True when both kinds of side take part (a vector, given or to embed, and terms)."""
    has_vector = embed is not None or request.query_vector is not None
    return has_vector and bool(request.keyword_terms)


def _vector_half(request: SearchRequest) -> SearchRequest:
    return replace(request, keyword_terms=(), files=False)


def _keyword_half(request: SearchRequest) -> SearchRequest:
    return replace(request, query_vector=None)


# A candidate and the version of its document's chunk set it was read from: the transaction
# that wrote the chunk (its `xmin`; a document's chunks are always replaced all together).
Versioned = tuple[Candidate, int]


def _run_part(
    pool: ConnectionPool[psycopg.Connection[Any]], request: SearchRequest
) -> list[Versioned]:
    with pool.connection() as conn, conn.transaction():
        prepared = _prepare(conn, request)
        if prepared is None:
            return []
        with conn.cursor(row_factory=dict_row) as cur:
            # never a prepared statement: a generic plan would not see the tsquery's value
            rows = cur.execute(*prepared, prepare=False).fetchall()
    versions = [int(row.pop("chunk_version")) for row in rows]
    return [(_candidate(row), version) for row, version in zip(rows, versions, strict=True)]


def _one_version_per_document(candidates: list[Versioned]) -> bool:
    """True when every document's candidates come from one version of its chunk set."""
    versions: dict[int, int] = {}
    for candidate, version in candidates:
        if versions.setdefault(candidate.hit.document_id, version) != version:
            return False
    return True


def _merged(vector_side: list[Versioned], keyword_side: list[Versioned]) -> list[Candidate]:
    """One candidate per chunk, with the evidence of every side that offered it."""
    merged = {candidate.hit.chunk_id: candidate for candidate, _ in vector_side}
    for candidate, _ in keyword_side:
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
    halves = [_vector_half(request), _keyword_half(request)] if _is_hybrid(request) else [request]
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
    terms = weighted_terms(conn, parameters) if request.keyword_terms else None
    if terms is not None:
        parameters.update(terms.parameters())
        chunk_ref = ref_filter(request.ref, "c.document_id")
        keyword_terms = sql.Composed(
            [
                KEYWORD_MATCHES.format(ref=chunk_ref),
                FILE_MATCHES.format(ref=chunk_ref) if request.files else sql.SQL(""),
            ]
        )
        parts.append(KEYWORD_CANDIDATES)
        if request.files:
            parts.append(FILE_CANDIDATES)
    if not parts:
        return None
    for statement in session_settings(strictest(plans)):
        conn.execute(statement)
    query = sql.SQL(_CANDIDATES).format(
        keyword_terms=keyword_terms, candidates=sql.SQL(" union all ").join(parts)
    )
    return query, parameters


def _parameters(request: SearchRequest) -> dict[str, Any]:
    return {
        "q": request.query_vector,
        "terms": list(request.keyword_terms),
        "docsets": list(request.docset_ids),
        "candidates": request.candidates,
        "max_terms": KEYWORD_MAX_TERMS,
        "file_max_terms": FILE_MAX_TERMS,
        "max_matches": KEYWORD_MAX_MATCHES,
        "bm25_k1": BM25_K1,
        "bm25_b": BM25_B,
        "ref": request.ref,
    }


def ref_filter(ref: str | None, document_id: str) -> sql.Composable:
    """`and` the chunk's document is at the ref (documents.ref; '' for unversioned sources);
    nothing without a ref. A primary-key probe per candidate, so the HNSW scan keeps its
    order and filters as it goes."""
    if ref is None:
        return sql.SQL("")
    return sql.SQL(
        " and exists (select 1 from documents rd where rd.id = {} and rd.ref = %(ref)s)"
    ).format(sql.SQL(document_id))


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
           coalesce(src.last_synced_at, d.updated_at) as indexed_at,
           c.xmin::text::bigint as chunk_version
    from sides s
    join chunks c on c.id = s.id
    join documents d on d.id = c.document_id
    join docsets ds on ds.id = c.docset_id
    left join sources src on src.id = d.source_id
    order by c.id
"""
)
