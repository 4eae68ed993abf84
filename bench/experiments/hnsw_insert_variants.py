"""Rows per second into an HNSW-indexed table, for index variants that trade recall for speed.

Run: python bench/experiments/hnsw_insert_variants.py [--rows 20000] [--eval-dir ../shared/eval]

Why: chunk storage is bounded by inserting each row into the HNSW graph (see
docs/benchmarks.md, Ingestion). This measures, on a scratch table in a throwaway
embedded Postgres, one binary COPY of realistic 384-d vectors (real MiniLM embeddings of
evaluation passages plus noise, as in query_latency.py) into: the shipped index
(vector, cosine, m 16, ef_construction 64), a cheaper build (ef_construction 32),
half-precision vectors, binary-quantized vectors (hamming), and no vector index.
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: shared helpers
from query_latency import EVAL, seed_passages

from ragspace.embedding.embedders import LocalEmbedder
from ragspace.settings import load_settings
from ragspace.store import Database

VARIANTS = {
    "vector cosine, m 16, ef_construction 64 (shipped)": (
        "using hnsw ((embedding::vector(384)) vector_cosine_ops)"
    ),
    "vector cosine, m 16, ef_construction 32": (
        "using hnsw ((embedding::vector(384)) vector_cosine_ops) with (ef_construction = 32)"
    ),
    "halfvec cosine, m 16, ef_construction 64": (
        "using hnsw ((embedding::halfvec(384)) halfvec_cosine_ops)"
    ),
    "binary quantized, hamming, m 16, ef_construction 64": (
        "using hnsw ((binary_quantize(embedding)::bit(384)) bit_hamming_ops)"
    ),
    "no vector index": None,
}


def vectors(rows: int, eval_dir: Path) -> np.ndarray:
    """Clustered unit vectors: real embeddings of evaluation passages plus noise."""
    seeds = LocalEmbedder().embed(seed_passages(eval_dir))
    rng = np.random.default_rng(0)
    picked = seeds[rng.integers(0, len(seeds), rows)]
    noisy = picked + rng.normal(0, 0.05, picked.shape).astype(np.float32)
    unit: np.ndarray = (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype(np.float32)
    return unit


def rows_per_second(database: Database, index: str | None, data: np.ndarray) -> float:
    """One binary COPY of every vector into a fresh scratch table with the given index."""
    with database.pool.connection() as conn:
        conn.execute("drop table if exists hnsw_bench")
        conn.execute("create table hnsw_bench (id int primary key, embedding vector)")
        if index:
            conn.execute(f"create index on hnsw_bench {index}")
        conn.commit()
        started = time.perf_counter()
        with (
            conn.cursor() as cur,
            cur.copy("copy hnsw_bench (id, embedding) from stdin with (format binary)") as copy,
        ):
            copy.set_types(["int4", "vector"])
            for number, vector in enumerate(data):
                copy.write_row((number, vector))
        conn.commit()
        seconds = time.perf_counter() - started
        conn.execute("drop table hnsw_bench")
        conn.commit()
    return len(data) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    args = parser.parse_args()
    data = vectors(args.rows, args.eval_dir)
    with tempfile.TemporaryDirectory() as folder:
        database = Database.open(load_settings(env_file=None, data_dir=Path(folder)))
        try:
            print(f"| index ({args.rows:,} rows, one COPY) | rows/s |")
            print("|---|---:|")
            for name, index in VARIANTS.items():
                print(f"| {name} | {rows_per_second(database, index, data):,.0f} |", flush=True)
        finally:
            database.close()


if __name__ == "__main__":
    main()
