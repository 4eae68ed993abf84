"""Do the sides' confidence weights hold once questions that quote code are left out? (issue 35)

Weighting each side by its confidence in its own best candidate (`confidence_power`) with a
slightly higher vector share lifts the docs set's MRR past 0.95 and sphinx's file MRR in
sample, but costs the code set 0.014-0.021 chunk R@10 (docs/benchmarks-log.md). Its losses
are questions that quote an identifier ("What is the purpose of the `printPluginMock`
function?"): the identifier is used in many chunks, so the keyword side's best candidate
does not stand out and its weight drops, while the keyword side is exactly what finds a
quoted name. Here a question that quotes code (a `backticked` span) keeps the shipped
fusion, and only the others are weighted by confidence; for comparison the rule can also
spare every question that names a symbol (QueryProfile.symbols), or no question.

Scored on top of the shipped ranking (`RankingOptions()`) over the pool's saved candidates,
the point chosen under leave-one-set-out with the guards as `quality_pool.py` chooses
(`tuned_jointly`); prints each fold's held-out figures beside the shipped ones, then every
point in sample.

Usage (from the repository root, after `quality_pool.py candidates`):
    python bench/experiments/quoted_confidence.py --work /work/pool
"""

import dataclasses
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import quality_pool as qp

from bench.experiments.tried_signals.options import TriedOptions
from ragspace.ranking.options import RankingOptions

# which questions keep the shipped fusion: none, those quoting code, those naming a symbol
SPARED = ("none", "quoted", "symbols")


@dataclasses.dataclass(frozen=True)
class Options:
    """The shipped ranking with this vector share and confidence power, except for the
    `spared` questions, which keep the shipped ranking."""

    vector_share: float = 0.5
    confidence_power: float = 0.0
    spared: str = "none"


def spared(question: qp.Question, rule: str) -> bool:
    """The question keeps the shipped fusion under `rule`."""
    if rule == "quoted":
        return "`" in question.text and bool(question.offer.profile.symbols)
    if rule == "symbols":
        return bool(question.offer.profile.symbols)
    return False


def family(depth: int) -> Any:
    """Rankings by options: `Options`, or for the protocol's reference plain
    `RankingOptions` (the shipped ranking)."""
    shipped = TriedOptions()  # the shipped ranking, with the tried confidence weights' field

    def ranking(options: Options | RankingOptions) -> qp.Ranking:
        if isinstance(options, RankingOptions):
            return qp.AppRanking(options, depth)
        weighted = dataclasses.replace(
            shipped,
            vector_share=options.vector_share,
            confidence_power=options.confidence_power,
        )

        def ranked(q: qp.Question) -> list[Any]:
            return qp.ranked(q, shipped if spared(q, options.spared) else weighted)

        return qp.at_depth(ranked, depth)

    return ranking


def main() -> None:
    parser = qp.experiment_parser(__doc__)
    args = parser.parse_args()
    depth, pool, floors = qp.experiment_pool(args)
    axes: dict[str, list[Any]] = {
        "vector_share": [0.5, 0.55, 0.6],
        "confidence_power": [0.0, 1.0, 2.0],
        "spared": list(SPARED),
    }
    ranking = family(depth)
    tuned = qp.tuned_jointly(pool, ranking, axes, Options(), floors)
    shipped = {
        name: qp.scores(questions, ranking(RankingOptions())) for name, questions in pool.items()
    }
    qp.print_experiment(pool, tuned, shipped, "shipped")
    for share in axes["vector_share"]:
        for power in axes["confidence_power"][1:]:
            for rule in SPARED:
                point = Options(share, power, rule)
                print(qp.in_sample_line(str(point), pool, ranking(point)))


if __name__ == "__main__":
    main()
