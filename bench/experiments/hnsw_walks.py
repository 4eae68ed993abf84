"""Decision script (issue 42): how should a DocSet too large for an exact scan walk the HNSW
graph? Recall@10 against exact search, and the SQL's own latency, of several walks over the
DocSet `target-N` of a data folder that `bench/filtered_search.py` built.

    python bench/experiments/hnsw_walks.py --data-dir /work/filtered --target 100000

Walks: pgvector's iterative scan in strict order (the app before issue 42) or in relaxed order,
with `ef_search` and the number of rows asked of the index (`limit`); relaxed order re-sorts
the rows it gets by exact distance (a materialized CTE, as pgvector's documentation advises)
and keeps the nearest 50. The exact scan over the DocSet's rows is measured too.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from query_latency import EVAL, questions

from ragspace.embedding.embedders import LocalEmbedder
from ragspace.settings import load_settings
from ragspace.store import Database

WALK = """
    with walked as materialized (
        select id, embedding::vector(384) <=> %(q)s::vector(384) as distance from chunks
        where docset_id = any(%(docset)s) and vector_dims(embedding) = 384
        order by embedding::vector(384) <=> %(q)s::vector(384) limit %(limit)s)
    select id from walked order by distance, id limit 50
"""
EXACT = """
    select id from (select id, embedding::vector(384) <=> %(q)s::vector(384) as distance
                    from chunks where docset_id = any(%(docset)s) and vector_dims(embedding) = 384
                    offset 0) scanned
    order by distance, id limit 50
"""
# (order, ef_search, limit, max_scan_tuples)
WALKS = [
    ("strict_order", 400, 50, 20_000),
    ("strict_order", 600, 50, 20_000),
    ("strict_order", 800, 50, 20_000),
    ("strict_order", 1000, 50, 20_000),
    ("relaxed_order", 1000, 50, 20_000),
    ("relaxed_order", 1000, 200, 50_000),
    ("relaxed_order", 1000, 500, 100_000),
    ("relaxed_order", 1000, 1000, 200_000),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--target", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    embedder = LocalEmbedder()
    asked = questions(EVAL)
    rng = np.random.default_rng(7)
    sample = [asked[i] for i in rng.choice(len(asked), args.queries, replace=False)]
    query_vectors = embedder.embed(sample)
    database = Database.open(load_settings(env_file=None, data_dir=args.data_dir))
    try:
        with database.pool.connection() as conn:
            docset = conn.execute(
                "select id from docsets where name = %s", (f"target-{args.target}",)
            ).fetchone()
            assert docset is not None, f"no DocSet target-{args.target} in {args.data_dir}"
            rows = conn.execute(
                "select id, embedding from chunks where docset_id = %s order by id", docset
            ).fetchall()
            ids = np.array([r[0] for r in rows])
            vectors = np.stack([r[1].to_numpy() for r in rows]).astype(np.float32)
            print("| walk | ef_search | limit | max_scan_tuples | recall@10 | worst | p50 ms |")
            print("|---|---:|---:|---:|---:|---:|---:|")
            for walk in [None, *WALKS]:
                recalls, timings = [], []
                for q, query in zip(query_vectors, sample, strict=True):
                    del query
                    distances = 1.0 - vectors @ q
                    tenth = np.sort(distances)[9]
                    distance_of = dict(zip(ids.tolist(), distances.tolist(), strict=True))
                    started = time.perf_counter()
                    found = run(conn, walk, [docset[0]], q)
                    timings.append((time.perf_counter() - started) * 1000)
                    good = sum(1 for i in found[:10] if distance_of[i] <= tenth + 1e-5)
                    recalls.append(good / 10)
                name = "exact scan" if walk is None else walk[0]
                ef, limit, scan = ("", "", "") if walk is None else walk[1:]
                print(
                    f"| {name} | {ef} | {limit} | {scan} | {np.mean(recalls):.3f} | "
                    f"{min(recalls):.1f} | {statistics.median(timings):.1f} |",
                    flush=True,
                )
    finally:
        database.close()


def run(
    conn: psycopg.Connection[Any], walk: tuple[str, int, int, int] | None, docset: list[int], q: Any
) -> list[int]:
    """The 50 nearest ids by one walk (or the exact scan), in one transaction."""
    with conn.transaction():
        if walk is None:
            rows = conn.execute(EXACT, {"q": q, "docset": docset}).fetchall()
            return [r[0] for r in rows]
        order, ef, limit, scan = walk
        for setting, value in (
            ("iterative_scan", order),
            ("ef_search", ef),
            ("max_scan_tuples", scan),
        ):
            conn.execute(f"set local hnsw.{setting} = {value}".encode())
        rows = conn.execute(WALK, {"q": q, "docset": docset, "limit": limit}).fetchall()
        return [r[0] for r in rows]


if __name__ == "__main__":
    main()
