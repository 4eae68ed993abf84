"""How a vector ranking finds its nearest chunks: an exact scan of the DocSets' own rows, or
a walk of an HNSW graph.

One HNSW index holds the vectors of every DocSet. Searched with a DocSet filter, its graph walk
starts among the other DocSets' vectors and, when the wanted DocSets are a small share of the
table, does not reach all of their true neighbours: results then depend on what else the
database holds. So a search whose DocSets hold few enough chunks ranks them exactly (a b-tree
on `docset_id`, every selected vector compared: about 8 ms for 10,000 inline vectors),
and only a larger one walks a graph: the DocSet's own (docset_indexes.py) where it has one,
else the shared one, with a candidate list and a scan budget that grow as the selection's
share of the table shrinks (measured in bench/filtered_search.py).
"""

import math
from dataclasses import dataclass

from psycopg import sql

from ragspace.settings import EXACT_SEARCH_MAX_CHUNKS

# pgvector's bounds of hnsw.ef_search and its default hnsw.max_scan_tuples
HNSW_MAX_EF_SEARCH = 1000
HNSW_DEFAULT_MAX_SCAN_TUPLES = 20_000
# bounded work per search however small the selection's share (pgvector's own limit is 2^31)
HNSW_MAX_SCAN_TUPLES = 1_000_000


@dataclass(frozen=True)
class VectorPlan:
    """Exact scan, or an HNSW walk with these limits (iterative scan, strict order)."""

    exact: bool
    ef_search: int = 0
    max_scan_tuples: int = 0


def plan_vector_search(
    rows: int,
    share: float,
    candidates: int,
    ef_search: int,
    exact_max_chunks: int = EXACT_SEARCH_MAX_CHUNKS,
) -> VectorPlan:
    """Exact when the selection holds at most `exact_max_chunks` rows; otherwise a walk long
    enough that, with the selection holding `share` of the index's vectors, about `ef_search`
    of those visited are its own (pgvector's limits permitting)."""
    if rows <= exact_max_chunks:
        return VectorPlan(exact=True)
    share = min(1.0, max(share, 1e-6))
    wanted = max(ef_search, candidates)
    ef = min(HNSW_MAX_EF_SEARCH, max(wanted, math.ceil(wanted / share)))
    scan = min(
        HNSW_MAX_SCAN_TUPLES, max(HNSW_DEFAULT_MAX_SCAN_TUPLES, math.ceil(4 * wanted / share))
    )
    return VectorPlan(exact=False, ef_search=ef, max_scan_tuples=scan)


def nearest(plan: VectorPlan, distance: sql.Composable, where: sql.Composable) -> sql.Composable:
    """The `limit %(candidates)s` rows nearest by `distance` among those `where` admits, as
    (id, distance): by the HNSW index, or by computing every distance (`offset 0` keeps the
    planner from turning the scan back into an index-ordered one)."""
    if plan.exact:
        return sql.SQL(
            "select id, distance from (select id, {distance} as distance from chunks"
            " where {where} offset 0) scanned order by distance, id limit %(candidates)s"
        ).format(distance=distance, where=where)
    return sql.SQL(
        "select id, {distance} as distance from chunks where {where}"
        " order by {distance} limit %(candidates)s"
    ).format(distance=distance, where=where)


def session_settings(plan: VectorPlan) -> list[sql.Composed | sql.SQL]:
    """`set local` statements the plan needs before its query (none for an exact scan)."""
    if plan.exact:
        return []
    return [
        # keep walking the graph until enough rows pass the DocSet filter, in distance order
        sql.SQL("set local hnsw.iterative_scan = strict_order"),
        sql.SQL("set local hnsw.ef_search = {}").format(sql.Literal(plan.ef_search)),
        sql.SQL("set local hnsw.max_scan_tuples = {}").format(sql.Literal(plan.max_scan_tuples)),
    ]
