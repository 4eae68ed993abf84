"""Should a long question lean more on the vector side? (issue 35, 2026-11-28: no)

Verbose questions match many chunks on a few of their terms each, which dilutes the keyword
side, and in sample the SWE-QA sets (median 16-17 telling terms a question) prefer a vector
share of 0.6-0.7 where the code set (4 terms) and the docs set (11) prefer 0.4-0.5. The
variant: the shipped ranking (`RankingOptions()`) with its vector share raised for a
question of more than `pivot` terms (QueryProfile.terms), linearly up to `verbose_share` at
twice the pivot. Pivot and share chosen under leave-one-set-out with the guards as
`quality_pool.py` chooses (`tuned_jointly`); prints the held-out folds beside the shipped
figures, the shipped share at each fixed value in sample, and the default in sample.

Usage (from the repository root, after `quality_pool.py candidates`):
    python bench/experiments/verbose_share.py --work /work/pool
"""

import dataclasses
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import quality_pool as qp

from ragspace.ranking.options import RankingOptions
from ragspace.ranking.query import QueryProfile


@dataclasses.dataclass(frozen=True)
class Options:
    """Where a question counts as long, and the vector share at twice that length."""

    pivot: int = 8
    verbose_share: float = RankingOptions().vector_share  # that of every question: off


def share_for(terms: int, options: Options) -> float:
    base = RankingOptions().vector_share
    if terms <= options.pivot:
        return base
    reach = min(1.0, (terms - options.pivot) / options.pivot)
    return base + reach * (options.verbose_share - base)


def family(depth: int) -> Any:
    """Rankings by `Options`, or by plain `RankingOptions` (the protocol's reference)."""

    def ranking(options: Options | RankingOptions) -> qp.Ranking:
        def ranked(q: qp.Question) -> list[Any]:
            if isinstance(options, Options):
                share = share_for(len(QueryProfile(q.text).terms), options)
                chosen = dataclasses.replace(RankingOptions(), vector_share=share)
            else:
                chosen = options
            return qp.ranked(q, chosen)

        return qp.at_depth(ranked, depth)

    return ranking


def main() -> None:
    parser = qp.experiment_parser(__doc__, depth=50)
    parser.add_argument("--pivots", default="6,8,10,12,14")
    parser.add_argument("--shares", default="0.5,0.6,0.7,0.8")
    args = parser.parse_args()
    depth, pool, floors = qp.experiment_pool(args)
    ranking = family(depth)
    for share in (0.3, 0.4, 0.5, 0.6, 0.7):
        fixed = dataclasses.replace(RankingOptions(), vector_share=share)
        print(qp.in_sample_line(f"share {share} for every question", pool, ranking(fixed)))
    axes: dict[str, list[Any]] = {
        "pivot": [int(p) for p in args.pivots.split(",")],
        "verbose_share": [float(s) for s in args.shares.split(",")],
    }
    tuned = qp.tuned_jointly(pool, ranking, axes, Options(), floors)
    shipped = {
        name: qp.scores(questions, ranking(RankingOptions())) for name, questions in pool.items()
    }
    qp.print_experiment(pool, tuned, shipped, "shipped")
    print(
        "default in sample: "
        + "  ".join(
            f"{n} {qp.headline_cell(n, qp.scores(qs, ranking(tuned[1])))}" for n, qs in pool.items()
        )
    )


if __name__ == "__main__":
    main()
