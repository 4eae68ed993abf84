"""Step 2: every side's candidates for each question from its set's own database (the query
the app runs, DEPTH a side), with the tried signals' own evidence (the whole documents'
side, the sub-questions' candidates) and the symbol table's links, saved as JSON lines."""

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.pool.sets import (
    DEPTH,
    MIXED,
    MIXED_GUARDS,
    PoolSet,
    candidates_file,
    data_dir,
    load_questions,
    set_named,
)


def dump_candidates(work: Path, sets: Sequence[PoolSet]) -> None:
    """Each question's candidates from the set's own database, saved as JSON lines; the
    guards' too when their source set is among `sets`."""
    for pool_set in sets:
        queries = load_questions(pool_set).queries
        save_candidates(data_dir(work, pool_set), pool_set.docset, queries, work / pool_set.name)
    for guard, source in MIXED_GUARDS.items():
        if source in {s.name for s in sets}:
            queries = load_questions(set_named(source)).queries
            save_candidates(data_dir(work, MIXED), MIXED.docset, queries, work / guard)


def save_candidates(folder: Path, docset_name: str, queries: Sequence[Any], name: Path) -> None:
    """Every side's candidates for each question from one DocSet, with the sub-questions'
    and the symbol table's links between the candidates' documents."""
    from bench.experiments.tried_signals.document_side import with_documents
    from bench.experiments.tried_signals.sub_questions import sub_questions
    from ragspace.runtime import open_runtime
    from ragspace.settings import load_settings

    runtime = open_runtime(load_settings(data_dir=folder, database_url=None), worker_threads=0)
    try:
        store, embedder = runtime.store, runtime.embedder
        docset = store.docsets.named(docset_name).id
        with candidates_file(name).open("w") as out:
            for query in queries:
                vector = embedder.embed([query.text])[0]
                found = with_documents(store, hybrid_request(embedder, docset, query.text, vector))
                texts = sub_questions(query.text)
                vectors = list(embedder.embed(texts)) if texts else []
                parts = [
                    (text, with_documents(store, hybrid_request(embedder, docset, text, v)))
                    for text, v in zip(texts, vectors, strict=True)
                ]
                documents = {c.hit.document_id for c in found}
                links = store.symbol_links(documents, documents)  # every pair
                row = {
                    "question": query.text,
                    "candidates": found_json(found),
                    "parts": [{"question": p, "candidates": found_json(c)} for p, c in parts],
                    # the symbol table's links between the candidates' documents
                    "links": {a: list(linked.items()) for a, linked in links.items()},
                }
                out.write(json.dumps(row) + "\n")
    finally:
        runtime.close()
    print(f"{name.name}: candidates saved", file=sys.stderr)


def hybrid_request(embedder: Any, docset: int, text: str, vector: Any) -> Any:
    """The app's hybrid search for `text` (its `vector`) in one DocSet, DEPTH a side, the
    file side too (as Retriever builds it)."""
    from ragspace.search.retrieval import keyword_terms
    from ragspace.settings import EXACT_SEARCH_MAX_CHUNKS, HNSW_EF_SEARCH
    from ragspace.store import SearchRequest

    return SearchRequest(
        docset_ids=[docset],
        dimensions=embedder.dimensions,
        query_vector=vector,
        keyword_terms=keyword_terms(text),
        candidates=DEPTH,
        files=True,
        ef_search=max(DEPTH, HNSW_EF_SEARCH),
        exact_max_chunks=EXACT_SEARCH_MAX_CHUNKS,
    )


def found_json(candidates: Sequence[Any]) -> list[dict[str, Any]]:
    return [
        {
            "hit": c.hit.model_dump(mode="json"),
            "evidence": {str(side): [e.rank, e.score] for side, e in c.evidence.items()},
        }
        for c in candidates
    ]
