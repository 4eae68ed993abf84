"""Chunking throughput on the evaluation corpora: MB of text per second, one process.

Usage (from the repository root):
    python bench/chunking_throughput.py [--runs 7]
"""

import argparse
import statistics
import time
from pathlib import Path

from ragspace.chunking.chunker import Chunker
from ragspace.eval.evaluation import EvalDocument, load_claude_docs, load_codebase
from ragspace.settings import load_settings

EVAL_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "eval"


def throughput(chunker: Chunker, documents: tuple[EvalDocument, ...], runs: int) -> float:
    """Median MB/s over `runs` passes over every document."""
    size = sum(len(d.content.encode("utf-8")) for d in documents)
    rates = []
    for _ in range(runs):
        started = time.perf_counter()
        for document in documents:
            chunker.split(document.content, document.language, document.path)
        rates.append(size / (time.perf_counter() - started) / 1e6)
    return statistics.median(rates)


def main() -> None:
    """Report MB/s for the code corpus and the docs corpus with the default settings."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    settings = load_settings(env_file=None)
    chunker = Chunker(
        settings.chunking.code_chunk_size,
        settings.chunking.prose_chunk_size,
        settings.chunking.chunk_overlap,
    )
    for name, dataset in (
        ("codebase (90 files: Rust, C++, C, Python, Java)", load_codebase(EVAL_DIR / "codebase")),
        ("claude-docs (45 markdown pages)", load_claude_docs(EVAL_DIR / "claude-docs")),
    ):
        size = sum(len(d.content.encode("utf-8")) for d in dataset.documents) / 1e6
        rate = throughput(chunker, dataset.documents, args.runs)
        print(f"{name}: {size:.2f} MB, median {rate:.2f} MB/s over {args.runs} runs")
    rate = throughput(chunker, _pathological(), args.runs)
    print(f"pathological lines (minified JS, 400-char C++ and Java lines): median {rate:.2f} MB/s")


def _pathological() -> tuple[EvalDocument, ...]:
    """Inputs that make careless definition patterns backtrack."""
    minified = "var a=function(b){return b&&b.c(d)};" * 30000
    stars = "\n".join(["int " + "*&" * 190 + " x"] * 500)
    words = "\n".join(["    " + " ".join(["public"] * 60) + " x"] * 500)
    return (
        EvalDocument("app.min.js", "js", minified),
        EvalDocument("stars.cpp", "cpp", stars),
        EvalDocument("Words.java", "java", words),
    )


if __name__ == "__main__":
    main()
