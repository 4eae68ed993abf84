"""Should the keyword-only ranking (before the vectors land) lift the chunks that define a
symbol the question names, now that a definition is weighed by how few files define it?
(issue 68)

The keyword-only ranking (search/keyword_ranking.py) was chosen with no definition boost: a
namespace that a dozen files "define" (`absl`) lifted them all. With the boost weighed
(signals/defined_symbols.py), this scores the keyword-only ranking at each boost over the
saved pool (each question without its vector side, as the protocol's "keyword-only ranking"
row), chooses the boost under leave-one-set-out (bench/pool/choice.py: semble-dev's
repositories one group, the guards judged at the point chosen on every set) and prints each
fold's choice and held-out figures, then every boost's figures on every set.

    python bench/experiments/keyword_definitions.py --work /work/pool
"""

import dataclasses
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.pool.choice import leave_one_set_out
from bench.pool.questions import Question, experiment_parser, experiment_pool
from bench.pool.report import headline_cell, headline_line
from bench.pool.scoring import Ranking, keyword_sides, ranked
from bench.pool.sets import SEMBLE_SETS, headline_of

BOOSTS = (0.0, 0.25, 0.5, 1.0, 2.0)


def family(options: Any) -> Ranking:
    from ragspace.search.keyword_ranking import for_candidates

    return lambda question: ranked(question, for_candidates(options, question.candidates))


def grid() -> list[Any]:
    from bench.experiments.tried_signals.options import tried
    from ragspace.search.keyword_ranking import keyword_only_ranking

    base = tried(keyword_only_ranking())
    return [dataclasses.replace(base, definition_boost=boost) for boost in BOOSTS]


def main() -> None:
    args = experiment_parser(__doc__).parse_args()
    _depth, pool, _floors = experiment_pool(args)
    alone: dict[str, list[Question]] = {
        name: [keyword_sides(q) for q in questions] for name, questions in pool.items()
    }
    semble = {s.name for s in SEMBLE_SETS}
    points = grid()
    folds, guards = leave_one_set_out(alone, family, points)
    repos = []
    for name, fold in folds.items():
        boost = fold["chosen"].split("definition_boost=")[-1].split(",")[0]
        print(f"without {name}: boost {boost}, held out {headline_cell(name, fold['scores'])}")
        if name in semble:
            repos.append(fold["scores"][headline_of(name)[0]])
    if repos:
        print(f"semble-dev held out, repo mean NDCG@10 {sum(repos) / len(repos):.3f}")
    for guard, figures in guards.items():
        print(f"guard {guard} (the point chosen on every set): {headline_cell(guard, figures)}")
    for point in points:
        print(headline_line(f"boost {point.definition_boost}", alone, family(point)), flush=True)


if __name__ == "__main__":
    main()
