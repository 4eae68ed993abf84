"""A hybrid search runs its vector and keyword halves as two queries: the merge loses nothing."""

import threading
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from ragspace.embedding.embedders import Embedder
from ragspace.models import ChunkDraft
from ragspace.ranking.candidates import Candidate, Side
from ragspace.search.retrieval import keyword_terms
from ragspace.store import NewDocument, Store
from ragspace.store import search as search_module
from ragspace.store.search import Versioned
from ragspace.store.search_request import SearchRequest

PASSAGES = [
    "Take a nightly logical backup with pg_dump and keep fourteen daily copies.",
    "Restore each backup into a scratch database every month to test it.",
    "The glossary defines a replica as a read-only copy of the primary database.",
    "Rotate the TLS certificates before they expire; the load balancer holds them.",
    "Otters build dams from willow branches and river mud.",
    "Spring tides peak a day or two after the new moon.",
]
QUESTION = "How are database backups tested with a restore?"


def _docset(store: Store, embedder: Embedder) -> int:
    docset_id = store.docsets.create("ops", "", "local/test", embedder.dimensions).id
    [document_id] = store.documents.upsert(
        docset_id, None, [NewDocument("ops.md", "ops", "markdown", "x", "ops")]
    )
    _write_chunks(store, embedder, docset_id, document_id)
    return docset_id


def _write_chunks(store: Store, embedder: Embedder, docset_id: int, document_id: int) -> None:
    """The document's chunk set, written anew (new chunk ids), as a re-embedding does."""
    chunks = [
        ChunkDraft(ordinal=i, content=text, start_line=i + 1, end_line=i + 1)
        for i, text in enumerate(PASSAGES)
    ]
    vectors = np.asarray(embedder.embed(PASSAGES), dtype=np.float32)
    store.chunks.replace(document_id, docset_id, chunks, vectors, [str(i) for i in range(6)])


def _chunk_ids(store: Store) -> tuple[int, set[int]]:
    """The one document's id and its chunks' ids."""
    with store.pool.connection() as conn:
        rows = conn.execute("select document_id, id from chunks").fetchall()
    [document_id] = {row[0] for row in rows}
    return document_id, {row[1] for row in rows}


def _hybrid(embedder: Embedder, docset_id: int, **options: Any) -> SearchRequest:
    """A hybrid search for QUESTION in the DocSet."""
    return SearchRequest(
        [docset_id],
        embedder.dimensions,
        query_vector=embedder.embed([QUESTION])[0],
        keyword_terms=keyword_terms(QUESTION),
        **options,
    )


def _evidence(candidates: list[Candidate]) -> dict[int, dict[Side, tuple[int, float]]]:
    return {
        c.hit.chunk_id: {side: (e.rank, round(e.score, 9)) for side, e in c.evidence.items()}
        for c in candidates
    }


def test_hybrid_candidates_are_the_union_of_each_halfs_with_both_evidences(
    store: Store, embedder: Embedder
) -> None:
    docset_id = _docset(store, embedder)
    hybrid = _hybrid(embedder, docset_id, candidates=4, files=True)
    vector_only = store.chunks.search(replace(hybrid, keyword_terms=()))
    keyword_only = store.chunks.search(replace(hybrid, query_vector=None))
    both = store.chunks.search(hybrid)

    expected = _evidence(vector_only)
    for chunk_id, sides in _evidence(keyword_only).items():
        expected.setdefault(chunk_id, {}).update(sides)
    assert _evidence(both) == expected
    assert [c.hit.chunk_id for c in both] == sorted(expected)  # chunk id order, each once
    assert {Side.VECTOR, Side.KEYWORD} <= {side for c in both for side in c.evidence}
    shared = [c for c in both if c.on(Side.VECTOR) and c.on(Side.KEYWORD)]
    assert shared, "the backup passages are found by both halves"
    for candidate in shared:  # the hit carries what each half knows of it
        assert candidate.hit.vector_similarity is not None
        assert candidate.hit.keyword_rank == candidate.evidence[Side.KEYWORD].rank


def test_the_two_halves_run_on_two_threads_at_once(
    store: Store, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    docset_id = _docset(store, embedder)
    request = _hybrid(embedder, docset_id)
    # each half waits at a barrier for the other: run one after the other, they never meet
    # and the barrier breaks after its timeout
    barrier = threading.Barrier(2, timeout=30)
    run_part = search_module._run_part
    threads: list[str] = []

    def meeting(pool: Any, part: SearchRequest) -> list[Versioned]:
        threads.append(threading.current_thread().name)
        barrier.wait()
        return run_part(pool, part)

    monkeypatch.setattr(search_module, "_run_part", meeting)
    assert store.chunks.search(request)
    assert len(set(threads)) == 2 and any(t.startswith("ragspace-search") for t in threads)


def test_the_query_is_embedded_while_the_keyword_half_runs(
    store: Store, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    docset_id = _docset(store, embedder)
    with_vector = _hybrid(embedder, docset_id)
    expected = _evidence(store.chunks.search(with_vector))
    # the keyword half and the embedding wait for each other: if the query were embedded
    # before the keyword half started (or after it ended), they would never meet
    barrier = threading.Barrier(2, timeout=30)
    run_part = search_module._run_part

    def keyword_half_meets_the_embedding(pool: Any, part: SearchRequest) -> list[Versioned]:
        if part.query_vector is None:
            barrier.wait()
        return run_part(pool, part)

    def embed() -> Any:
        barrier.wait()
        return with_vector.query_vector

    monkeypatch.setattr(search_module, "_run_part", keyword_half_meets_the_embedding)
    found = store.chunks.search(replace(with_vector, query_vector=None), embed)
    assert _evidence(found) == expected


def test_a_re_embedding_between_the_two_reads_is_searched_again_in_one_snapshot(
    store: Store, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    docset_id = _docset(store, embedder)
    document_id, before = _chunk_ids(store)
    request = SearchRequest(
        [docset_id],
        embedder.dimensions,
        keyword_terms=keyword_terms(QUESTION),
        candidates=6,
    )
    run_part = search_module._run_part
    keyword_read = threading.Event()
    reads: list[SearchRequest] = []

    def counted(pool: Any, part: SearchRequest) -> list[Versioned]:
        found = run_part(pool, part)
        reads.append(part)
        if part.query_vector is None:
            keyword_read.set()
        return found

    def embed_after_a_re_embedding() -> Any:
        # the keyword half has read the old chunk set; a re-embedding commits a new one
        assert keyword_read.wait(30)
        _write_chunks(store, embedder, docset_id, document_id)
        return embedder.embed([QUESTION])[0]

    monkeypatch.setattr(search_module, "_run_part", counted)
    found = store.chunks.search(request, embed_after_a_re_embedding)
    _, after = _chunk_ids(store)
    assert before.isdisjoint(after)
    assert found and {c.hit.chunk_id for c in found} <= after  # one version: the new one
    assert len(reads) == 3  # the keyword half, the vector half, then both in one statement
    assert {Side.VECTOR, Side.KEYWORD} <= {side for c in found for side in c.evidence}
