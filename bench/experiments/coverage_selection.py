"""Does listing hits for the question's uncovered terms help? (issue 35 item 6, 2026-11-28: no)

Term-coverage selection, a no-LLM take on questions about two things ("X versus Y", two
topics in one sentence; 29 of claude-docs' 100 questions miss a gold section in the top 5,
mostly the second of two): after the best hit, the next hit listed is the one whose score
(over the best one's) plus `weight` times the share of the question's terms it adds to those
the listed hits hold is highest, among the 30 best. Scored on top of the shipped ranking
(`RankingOptions()`) over the pool's saved candidates, with the weight chosen under
leave-one-set-out and the guards as `quality_pool.py` chooses (`tuned_jointly`); prints each
fold's held-out figures beside the shipped ones, then every weight in sample.

Usage (from the repository root, after `quality_pool.py candidates`):
    python bench/experiments/coverage_selection.py --work /work/pool --weights 0,0.2,0.5,0.8,1.5,3
"""

import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import quality_pool as qp

from ragspace.models import Hit
from ragspace.ranking.options import RankingOptions
from ragspace.ranking.query import QueryProfile
from ragspace.text.terms import terms

WINDOW = 30  # the best hits the selection reorders


@dataclasses.dataclass(frozen=True)
class Options:
    """The shipped ranking and the coverage weight (0: the shipped ranking alone)."""

    coverage_weight: float = 0.0


def cover_question(hits: Sequence[Hit], wanted: frozenset[str], weight: float) -> list[Hit]:
    """The best hit, then greedily the hit with the best score / best score + weight x the
    share of `wanted` it adds to the terms already listed (within the WINDOW best)."""
    if weight <= 0 or len(hits) < 3 or not wanted or hits[0].score <= 0:
        return list(hits)
    window, rest = list(hits[:WINDOW]), list(hits[WINDOW:])
    unit = window[0].score
    found = [terms(hit.content) & wanted for hit in window]
    order, covered = [0], set(found[0])
    left = list(range(1, len(window)))
    while left:
        gains = [
            (window[i].score / unit + weight * len(found[i] - covered) / len(wanted), -i)
            for i in left
        ]
        best = -max(gains)[1]
        order.append(best)
        covered |= found[best]
        left.remove(best)
    return [window[i] for i in order] + rest


def family(depth: int) -> Any:
    """Rankings by options: `Options` (the shipped ranking, then the coverage step) or, for
    the protocol's reference, plain `RankingOptions` (today's ranking, no coverage step)."""

    def ranking(options: Options | RankingOptions) -> qp.Ranking:
        base = options if isinstance(options, RankingOptions) else RankingOptions()
        weight = 0.0 if isinstance(options, RankingOptions) else options.coverage_weight

        def ranked(q: qp.Question) -> list[Any]:
            hits = qp.ranked(q, base, limit=None)
            return cover_question(hits, QueryProfile(q.text).terms, weight)[: qp.K]

        return qp.at_depth(ranked, depth)

    return ranking


def main() -> None:
    parser = qp.experiment_parser(__doc__, depth=50)
    parser.add_argument("--weights", default="0,0.2,0.5,0.8,1.5,3")
    args = parser.parse_args()
    depth, pool, floors = qp.experiment_pool(args)
    weights = [float(w) for w in args.weights.split(",")]
    ranking = family(depth)
    tuned = qp.tuned_jointly(pool, ranking, {"coverage_weight": weights}, Options(), floors)
    shipped = {name: qp.scores(questions, ranking(Options())) for name, questions in pool.items()}
    qp.print_experiment(pool, tuned, shipped, "shipped")
    for weight in weights:
        print(qp.in_sample_line(f"weight {weight}", pool, ranking(Options(weight))))


if __name__ == "__main__":
    main()
