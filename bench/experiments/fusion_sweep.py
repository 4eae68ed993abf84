"""Fusion sweep: hybrid retrieval on both shared sets for each (RRF k, keyword weight).

(Reciprocal rank fusion; the app fuses by convex combination by default since issue 19:
`bench/experiments/fusion_functions.py` compares the two.)

Runs `ragspace eval` once per setting (through RAGSPACE_RRF_K / RAGSPACE_KEYWORD_WEIGHT) on a
database that already holds both corpora, and prints one row per setting, chunk level.

Usage (from the repository root; the first `ragspace eval` into DATA_DIR ingests the corpora):
    python bench/experiments/fusion_sweep.py --data-dir /tmp/ragspace-eval --rrf-k 5 10 20 60 \
        --keyword-weight 0.75 1 1.25 1.5
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from itertools import product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: shared helpers
from app_harness import default_eval_dir

EVAL_DIR = default_eval_dir()  # shared/eval above the checkout or worktree
SETS = ("claude-docs", "codebase")
METRICS = ("recall@5", "recall@10", "mrr@10")


def hybrid_chunk_metrics(data_dir: str, rrf_k: int, keyword_weight: float) -> dict[str, dict]:
    """{dataset: hybrid chunk-level metrics} for one setting."""
    env = os.environ | {
        "RAGSPACE_FUSION": "rrf",
        "RAGSPACE_RRF_K": str(rrf_k),
        "RAGSPACE_KEYWORD_WEIGHT": str(keyword_weight),
    }
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "eval.json"
        command = [sys.executable, "-m", "ragspace_cli", "eval", *(str(EVAL_DIR / s) for s in SETS)]
        command += ["--data-dir", data_dir, "--no-grade", "--modes", "hybrid", "--json", str(out)]
        subprocess.run(command, env=env, check=True, capture_output=True)
        reports = json.loads(out.read_text())["reports"]
    return {
        report["dataset"]: next(m for m in report["modes"] if m["mode"] == "hybrid")["chunk"]
        for report in reports
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--rrf-k", type=int, nargs="+", default=[5, 10, 20, 60])
    parser.add_argument("--keyword-weight", type=float, nargs="+", default=[0.75, 1.0, 1.25, 1.5])
    args = parser.parse_args()
    header = " | ".join(f"{s} {m}" for s in SETS for m in METRICS)
    print(f"| RRF k | keyword weight | {header} |")
    print("|---:|---:|" + "---:|" * (len(SETS) * len(METRICS)))
    for rrf_k, weight in product(args.rrf_k, args.keyword_weight):
        metrics = hybrid_chunk_metrics(args.data_dir, rrf_k, weight)
        cells = " | ".join(f"{metrics[s][m]:.3f}" for s in SETS for m in METRICS)
        print(f"| {rrf_k} | {weight:g} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
