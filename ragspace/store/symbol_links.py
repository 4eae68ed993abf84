"""Which files the symbol table links to the best ones: one uses a name the other defines.

A name counts only when at most `MAX_DEFINERS` documents of its DocSet define it (`Session`,
`parse_ini_file`), not `__init__` or `get`, which would link every file to every other; each
link weighs one over the name's number of definers, summed over the names the two share and
over both directions. Ranking lifts files linked to its best ones (ranking/signals/linked_files.py).
"""

from collections import defaultdict
from collections.abc import Collection
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

MAX_DEFINERS = 2
# Bounded work per search: the candidates' documents only, and at most this many of them.
MAX_DOCUMENTS = 400

# The pairs first, then each name they share counted once: up to three of its documents,
# read in index order (migration 20261204000000), enough to tell "at most two".
_LINKS = """
    with defined as (
        select distinct document_id, docset_id, name from symbol_definitions
        where document_id = any(%(documents)s)
    ),
    used as (
        select document_id, docset_id, name from symbol_references
        where document_id = any(%(documents)s)
    ),
    pairs as (  -- a seed uses what another defines, or another uses what a seed defines
        select distinct u.document_id as user_id, d.document_id as definer_id,
                        d.docset_id, d.name
        from used u join defined d on d.docset_id = u.docset_id and d.name = u.name
        where u.document_id <> d.document_id
          and (u.document_id = any(%(seeds)s) or d.document_id = any(%(seeds)s))
    ),
    counted as materialized (
        select n.docset_id, n.name, c.definers
        from (select distinct docset_id, name from pairs) n
        cross join lateral (
            select count(*) as definers from (
                select distinct s.document_id from symbol_definitions s
                where s.docset_id = n.docset_id and s.name = n.name
                order by s.document_id
                limit %(most)s + 1
            ) found
        ) c
        where c.definers <= %(most)s
    )
    select p.user_id, p.definer_id, sum(1.0 / c.definers)::float8
    from pairs p join counted c on c.docset_id = p.docset_id and c.name = p.name
    group by p.user_id, p.definer_id
"""

Links = dict[int, dict[int, float]]


def symbol_links(
    pool: ConnectionPool[psycopg.Connection[Any]],
    seeds: Collection[int],
    documents: Collection[int],
) -> Links:
    """The links between each of `seeds` and the other documents, seeds or not (symmetric:
    a -> b and b -> a weigh the same); links between two non-seeds are not read (every link
    among `documents`: pass them as the seeds too)."""
    others = sorted(set(documents) - set(seeds))[: max(0, MAX_DOCUMENTS - len(seeds))]
    ids = sorted(seeds) + others
    if len(ids) < 2:
        return {}
    params = {"documents": ids, "seeds": sorted(seeds), "most": MAX_DEFINERS}
    with pool.connection() as conn:
        rows = conn.execute(_LINKS.encode(), params).fetchall()
    links: Links = defaultdict(lambda: defaultdict(float))
    for user, definer, weight in rows:
        links[user][definer] += weight
        links[definer][user] += weight
    return {document: dict(linked) for document, linked in links.items()}
