"""A learned ranking (issue 35 item 2, "a learned combination with few parameters trained on
the folds"): does a linear score over the evidence the app already has, fitted under
leave-one-set-out, order the pool's candidates better than the hand-built ranking?

Each candidate chunk gets 24 features, all relative to its question: each side's min-max
scaled score, reciprocal rank and confidence-weighted score (vector, keyword, the file cards,
whole documents), whether the chunk defines a symbol the question names, whether it is its
file's best chunk and how much of the candidates' score its file holds (in the hand-built
ranking), the file name's words the question uses, a test/example/generated path, prose and
prose x each chunk side, and the hand-built score itself. The score is their weighted sum,
fitted by a listwise softmax loss (the softmax of the scores over a question's candidates
against its labels: a gold chunk counts `label`, the first chunk of each gold file `1 -
label`), every training set weighing the same whatever its number of questions, with an L2
penalty towards the hand-built ranking.

For each of the five sets: the hand-built ranking is the one tuned without it (the folds of
bench/results/quality_pool.json), `label` and the penalty are chosen by leave-one-out inside
the other four, the weights are fitted on those four, and the set is scored with them (the
app's depth: 50 candidates a side). Result (2026-11-27): not kept, docs/benchmarks-log.md.

Usage (after `bench/quality_pool.py candidates --work DIR`):
    python bench/experiments/learned_ranking.py --work /work/pool
"""

import argparse
import ast
import dataclasses
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import quality_pool as qp

from bench.experiments.tried_signals.tests_lowered import is_secondary
from bench.experiments.tried_signals.whole_documents import DOCUMENT
from ragspace.eval.evaluation import match_hits, whole_files
from ragspace.ranking.candidates import Candidate, Side
from ragspace.ranking.fusion import confidence, min_max, ordered
from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions
from ragspace.ranking.ranker import scored
from ragspace.ranking.selection import hit_is_prose, one_per_section
from ragspace.ranking.signals.file_names import name_match

SIDES = (Side.VECTOR, Side.KEYWORD, Side.FILE, DOCUMENT)
FEATURES = (
    *(f"{side} scaled" for side in SIDES),
    *(f"{side} 1/rank" for side in SIDES),
    *(f"{side} scaled x confidence" for side in SIDES),
    "defines a named symbol",
    "file's best chunk",
    "file's share of today's score",
    "file name words asked",
    "test/example/generated, not asked",
    "prose",
    *(f"prose x {side} scaled" for side in SIDES[:3]),
    "today's score",
)
DEPTH = 50


def features(
    candidates: Sequence[Candidate], question: str, today_options: RankingOptions
) -> np.ndarray:
    """One row per candidate (in the given order), one column per FEATURES entry; "today"
    is the hand-built ranking with `today_options`."""
    offer = Offer(question, candidates)
    profile = offer.profile
    by_document: dict[Side, dict[int, float]] = {}
    scaled: dict[Side, dict[int, float]] = {}
    for side in SIDES:
        scaled[side] = min_max(candidates, side)
        if side in (Side.FILE, DOCUMENT):  # a document's score reaches all its chunks
            by_document[side] = {
                c.hit.document_id: scaled[side][c.hit.chunk_id]
                for c in candidates
                if c.hit.chunk_id in scaled[side]
            }
    ranks = {
        side: {c.hit.document_id: e.rank for c in candidates if (e := c.on(side))}
        for side in (Side.FILE, DOCUMENT)
    }
    sure = {side: confidence(candidates, side) for side in SIDES}
    total_sure = sum(sure.values()) or 1.0
    today = scored(offer, today_options)
    top = max(today.values(), default=0.0) or 1.0
    per_file: dict[int, float] = defaultdict(float)
    best_of_file: dict[int, int] = {}
    for c in ordered(candidates, today):
        per_file[c.hit.document_id] += max(today[c.hit.chunk_id], 0.0)
        best_of_file.setdefault(c.hit.document_id, c.hit.chunk_id)
    best_file = max(per_file.values(), default=0.0) or 1.0
    rows = []
    for c in candidates:
        hit = c.hit
        side_scaled, side_rank = [], []
        for side in SIDES:
            if side in by_document:
                side_scaled.append(by_document[side].get(hit.document_id, 0.0))
                rank = ranks[side].get(hit.document_id)
            else:
                side_scaled.append(scaled[side].get(hit.chunk_id, 0.0))
                evidence = c.on(side)
                rank = evidence.rank if evidence else None
            side_rank.append(1.0 / rank if rank else 0.0)
        weighted = [s * sure[side] / total_sure for s, side in zip(side_scaled, SIDES, strict=True)]
        rows.append(
            [
                *side_scaled,
                *side_rank,
                *weighted,
                float(hit.chunk_id in offer.defining),
                float(best_of_file[hit.document_id] == hit.chunk_id),
                per_file[hit.document_id] / best_file,
                name_match(profile, hit.path),
                float(is_secondary(hit.path) and not profile.asks_about_tests),
                float(hit_is_prose(hit)),
                *(float(hit_is_prose(hit)) * s for s in side_scaled[:3]),
                today[hit.chunk_id] / top,
            ]
        )
    return np.array(rows, dtype=np.float64).reshape(len(candidates), len(FEATURES))


