"""The vector side of a search: each vector ranking's SQL, planned by the size of the DocSets
searched (vector_plan.py) and, above the exact limit, on their own graphs (docset_graphs.py)."""

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import sql

from ragspace.store.docset_graphs import docsets_with_graphs
from ragspace.store.search_request import SearchRequest
from ragspace.store.vector_plan import VectorPlan, nearest, plan_vector_search


def vector_rankings(
    conn: psycopg.Connection[Any], request: SearchRequest, ref: sql.Composable
) -> tuple[list[sql.Composable], list[VectorPlan]]:
    """The request's vector rankings (quality and fast tier) as candidate subqueries, and how
    each finds its nearest chunks; none without a query vector. `ref` filters by GitHub ref."""
    wants_fast = request.fast_vector is not None
    if request.query_vector is None and not wants_fast:
        return [], []
    sizes, table, fast_only = _selection(conn, request, fast=wants_fast)
    parts: list[sql.Composable] = []
    plans: list[VectorPlan] = []
    if request.query_vector is not None:
        nearest_quality, quality_plans = _quality_nearest(conn, request, sizes, table, ref)
        parts.append(BY_DISTANCE.format(side=sql.Literal("vector"), nearest=nearest_quality))
        plans += quality_plans
    if wants_fast and (request.fast_everywhere or fast_only > 0):
        # no index holds every fast vector (evaluating the tier: exact); the fast index holds
        # every DocSet's waiting chunks and their share is not kept, so a selection too large
        # for an exact scan walks it as far as the plan's bounds allow
        plan = (
            VectorPlan(exact=True)
            if request.fast_everywhere
            else plan_vector_search(
                fast_only, 0.0, request.candidates, request.ef_search, request.exact_max_chunks
            )
        )
        parts.append(_fast_ranking(plan, ref, everywhere=request.fast_everywhere))
        plans.append(plan)
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


def _fast_ranking(plan: VectorPlan, ref: sql.Composable, everywhere: bool) -> sql.Composable:
    """The fast tier's own ranking: over the chunks that have no quality vector yet (the
    partial HNSW index holds exactly those), or over every chunk (evaluating the fast tier
    alone). Cosines of the static and the quality model are not comparable, so each tier is
    a side of its own in the fusion."""
    only = sql.SQL("") if everywhere else sql.SQL(" and embedding is null")
    distance = sql.SQL("fast_embedding <=> %(fq)s::vector(384)")
    where = sql.SQL(
        "docset_id = any(%(docsets)s) and fast_embedding is not null{only}{ref}"
    ).format(only=only, ref=ref)
    return BY_DISTANCE.format(side=sql.Literal("fast"), nearest=nearest(plan, distance, where))
