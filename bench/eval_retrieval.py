"""Retrieval quality per mode (vector, keyword, hybrid) on both evaluation sets.

Run: python bench/eval_retrieval.py [--out results.json]
Ingests ../shared/eval/claude-docs and ../shared/eval/codebase once each into a
throwaway embedded Postgres with the default chunker and the local embedder, then
scores every query in every mode (no LLM, no rerank). Data: anthropic-cookbook (MIT).
"""

import argparse
import json
import tempfile
import time
from pathlib import Path

from ragspace.embeddings import LocalEmbedder
from ragspace.evaluation import (
    Dataset,
    evaluate,
    file_level,
    ingest,
    load_claude_docs,
    load_codebase,
    service_search,
)
from ragspace.retrieval import RetrievalMode
from ragspace.runtime import build_chunker, build_service
from ragspace.services import RagspaceService
from ragspace.settings import Settings
from ragspace.store import Database, Store
from ragspace.worker import Ingestor

EVAL_DIR = Path(__file__).resolve().parents[2] / "shared" / "eval"
METRICS = ["recall@5", "recall@10", "mrr@10", "ndcg@10", "hit@5"]


def score_modes(
    service: RagspaceService, name: str, views: list[Dataset]
) -> list[dict[str, object]]:
    """Every view of one DocSet scored in every mode."""
    rows: list[dict[str, object]] = []
    for mode in RetrievalMode:
        started = time.perf_counter()
        scores = evaluate(service_search(service, name, 10, mode), views)
        seconds = time.perf_counter() - started
        for view, result in scores.items():
            rows.append(
                {
                    "set": view,
                    "mode": mode.value,
                    "queries": result.queries,
                    "seconds": round(seconds, 1),
                    **{m: round(result.values[m], 3) for m in METRICS},
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--eval-dir", type=Path, default=EVAL_DIR)
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--data-dir", type=Path, help="keep the embedded database here and reuse its DocSets"
    )
    args = parser.parse_args()
    settings = Settings(_env_file=None)
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as folder:
        data_dir = args.data_dir or Path(folder)
        database = Database.open(settings.model_copy(update={"data_dir": data_dir}))
        try:
            store = Store(database.pool)
            embedder = LocalEmbedder(batch_size=settings.embedding_batch_size)
            service = build_service(settings, store, embedder)
            ingestor = Ingestor(store, build_chunker(settings), embedder)
            docs = load_claude_docs(args.eval_dir / "claude-docs")
            code = load_codebase(args.eval_dir / "codebase")
            for name, views in (("docs", [docs]), ("code", [code, file_level(code)])):
                if name not in {d.name for d in service.list_docsets()}:
                    service.create_docset(name)
                    ingest(store, ingestor, name, views[0])
                rows += score_modes(service, name, views)
        finally:
            database.close()
    print("| set | mode | R@5 | R@10 | MRR@10 | nDCG@10 | Hit@5 |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['set']} | {row['mode']} | "
            + " | ".join(f"{row[m]:.3f}" for m in METRICS)
            + " |"
        )
    if args.out:
        args.out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
