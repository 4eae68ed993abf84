"""The saved pool read back: each question with its gold and what each side offered for it,
cut to the depth a ranking takes."""

import argparse
import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from bench.pool.sets import (
    DEPTH,
    MIXED_GUARDS,
    RESULTS,
    PoolSet,
    candidates_file,
    chosen_sets,
    load_questions,
    set_named,
)


@dataclass(frozen=True)
class Question:
    """A question with its gold and what each side offered for it."""

    text: str
    query: Any  # EvalQuery
    candidates: list[Any]  # ragspace.ranking.candidates.Candidate
    parts: list[tuple[str, list[Any]]]  # its sub-questions with their candidates
    # the symbol table's links between its candidates' documents (store/symbol_links.py)
    links: dict[int, dict[int, float]] = dataclasses.field(default_factory=dict)
    depth: int = DEPTH  # candidates a side at most

    @cached_property
    def offer(self) -> Any:
        """Its candidates as ranking sees them (ranking.offer.Offer), derived once for every
        ranking of the question: the grids rank each question thousands of times."""
        from ragspace.ranking.offer import Offer

        return Offer(self.text, self.candidates)

    @cached_property
    def remembered(self) -> dict[Any, dict[str, float]]:
        """Its figures by canonical options (scoring.question_scores)."""
        return {}

    @cached_property
    def part_offers(self) -> list[Any]:
        from ragspace.ranking.offer import Offer

        return [Offer(text, found) for text, found in self.parts]


def load_pool(work: Path, sets: Sequence[PoolSet]) -> dict[str, list[Question]]:
    """Every set's questions with their saved candidates, then the guards' whose source set
    is among `sets` and whose candidates were saved."""
    missing = [s.name for s in sets if not candidates_file(work / s.name).exists()]
    if missing:
        raise SystemExit(
            f"no candidates saved in {work} for {', '.join(missing)}: run `candidates` for "
            "them, or name the sets that have them with --sets"
        )
    pool = {s.name: load_questions_with_candidates(work / s.name, s) for s in sets}
    for guard, source in MIXED_GUARDS.items():
        if source in pool and candidates_file(work / guard).exists():
            pool[guard] = load_questions_with_candidates(work / guard, set_named(source))
    return pool


def load_questions_with_candidates(name: Path, pool_set: PoolSet) -> list[Question]:
    queries = {q.text: q for q in load_questions(pool_set).queries}
    questions = []
    for line in candidates_file(name).open():
        row = json.loads(line)
        parts = [(p["question"], loaded(p["candidates"])) for p in row.get("parts", [])]
        text = row["question"]
        links = {
            int(a): {int(b): float(w) for b, w in linked}
            for a, linked in row.get("links", {}).items()
        }
        questions.append(Question(text, queries[text], loaded(row["candidates"]), parts, links))
    return questions


def loaded(found: list[dict[str, Any]]) -> list[Any]:
    """Saved candidates as ranking takes them (the tried document side's evidence too)."""
    from bench.experiments.tried_signals.whole_documents import DOCUMENT
    from ragspace.models import Hit
    from ragspace.ranking.candidates import Candidate, Evidence, Side

    sides: dict[str, Any] = {side.value: side for side in Side} | {str(DOCUMENT): DOCUMENT}
    return [
        Candidate(
            Hit.model_validate(c["hit"]),
            {sides[side]: Evidence(int(r), float(s)) for side, (r, s) in c["evidence"].items()},
        )
        for c in found
    ]


def cut(candidates: Sequence[Any], depth: int) -> list[Any]:
    """Only the first `depth` candidates of each side (the app's setting)."""
    from ragspace.ranking.candidates import Candidate

    kept = []
    for c in candidates:
        evidence = {s: e for s, e in c.evidence.items() if e.rank <= depth}
        if evidence:
            kept.append(Candidate(c.hit, evidence))
    return kept


def cut_question(question: Question, depth: int) -> Question:
    """The question with only the first `depth` candidates of each side, its parts' too;
    the question itself when it holds no more (evaluate cuts the pool once, and keeping
    the question keeps its Offer)."""
    if question.depth <= depth:
        return question
    parts = [(text, cut(found, depth)) for text, found in question.parts]
    candidates = cut(question.candidates, depth)
    return dataclasses.replace(question, candidates=candidates, parts=parts, depth=depth)


def experiment_parser(doc: str, depth: int | None = None) -> argparse.ArgumentParser:
    """The arguments every experiment over the saved pool takes: --work, --depth (`depth`,
    or the app's when None), --sets."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/work/pool"))
    parser.add_argument("--depth", type=int, default=depth, help="default: the app's")
    parser.add_argument("--sets", default=None, help="a comma-separated subset (default: all)")
    return parser


def experiment_pool(
    args: argparse.Namespace,
) -> tuple[int, dict[str, list[Question]], dict[str, dict[str, float]]]:
    """An experiment's depth (the app's unless --depth), its pool cut to that depth and
    the sides' floors of the published rows (for `tuned_jointly`)."""
    from bench.pool.choice import side_floors
    from ragspace.settings.retrieval import RETRIEVAL_CANDIDATES

    depth = args.depth or RETRIEVAL_CANDIDATES
    sets = chosen_sets(args.sets and args.sets.split(","))
    if not args.sets:  # every set whose candidates were saved (a pool of the five has no others)
        sets = tuple(s for s in sets if candidates_file(args.work / s.name).exists())
    pool = load_pool(args.work, sets)
    cut_pool = {name: [cut_question(q, depth) for q in qs] for name, qs in pool.items()}
    floors = side_floors(json.loads(RESULTS.read_text())["rows"])
    return depth, cut_pool, floors
