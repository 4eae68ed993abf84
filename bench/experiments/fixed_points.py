"""The app's ranking beside it with the definitions weighed (the three refinements every fold
of 2026-12-02's protocol run chose), as fixed points over a saved pool: no parameter is
chosen, so each figure is that ranking's on that set (docs/benchmarks-log.md, "The protocol
over semble-dev with docs-dev as guards").

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
    points = {
        "the app": app,
        "+ definitions weighed": dataclasses.replace(
            app,
            definition_specificity=1.0,
            text_definition_factor=0.0,
            definition_once_per_file=True,
        ),
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
