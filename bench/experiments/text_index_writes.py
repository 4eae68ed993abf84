"""What a DocSet's own full-text index costs its writes (docset_indexes.py).

Run: python bench/experiments/text_index_writes.py [--chunks 10000] [--rounds 3]

Why: a DocSet that gets a full-text index of its own (at least 5,000 chunks, at most half of
the table) has every chunk written into two GIN indexes (the shared one and its own), both
without a pending list. This stores the same documents (500 chunks each, realistic passages
and vectors as in query_latency.py) into a DocSet beside a larger one, through the app's own
`chunks.replace`, with and without the DocSet's own index, alternating, in a throwaway
embedded Postgres; it prints the median seconds of each and their ratio.
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: shared helpers
from query_latency import EVAL, fill, load, seed_passages

from ragspace.embedding.embedders import LocalEmbedder
from ragspace.settings import load_settings
from ragspace.store import Database, Store
from ragspace.store.docset_indexes import build_missing_indexes, text_index_name

MODEL = "local/all-MiniLM-L6-v2-int8"


def store_docset(
    store: Store, docset_id: int, chunks: int, seeds: list[str], vectors: np.ndarray
) -> float:
    """Seconds to (re)store the same `chunks` chunks in the DocSet, 500 per document."""
    started = time.perf_counter()
    fill(store, docset_id, chunks, seeds, vectors, np.random.default_rng(1))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    args = parser.parse_args()
    seeds = seed_passages(args.eval_dir)
    vectors = LocalEmbedder().embed(seeds)
    with tempfile.TemporaryDirectory(prefix="text-index-writes-") as folder:
        database = Database.open(load_settings(env_file=None, data_dir=Path(folder)))
        try:
            store = Store(database.pool)
            load(store, 3 * args.chunks, seeds, vectors)  # the larger DocSet beside it
            docset_id = store.docsets.create("measured", "", MODEL, 384).id
            store_docset(store, docset_id, args.chunks, seeds, vectors)  # first fill
            seconds: dict[bool, list[float]] = {False: [], True: []}
            for _ in range(args.rounds):
                for own_index in (False, True):
                    with store.pool.connection() as conn:
                        conn.execute(f"drop index if exists {text_index_name(docset_id)}")
                    if own_index:
                        build_missing_indexes(store.pool, 10**9, text_min_chunks=args.chunks)
                    seconds[own_index].append(
                        store_docset(store, docset_id, args.chunks, seeds, vectors)
                    )
        finally:
            database.close()
    without, with_own = (statistics.median(seconds[flag]) for flag in (False, True))
    print(f"chunks {args.chunks}, rounds {args.rounds}: {seconds}")
    print(
        f"median s without {without:.2f}, with its own index {with_own:.2f}, "
        f"ratio {with_own / without:.2f}"
    )


if __name__ == "__main__":
    main()
