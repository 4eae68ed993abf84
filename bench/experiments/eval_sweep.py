"""Chunk-size sweep: ingest each evaluation set per size and report retrieval metrics.

Usage (from the repository root):
    python bench/experiments/eval_sweep.py --code-sizes 800 1200 --prose-sizes 600 1000 \
        --out sweep.json
"""

import argparse
import json
import tempfile
import time
from pathlib import Path

from ragspace.actions.corpora import ingest
from ragspace.chunking.chunker import Chunker
from ragspace.embedding.embedders import LocalEmbedder
from ragspace.eval.evaluation import (
    Dataset,
    evaluate,
    file_level,
    load_claude_docs,
    load_codebase,
)
from ragspace.ingestion.worker import Ingestor
from ragspace.models import SearchQuery
from ragspace.runtime import build_actions
from ragspace.settings import load_settings
from ragspace.store import Database, Store

EVAL_DIR = next(
    (p / "shared" / "eval" for p in Path(__file__).resolve().parents if (p / "shared").is_dir()),
    Path("../shared/eval"),
)


def run(
    store: Store, embedder: LocalEmbedder, chunker: Chunker, name: str, datasets: list[Dataset]
) -> dict[str, object]:
    """Ingest datasets[0]'s documents with `chunker` and score every view of it."""
    actions = build_actions(load_settings(env_file=None), store, embedder)
    actions.docsets.create(name)
    started = time.perf_counter()
    ingest(store, Ingestor(store, chunker, embedder), name, datasets[0])
    seconds = time.perf_counter() - started
    chunks = actions.docsets.get(name).chunk_count
    scores = evaluate(
        lambda query: actions.search.hits(
            SearchQuery(question=query, docsets=(name,), limit=10, floor=False)
        ),
        datasets,
    )
    result = {"run": name, "chunks": chunks, "ingest_seconds": round(seconds, 1)}
    result |= {ds: {k: round(v, 4) for k, v in s.values.items()} for ds, s in scores.items()}
    print(json.dumps(result), flush=True)
    return result


def main() -> None:
    """Parse arguments, start a throwaway embedded Postgres, run every size."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--code-sizes", type=int, nargs="*", default=[])
    parser.add_argument("--prose-sizes", type=int, nargs="*", default=[])
    parser.add_argument("--overlap", type=int, default=100)
    parser.add_argument("--label", default="new")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    defaults = load_settings(env_file=None)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        database = Database.open(load_settings(env_file=None, data_dir=Path(tmp)))
        try:
            store = Store(database.pool)
            embedder = LocalEmbedder(batch_size=32)
            if args.prose_sizes:
                docs = load_claude_docs(EVAL_DIR / "claude-docs")
                for size in args.prose_sizes:
                    chunker = Chunker(defaults.chunking.code_chunk_size, size, args.overlap)
                    results.append(
                        run(store, embedder, chunker, f"{args.label}-prose-{size}", [docs])
                    )
            if args.code_sizes:
                code = load_codebase(EVAL_DIR / "codebase")
                views = [code, file_level(code)]
                for size in args.code_sizes:
                    chunker = Chunker(size, defaults.chunking.prose_chunk_size, args.overlap)
                    results.append(
                        run(store, embedder, chunker, f"{args.label}-code-{size}", views)
                    )
        finally:
            database.close()
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
