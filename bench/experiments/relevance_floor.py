"""Calibrate the relevance floors: off-topic questions refused against Hit@5 kept.

An answer is refused ("nothing in these DocSets answers this") when no hit of the hybrid
search reaches its floor: `RAGSPACE_RELEVANCE_FLOOR_PROSE` for documentation hits,
`RAGSPACE_RELEVANCE_FLOOR_CODE` for code hits (`ragspace.search.retrieval.RelevanceFloor`). On both
shared evaluation sets (hybrid mode, k=10) this prints, per candidate floor of one kind (the
other kept at its default):
- the share of the off-topic questions (bench/data/off_topic_questions.txt) refused, and
- chunk-level Hit@5 of the set's real questions, a refused question counting as a miss,
  with its change from Hit@5 with no floor;
then the same two figures for the default floors, and the similarity ranges per kind.

Run (the first command builds both corpora into DIR; later runs reuse them):
    ragspace eval --data-dir DIR --modes hybrid ../shared/eval/claude-docs ../shared/eval/codebase
    python bench/experiments/relevance_floor.py --data-dir DIR
"""

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ragspace.embedding.embedders import LocalEmbedder
from ragspace.eval.evaluation import Dataset, Gold, load_claude_docs, load_codebase, match_hits
from ragspace.models import Hit, RetrievalMode, SearchQuery
from ragspace.ranking.selection import hit_is_prose
from ragspace.search.retrieval import RelevanceFloor, RetrievalOptions, Retriever
from ragspace.settings import load_settings
from ragspace.store import Database, Store

HERE = Path(__file__).resolve().parent
EVAL_DIR = next(
    (p / "shared" / "eval" for p in HERE.parents if (p / "shared").is_dir()),
    Path("../shared/eval"),
)
OFF_TOPIC = HERE.parent / "data" / "off_topic_questions.txt"
K = 10
CANDIDATES = [round(0.10 + 0.02 * i, 2) for i in range(21)]  # 0.10 .. 0.50


@dataclass(frozen=True)
class Asked:
    """One question's hits and whether a gold chunk was among the top 5."""

    question: str
    hits: tuple[Hit, ...]
    hit_at_5: bool


@dataclass(frozen=True)
class Outcome:
    """Off-topic questions refused and Hit@5 kept under one floor on one set."""

    refused: float
    hit_at_5: float
    baseline_hit_at_5: float


def off_topic_questions(path: Path = OFF_TOPIC) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def ask_all(
    retriever: Retriever, docset_id: int, questions: Sequence[tuple[str, Sequence[Gold]]]
) -> list[Asked]:
    asked = []
    for text, gold in questions:
        hits = retriever.search(
            SearchQuery(question=text, mode=RetrievalMode.HYBRID).within([docset_id]), K
        )
        matches = match_hits(hits, gold) if gold else []
        asked.append(Asked(question=text, hits=tuple(hits), hit_at_5=any(matches[:5])))
    return asked


def share(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else 0.0


def outcome(floor: RelevanceFloor, real: Sequence[Asked], unrelated: Sequence[Asked]) -> Outcome:
    return Outcome(
        refused=share([floor.refuses(a.hits, a.question) for a in unrelated]),
        hit_at_5=share([a.hit_at_5 and not floor.refuses(a.hits, a.question) for a in real]),
        baseline_hit_at_5=share([a.hit_at_5 for a in real]),
    )


def best(asked: Asked, prose: bool) -> float:
    """The best similarity of a prose (or code) hit; NaN when there is none."""
    kind = [h.vector_similarity for h in asked.hits if hit_is_prose(h) == prose]
    return max((s for s in kind if s is not None), default=float("nan"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--eval-dir", type=Path, default=EVAL_DIR)
    args = parser.parse_args()
    sets: list[tuple[str, Dataset]] = [
        ("eval-claude-docs", load_claude_docs(args.eval_dir / "claude-docs")),
        ("eval-codebase", load_codebase(args.eval_dir / "codebase")),
    ]
    off_topic = off_topic_questions()
    settings = load_settings(env_file=None, data_dir=args.data_dir)
    database = Database.open(settings)
    try:
        store = Store(database.pool)
        retriever = Retriever(store, LocalEmbedder(), RetrievalOptions())
        results: dict[str, tuple[list[Asked], list[Asked]]] = {}
        for name, dataset in sets:
            docset_id = store.docsets.named(name).id
            real = ask_all(retriever, docset_id, [(q.text, q.gold) for q in dataset.queries])
            unrelated = ask_all(retriever, docset_id, [(q, ()) for q in off_topic])
            results[dataset.name] = (real, unrelated)
    finally:
        database.close()
    report(results, RelevanceFloor(*settings.relevance_floors), len(off_topic))


def report(
    results: dict[str, tuple[list[Asked], list[Asked]]], default: RelevanceFloor, count: int
) -> None:
    names = list(results)
    print(f"{count} off-topic questions; hybrid, k={K}; chunk-level Hit@5 (change)")
    print(f"default floors: prose {default.prose:.2f}, code {default.code:.2f}")
    for kind in ("prose", "code"):
        print(f"\n| {kind} floor | " + " | ".join(f"{n} refused | {n} Hit@5" for n in names) + " |")
        print("|---:|" + "---:|---:|" * len(names))
        for value in CANDIDATES:
            floor = replace(default, **{kind: value})
            print(f"| {value:.2f} | " + " | ".join(_cells(floor, results[n]) for n in names) + " |")
    print("\n| default floors | " + " | ".join(f"{n} refused | {n} Hit@5" for n in names) + " |")
    print("|---|" + "---:|---:|" * len(names))
    print("| | " + " | ".join(_cells(default, results[n]) for n in names) + " |")
    print()
    for name in names:
        real, unrelated = results[name]
        for prose in (True, False):
            off = sorted(v for v in (best(a, prose) for a in unrelated) if v == v)
            on = sorted(v for v in (best(a, prose) for a in real) if v == v)
            if off and on:
                print(
                    f"{name}, best {'prose' if prose else 'code'} hit: off-topic max "
                    f"{off[-1]:.3f}, median {off[len(off) // 2]:.3f}; real questions min "
                    f"{on[0]:.3f}, 5th percentile {on[len(on) // 20]:.3f}, median "
                    f"{on[len(on) // 2]:.3f}"
                )


def _cells(floor: RelevanceFloor, result: tuple[list[Asked], list[Asked]]) -> str:
    found = outcome(floor, *result)
    change = found.hit_at_5 - found.baseline_hit_at_5
    return f"{found.refused:.2f} | {found.hit_at_5:.3f} ({change:+.3f})"


if __name__ == "__main__":
    main()
