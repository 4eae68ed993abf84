"""The app's ranking before round 4 beside its steps to the one round 4 ships, as fixed points
over a saved pool: no parameter is chosen, so each figure is that ranking's on that set
(docs/benchmarks-log.md, "Ranking round 4"): the definitions weighed (the three refinements
every fold chose), then docs pages spread when another page nearly ties (the app now).

    python bench/experiments/fixed_points.py --work /work/pool
"""

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.pool.questions import experiment_parser, experiment_pool
from bench.pool.scoring import AppRanking, scores
from bench.pool.sets import GUARDS, HEADLINE, SEMBLE_SETS


def main() -> None:
    from bench.experiments.tried_signals.options import tried
    from ragspace.ranking.options import RankingOptions

    args = experiment_parser(__doc__).parse_args()
    depth, pool, _floors = experiment_pool(args)
    app = tried(RankingOptions())
    before = dataclasses.replace(  # as round 3 shipped it
        app,
        file_weight=0.5,
        lift_best_chunk=True,
        file_confidence_power=2.0,
        definition_boost=2.0,
        definition_specificity=0.0,
        text_definition_factor=1.0,
        definition_once_per_file=False,
        name_boost=0.0,
        prose_factor=0.5,
        neighbour_weight=0.3,
        page_decay=1.0,
        page_spread_power=0.0,
    )
    weighed = dataclasses.replace(
        before,
        definition_specificity=1.0,
        text_definition_factor=0.0,
        definition_once_per_file=True,
    )
    points = {
        "the app before round 4": before,
        "+ definitions weighed": weighed,
        "+ pages spread when they nearly tie": dataclasses.replace(
            weighed, page_decay=0.7, page_spread_power=8.0
        ),
        "the app now": app,
    }
    semble = {s.name for s in SEMBLE_SETS}
    for label, point in points.items():
        cells, repos = [], []
        for name, questions in pool.items():
            first, second = HEADLINE.get(name) or HEADLINE[GUARDS[name]]
            figures = scores(questions, AppRanking(point, depth))
            if name in semble:
                repos.append((figures[first], figures[second]))
            else:
                cells.append(f"{name} {figures[first]:.3f} / {figures[second]:.3f}")
        if repos:
            mean = [sum(pair[i] for pair in repos) / len(repos) for i in (0, 1)]
            cells.append(f"semble-dev {mean[0]:.3f} / {mean[1]:.3f}")
        print(f"{label}: " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
