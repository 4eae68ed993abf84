"""Which candidate files the symbol table links: one uses a name that the other defines.

A name counts only when at most `MAX_DEFINERS` documents of its DocSet define it (`Session`,
`parse_ini_file`), not `__init__` or `get`, which would link every file to every other; each
link weighs one over the name's number of definers, summed over the names the two share and
over both directions. Ranking lifts files linked to its best ones (ranking/neighbours.py).
"""

from collections import defaultdict
from collections.abc import Collection
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

MAX_DEFINERS = 2
# Bounded work per search: the candidates' documents only, and at most this many of them.
MAX_DOCUMENTS = 400

_LINKS = """
    with uses as (
        select distinct r.document_id as user_id, d.document_id as definer_id,
                        r.docset_id, r.name
        from symbol_references r
        join symbol_definitions d on d.docset_id = r.docset_id and d.name = r.name
        where r.document_id = any(%(ids)s) and d.document_id = any(%(ids)s)
          and d.document_id <> r.document_id
    )
    select u.user_id, u.definer_id, sum(1.0 / n.definers)::float8
    from uses u
    cross join lateral (
        select count(distinct s.document_id) as definers from symbol_definitions s
        where s.docset_id = u.docset_id and s.name = u.name
    ) n
    where n.definers <= %(most)s
    group by u.user_id, u.definer_id
"""

Links = dict[int, dict[int, float]]


def symbol_links(
    pool: ConnectionPool[psycopg.Connection[Any]], document_ids: Collection[int]
) -> Links:
    """For each of these documents, the others it is linked to and the links' weight
    (symmetric: a -> b and b -> a weigh the same)."""
    ids = sorted(document_ids)[:MAX_DOCUMENTS]
    links: Links = defaultdict(lambda: defaultdict(float))
    if len(ids) < 2:
        return {}
    with pool.connection() as conn:
        rows = conn.execute(_LINKS.encode(), {"ids": ids, "most": MAX_DEFINERS}).fetchall()
    for user, definer, weight in rows:
        links[user][definer] += weight
        links[definer][user] += weight
    return {document: dict(linked) for document, linked in links.items()}
