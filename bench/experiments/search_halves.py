"""A hybrid search's two halves timed alone, in one statement, and at once (store/search.py).

Run: python bench/experiments/search_halves.py --data-dir /work/filtered1m \
         --targets 100000 10000 1000 [--questions 80]

Why: a hybrid search used to run its vector and keyword sides in one SQL statement. This
times, per target DocSet of a data folder that `bench/filtered_search.py` filled (DocSets
named `target-N`), each side's half alone, the whole search as one statement (what
`run_search` still falls back to when a re-embedding commits between its two reads), and
the search as the app runs it (the two halves on two connections at once). Every question is
searched by each variant, in an order rotated from one question to the next (the first
search of a question finds a colder cache), after five warm-up searches; it prints the
median ms of each.
The query vectors are embedded beforehand: only the store's work is timed.
"""

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: shared helpers
from query_latency import EVAL, questions

from ragspace.embedding.embedders import LocalEmbedder
from ragspace.search.retrieval import keyword_terms
from ragspace.settings import load_settings
from ragspace.store import Database, Store
from ragspace.store.search import _run_part, run_search
from ragspace.store.search_request import SearchRequest


def _median_ms(
    variants: dict[str, Callable[[SearchRequest], object]], requests: list[SearchRequest]
) -> dict[str, float]:
    """Each variant's median ms over the requests; per request the variants run in a rotated
    order, so that none always comes first (a cold cache) or last (a warm one)."""
    names = list(variants)
    times: dict[str, list[float]] = {name: [] for name in names}
    for i, request in enumerate(requests):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            started = time.perf_counter()
            variants[name](request)
            times[name].append(time.perf_counter() - started)
    return {name: round(statistics.median(values) * 1000, 1) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--targets", type=int, nargs="+", default=[100_000, 10_000, 1_000])
    parser.add_argument("--questions", type=int, default=80)
    args = parser.parse_args()
    every = questions(EVAL)  # the docs set's questions, then the code set's
    half = args.questions // 2
    sample = every[:half] + every[-half:]
    embedder = LocalEmbedder()
    vectors = embedder.embed(sample)
    database = Database.open(load_settings(env_file=None, data_dir=args.data_dir))
    try:
        store, pool = Store(database.pool), database.pool
        print("| DocSet chunks | vector half | keyword half | one statement | at once (app) |")
        print("|---:|---:|---:|---:|---:|")
        for size in args.targets:
            docset = store.docsets.named(f"target-{size}")
            requests = [
                SearchRequest([docset.id], 384, vector, keyword_terms(q), 50, documents=True)
                for q, vector in zip(sample, vectors, strict=True)
            ]
            for request in requests[:5]:
                run_search(pool, request)
            variants = {
                "vector": lambda r: _run_part(pool, replace(r, keyword_terms=(), documents=False)),
                "keyword": lambda r: _run_part(pool, replace(r, query_vector=None)),
                "one statement": lambda r: _run_part(pool, r),
                "at once": lambda r: run_search(pool, r),
            }
            figures = _median_ms(variants, requests)
            print(f"| {size:,} | " + " | ".join(map(str, figures.values())) + " |", flush=True)
    finally:
        database.close()


if __name__ == "__main__":
    main()
