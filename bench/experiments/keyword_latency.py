"""The keyword side's SQL alone: BM25 (the app's) against the former IDF x ts_rank, side by side.

BM25 reads the matched terms' frequencies from each matched chunk's full-text vector and the
chunk's stored length; the former scoring called `ts_rank` once per matched term. Both run on
every question of the two shared sets, alternately, over the DocSets `claude-docs` and
`codebase` together (as `bench/quality_model.py --model minilm --data-dir DATA_DIR` leaves
them), with the app's candidate count (50). Prints the medians and 95th percentiles of each
and their ratio. Run it on a quiet machine:

    python bench/experiments/keyword_latency.py --data-dir /work/evaldata --rounds 3

With --synthetic N it searches instead the DocSet bench-N that `bench/query_latency.py` builds
(real passages repeated, N chunks), building it in DATA_DIR first if it is not there:

    python bench/experiments/keyword_latency.py --data-dir /work/lat10k --synthetic 10000 --rounds 2
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: shared helpers
from embedder_throughput import DEFAULT_EVAL_DIR
from fusion_functions import TS_RANK_SCORES
from psycopg import sql
from query_latency import EVAL, load, seed_passages

from ragspace.embedding.embedders import LocalEmbedder
from ragspace.eval.evaluation import load_claude_docs, load_codebase
from ragspace.search.retrieval import keyword_terms
from ragspace.settings import load_settings
from ragspace.store import Database, Store
from ragspace.store.keyword_side import (
    BM25_B,
    BM25_K1,
    KEYWORD_CANDIDATES,
    KEYWORD_MAX_MATCHES,
    KEYWORD_MAX_TERMS,
    KEYWORD_TERMS,
)

CANDIDATES = 50
QUERIES = {
    "bm25": sql.SQL("with " + KEYWORD_TERMS + " unused as (select 1) select * from {}").format(
        KEYWORD_CANDIDATES.format(ref=sql.SQL(""))
    ),
    "ts_rank": sql.SQL(TS_RANK_SCORES),  # the keyword side before BM25, same candidate terms
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--synthetic", type=int, metavar="N", help="search bench-N instead")
    args = parser.parse_args()
    questions = [q.text for q in load_claude_docs(DEFAULT_EVAL_DIR / "claude-docs").queries]
    questions += [q.text for q in load_codebase(DEFAULT_EVAL_DIR / "codebase").queries]
    database = Database.open(load_settings(env_file=None, data_dir=args.data_dir))
    names = ["claude-docs", "codebase"]
    try:
        if args.synthetic:
            names = [f"bench-{args.synthetic}"]
            store = Store(database.pool)
            if not any(docset.name == names[0] for docset in store.docsets.all()):
                seeds = seed_passages(EVAL)
                vectors = np.asarray(LocalEmbedder(32, 2).embed(seeds), dtype=np.float32)
                load(store, args.synthetic, seeds, vectors)
        with database.pool.connection() as conn:
            rows = conn.execute("select id from docsets where name = any(%s)", (names,)).fetchall()
            docsets = [row[0] for row in rows]
            chunks = conn.execute(
                "select count(*) from chunks where docset_id = any(%s)", (docsets,)
            ).fetchone()
        seconds: dict[str, list[float]] = {name: [] for name in QUERIES}
        for round_number in range(args.rounds):
            order = list(QUERIES) if round_number % 2 == 0 else list(reversed(QUERIES))
            for question in questions:
                params = {
                    "terms": keyword_terms(question),
                    "docsets": docsets,
                    "candidates": CANDIDATES,
                    "max_terms": KEYWORD_MAX_TERMS,
                    "max_matches": KEYWORD_MAX_MATCHES,
                    "bm25_k1": BM25_K1,
                    "bm25_b": BM25_B,
                    "keyword_weight": 1.0,
                }
                if not params["terms"]:
                    continue
                for name in order:
                    with database.pool.connection() as conn:
                        started = time.perf_counter()
                        conn.execute(QUERIES[name], params).fetchall()
                        seconds[name].append(time.perf_counter() - started)
    finally:
        database.close()
    print(f"{len(docsets)} DocSets, {chunks[0] if chunks else 0} chunks, {args.rounds} rounds")
    medians = {}
    for name, values in seconds.items():
        values.sort()
        medians[name] = statistics.median(values)
        p95 = values[int(len(values) * 0.95)]
        p50_ms, p95_ms = medians[name] * 1000, p95 * 1000
        print(f"{name}: {len(values)} queries, p50 {p50_ms:.2f} ms, p95 {p95_ms:.2f} ms")
    print(f"bm25 / ts_rank (medians): {medians['bm25'] / medians['ts_rank']:.2f}x")


if __name__ == "__main__":
    main()
