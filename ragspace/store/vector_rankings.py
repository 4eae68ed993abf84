"""The vector side of a search: each vector ranking's SQL, planned by the size of the DocSets
searched (vector_plan.py) and, above the exact limit, on their own graphs (docset_indexes.py)."""

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import sql

from ragspace.store.docset_indexes import docsets_with_graphs
from ragspace.store.search_request import SearchRequest
from ragspace.store.vector_plan import VectorPlan, nearest, plan_vector_search


def vector_rankings(
    conn: psycopg.Connection[Any], request: SearchRequest, ref: sql.Composable
) -> tuple[list[sql.Composable], list[VectorPlan]]:
    """The request's vector ranking as a candidate subquery, and how it finds its nearest
    chunks; none without a query vector. `ref` filters by GitHub ref."""
    if request.query_vector is None:
        return [], []
    sizes, table = _selection(conn, request)
    nearest_quality, plans = _quality_nearest(conn, request, sizes, table, ref)
    return [BY_DISTANCE.format(side=sql.Literal("vector"), nearest=nearest_quality)], plans


def _selection(conn: psycopg.Connection[Any], request: SearchRequest) -> tuple[dict[int, int], int]:
    """Chunks of each searched DocSet and of every DocSet (kept in `docset_lengths`)."""
    rows = conn.execute(_SELECTION, {"docsets": list(request.docset_ids)}).fetchall()
    sizes = {int(docset): int(chunks) for docset, chunks, _ in rows if docset is not None}
    table = int(rows[0][2]) if rows else 0
    return sizes, table


_SELECTION = """
    with lengths as (select docset_id, chunks from docset_lengths)
    select l.docset_id, l.chunks, (select coalesce(sum(chunks), 0) from lengths)::bigint
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
    a small selection; else each DocSet with a graph of its own walks it (docset_indexes.py)
    and the others are ranked together, exactly or on the shared graph, by their own size."""
    distance = sql.SQL("embedding::{vt} <=> %(q)s::{vt}").format(vt=vector_type(request.dimensions))
    selected = sum(sizes.values())
    plan = _plan(request, selected, table)
    own = set() if plan.exact else docsets_with_graphs(conn, sorted(sizes), request.dimensions)
    if not own:
        everything = _quality_filter(request, sql.SQL("%(docsets)s"), ref)
        return nearest(plan, distance, everything), [plan]
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
        walks.append(nearest(plans[-1], distance, _quality_filter(request, sql.Literal(rest), ref)))
    merged = sql.SQL(
        "select id, distance from ({}) walks order by distance, id limit %(candidates)s"
    ).format(sql.SQL(" union all ").join(sql.SQL("({})").format(w) for w in walks))
    return merged, plans


def _plan(request: SearchRequest, rows: int, table: int) -> VectorPlan:
    return plan_vector_search(
        rows, rows / max(table, 1), request.candidates, request.ef_search, request.exact_max_chunks
    )


def _quality_filter(
    request: SearchRequest, docsets: sql.Composable, ref: sql.Composable
) -> sql.Composable:
    """The rows of `docsets` (an array) with a quality vector of the request's width (the
    shared HNSW index of that width is partial on exactly this predicate)."""
    return sql.SQL("docset_id = any({}) and vector_dims(embedding) = {}{}").format(
        docsets, sql.Literal(request.dimensions), ref
    )


def strictest(plans: Sequence[VectorPlan]) -> VectorPlan:
    """One set of HNSW limits for the query: the largest any of its index walks asks for."""
    walks = [plan for plan in plans if not plan.exact]
    if not walks:
        return VectorPlan(exact=True)
    return VectorPlan(
        exact=False,
        ef_search=max(plan.ef_search for plan in walks),
        max_scan_tuples=max(plan.max_scan_tuples for plan in walks),
    )


def vector_type(dimensions: int) -> sql.Composable:
    return sql.SQL("vector({})").format(sql.Literal(dimensions))


# Each side yields (id, side, rank, score): ranks start at 1, the score is the side's raw
# one. A vector ranking's, from each of its nearest chunks' cosine distance:
BY_DISTANCE = sql.SQL(
    """(select id, {side}::text as side, row_number() over (order by distance, id) as rank,
            1 - distance as score
     from ({nearest}) nearest)
    """
)