class Prepared:
    """A question's candidates at the app's depth, their features and relevance: `chunk`
    marks gold chunks, `file` the first chunk (in today's order) of each gold file."""

    def __init__(self, question: Any, today_options: RankingOptions) -> None:
        self.question = question
        self.candidates = qp.cut(question.candidates, DEPTH)
        self.x = features(self.candidates, question.text, today_options)
        hits = [c.hit for c in self.candidates]
        chunk = [bool(m) for m in match_hits(hits, question.query.gold)]
        file = [bool(m) for m in match_hits(hits, whole_files(question.query).gold)]
        # a gold file counts once: the softmax then has no reason to fill the top with one
        # file's chunks
        first: set[int] = set()
        today = self.x[:, FEATURES.index("today's score")]
        for index in sorted(range(len(hits)), key=lambda i: -today[i]):
            if file[index] and hits[index].document_id not in first:
                first.add(hits[index].document_id)
            else:
                file[index] = False
        self.chunk = np.array(chunk, dtype=np.float64)
        self.file = np.array(file, dtype=np.float64)


def fit(
    training: dict[str, list[Prepared]], chunk_label: float, l2: float, steps: int = 400
) -> np.ndarray:
    """Weights minimising the mean (per set, then over sets) listwise softmax loss, with an
    L2 penalty towards today's ranking (its score's weight 1, every other 0): the fit departs
    from today only as far as the training sets pay for it."""
    prior = np.zeros(len(FEATURES))
    prior[FEATURES.index("today's score")] = 1.0
    weights = prior.copy()
    mean, variance = np.zeros_like(weights), np.zeros_like(weights)
    for step in range(1, steps + 1):
        gradient = l2 * (weights - prior)
        for prepared in training.values():
            labels = [(p, chunk_label * p.chunk + (1 - chunk_label) * p.file) for p in prepared]
            usable = [(p, y) for p, y in labels if y.sum() > 0 and len(y) > 1]
            for p, y in usable:
                logits = p.x @ weights
                logits -= logits.max()
                probabilities = np.exp(logits) / np.exp(logits).sum()
                target = y / y.sum()
                gradient += p.x.T @ (probabilities - target) / len(usable) / len(training)
        mean = 0.9 * mean + 0.1 * gradient  # Adam
        variance = 0.999 * variance + 0.001 * gradient**2
        weights -= 0.05 * (mean / (1 - 0.9**step)) / (np.sqrt(variance / (1 - 0.999**step)) + 1e-8)
    return weights


def learned(weights: np.ndarray, prepared: dict[str, Prepared]) -> qp.Ranking:
    """The ranking that orders a question's candidates by the weighted features."""

    def ranking(question: Any) -> list[Any]:
        p = prepared[question.text]
        scores = {
            c.hit.chunk_id: float(s) for c, s in zip(p.candidates, p.x @ weights, strict=True)
        }
        ranked = [(scores[c.hit.chunk_id], c.hit) for c in ordered(p.candidates, scores)]
        ranked = one_per_section(ranked)
        return [hit.model_copy(update={"score": s}) for s, hit in ranked[: qp.K]]

    return ranking


GRID = [(label, l2) for label in (0.25, 0.5) for l2 in (0.01, 0.1, 1.0)]


def fold_options(held_out: str) -> RankingOptions:
    """The hand-built ranking's options chosen without `held_out` (quality_pool.json's last
    row), so that no feature has seen the held-out set."""
    rows = json.loads(qp.RESULTS.read_text())["rows"]
    chosen = rows[-1]["folds"][held_out]["chosen"]
    changes = {}
    for pair in chosen.split(", ") if chosen != "defaults" else []:
        key, value = pair.split("=")
        changes[key] = ast.literal_eval(value)
    return dataclasses.replace(qp.today_ranking(), **changes)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--work", type=Path, required=True)
    args = options.parse_args()
    pool = qp.load_pool(args.work, qp.chosen_sets(None))
    for held_out, questions in pool.items():
        today_options = fold_options(held_out)
        prepared = {name: [Prepared(q, today_options) for q in qs] for name, qs in pool.items()}
        by_text = {p.question.text: p for ps in prepared.values() for p in ps}
        today = qp.at_depth(_today(today_options), DEPTH)
        print(f"{held_out}: today (held out) {_cells(qp.scores(questions, today))}")
        training = {n: ps for n, ps in prepared.items() if n != held_out}
        chosen = max(GRID, key=lambda point: inner_folds(pool, training, by_text, *point))
        weights = fit(training, *chosen)
        figures = qp.scores(questions, learned(weights, by_text))
        print(f"  chosen by leave-one-out on the other four: label, l2 = {chosen}")
        print(f"  learned (held out) {_cells(figures)}")


def inner_folds(
    pool: dict[str, list[Any]],
    training: dict[str, list[Prepared]],
    by_text: dict[str, Prepared],
    label: float,
    l2: float,
) -> float:
    """A grid point's mean objective over the training sets, each scored by weights fitted
    on the other training sets (the regularisation is chosen on held-out data too)."""
    total = 0.0
    for inner in training:
        weights = fit({n: ps for n, ps in training.items() if n != inner}, label, l2)
        total += qp.objective(qp.scores(pool[inner], learned(weights, by_text)))
    print(f"    label={label} l2={l2}: inner held-out objective {total / len(training):.3f}")
    return total / len(training)


def _today(today_options: RankingOptions) -> qp.Ranking:
    from ragspace.ranking.ranker import rank

    def ranking(question: Any) -> list[Any]:
        return rank(question.candidates, today_options, question.text, qp.K)

    return ranking


def _cells(figures: dict[str, float]) -> str:
    return (
        f"chunk R@10 {figures['chunk recall@10']:.3f} MRR {figures['chunk mrr@10']:.3f} | "
        f"file R@10 {figures['file recall@10']:.3f} MRR {figures['file mrr@10']:.3f} | "
        f"R@5 {figures['chunk recall@5']:.3f}"
    )


if __name__ == "__main__":
    main()
