"""The whole documents' side of the keyword search, which whole_documents.py lifts chunks by:
the keyword side's BM25 over whole documents, a lexeme's frequency summed over a document's
chunks and its length in chunks (`documents.chunk_count`, against the DocSets' average).
Each document is offered through its best-scoring keyword chunk, DEPTH documents at most.

The app's store no longer scores documents (no signal of the app reads them); the protocol's
candidates step asks this query after the store's own, over the same chosen terms and
matches (store/keyword_side.py), and adds its evidence (whole_documents.DOCUMENT) to the
candidates, the chunks it alone offers too.
"""

from collections.abc import Sequence
from typing import Any

from psycopg import sql
from psycopg.rows import dict_row

from bench.experiments.tried_signals.whole_documents import DOCUMENT
from ragspace.models import Hit
from ragspace.ranking.candidates import Candidate, Evidence
from ragspace.store import SearchRequest, Store
from ragspace.store.keyword_side import KEYWORD_MATCHES, weighted_terms
from ragspace.store.search import _parameters as search_parameters

AVERAGE_CHUNKS = """
    select greatest(coalesce(sum(chunk_count), 0), 1)::float8 / greatest(count(*), 1)
    from documents where docset_id = any(%(docsets)s)
"""
DOCUMENTS = """
    keyword_documents as (
        select t.document_id,
               sum(w.idf * t.tf * (%(bm25_k1)s + 1) / (t.tf + %(bm25_k1)s * (1 - %(bm25_b)s
                   + %(bm25_b)s * d.chunk_count / %(average_chunks)s::float8))) as score
        from (select document_id, lexeme, sum(tf) as tf
              from keyword_matches group by document_id, lexeme) t
        join weighted_terms w on w.lexeme = t.lexeme
        join documents d on d.id = t.document_id
        group by t.document_id
    )
    select id, row_number() over (order by score desc, id) as rank, score
    from (select distinct on (k.document_id) k.id, d.score
          from keyword_documents d join keyword_chunks k on k.document_id = d.document_id
          order by k.document_id, k.score desc, k.id) best
    order by score desc, id limit %(candidates)s
"""
HITS = """
    select c.id as chunk_id, c.document_id, ds.name as docset_name, d.path, d.title,
           c.ordinal, c.content, c.start_line, c.end_line, c.metadata, 0.0::float8 as score,
           nullif(d.ref, '') as ref,
           case when d.ref <> '' then src.sync_state ->> 'commit' end as resolved_sha,
           coalesce(src.last_synced_at, d.updated_at) as indexed_at
    from chunks c
    join documents d on d.id = c.document_id
    join docsets ds on ds.id = c.docset_id
    left join sources src on src.id = d.source_id
    where c.id = any(%(ids)s)
    order by c.id
"""


def with_documents(store: Store, request: SearchRequest) -> list[Candidate]:
    """The store's candidates for `request` with the document side's evidence added (the
    chunks it alone offers as candidates of their own), in chunk id order."""
    found = {c.hit.chunk_id: c for c in store.chunks.search(request)}
    offered = document_side(store, request) if request.keyword_terms else {}
    for chunk, evidence in offered.items():
        if chunk in found:
            held = found[chunk]
            found[chunk] = Candidate(held.hit, {**held.evidence, DOCUMENT: evidence})
    alone = [chunk for chunk in offered if chunk not in found]
    for hit in _hits(store, alone):
        found[hit.chunk_id] = Candidate(hit, {DOCUMENT: offered[hit.chunk_id]})
    return [found[chunk] for chunk in sorted(found)]


def document_side(store: Store, request: SearchRequest) -> dict[int, Evidence]:
    """The document side's evidence by the chunk it offers each document through."""
    parameters = search_parameters(request)
    with store.pool.connection() as conn, conn.transaction():
        terms = weighted_terms(conn, parameters)
        if terms is None:
            return {}
        parameters.update(terms.parameters())
        average = conn.execute(AVERAGE_CHUNKS, parameters, prepare=False).fetchone()
        assert average is not None
        parameters["average_chunks"] = average[0]
        query = sql.Composed(
            [sql.SQL("with "), KEYWORD_MATCHES.format(ref=sql.SQL("")), sql.SQL(DOCUMENTS)]
        )
        rows = conn.execute(query, parameters, prepare=False).fetchall()
    return {int(chunk): Evidence(int(rank), float(score)) for chunk, rank, score in rows}


def _hits(store: Store, chunk_ids: Sequence[int]) -> list[Hit]:
    if not chunk_ids:
        return []
    with store.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        rows: list[dict[str, Any]] = cur.execute(HITS, {"ids": list(chunk_ids)}).fetchall()
    return [Hit.model_validate(row) for row in rows]
