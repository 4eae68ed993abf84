"""Before/after of one hit per prose section, side by side on the same DocSets and hits.

Run: ragspace eval --data-dir DIR ../shared/eval/claude-docs ../shared/eval/codebase
     python bench/experiments/section_diversity.py --data-dir DIR
"Before" takes the k best fused chunks (`Retriever.fused`); "after" is what
`Retriever.search` returns (3k fetched, then at most one chunk per prose section).
"""

import argparse
from collections.abc import Callable
from pathlib import Path

from ragspace.embedding.embedders import LocalEmbedder
from ragspace.eval.evaluation import Dataset, evaluate, load_claude_docs, load_codebase
from ragspace.models import Hit, RetrievalMode
from ragspace.search.retrieval import RetrievalOptions, Retriever
from ragspace.settings import load_settings
from ragspace.store import Database, Store

EVAL_DIR = next(
    (p / "shared" / "eval" for p in Path(__file__).resolve().parents if (p / "shared").is_dir()),
    Path("../shared/eval"),
)
K = 10


def ranked(
    retriever: Retriever, docset_id: int, mode: RetrievalMode, collapse: bool
) -> Callable[[str], list[Hit]]:
    """Search one DocSet as the app does (collapse) or as fusion ranks it (no collapse)."""
    search = retriever.search if collapse else retriever.fused
    return lambda query: search(query, [docset_id], K, mode)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--eval-dir", type=Path, default=EVAL_DIR)
    args = parser.parse_args()
    sets: list[tuple[str, Dataset]] = [
        ("eval-claude-docs", load_claude_docs(args.eval_dir / "claude-docs")),
        ("eval-codebase", load_codebase(args.eval_dir / "codebase")),
    ]
    database = Database.open(load_settings(env_file=None, data_dir=args.data_dir))
    try:
        store = Store(database.pool)
        embedder = LocalEmbedder()
        retriever = Retriever(store, embedder, RetrievalOptions())
        print("| set | mode | Recall@5 before -> after | Recall@10 | MRR@10 |")
        print("|---|---|---|---|---|")
        for name, dataset in sets:
            docset_id = store.docsets.named(name).id
            for mode in RetrievalMode:
                before = evaluate(ranked(retriever, docset_id, mode, False), [dataset])
                after = evaluate(ranked(retriever, docset_id, mode, True), [dataset])
                b, a = before[dataset.name].values, after[dataset.name].values
                cells = [f"{b[m]:.3f} -> {a[m]:.3f}" for m in ("recall@5", "recall@10", "mrr@10")]
                print(f"| {dataset.name} | {mode.value} | " + " | ".join(cells) + " |")
    finally:
        database.close()


if __name__ == "__main__":
    main()
