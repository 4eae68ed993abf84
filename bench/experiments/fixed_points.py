"""The app's ranking before round 4 beside its steps to the one round 4 ships, as fixed points
over a saved pool: no parameter is chosen, so each figure is that ranking's on that set
(docs/benchmarks-log.md, "Ranking round 4"): the definitions weighed (the three refinements
every fold chose), then docs pages spread when another page nearly ties (the app now).

    python bench/experiments/fixed_points.py --work /work/pool [--write]

`--write` saves the figures to bench/results/fixed_points.json, from which the README's line on
the app's own defaults is generated (scripts/write_benchmarks.py).
"""

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.pool.questions import experiment_parser, experiment_pool
from bench.pool.report import headline_figures
from bench.pool.scoring import AppRanking

RESULTS = Path(__file__).resolve().parents[1] / "results" / "fixed_points.json"
APP_NOW = "the app now"


def main() -> None:
    from bench.experiments.tried_signals.options import tried
    from ragspace.ranking.options import RankingOptions

    parser = experiment_parser(__doc__)
    parser.add_argument("--write", action="store_true", help=f"save the figures to {RESULTS}")
    args = parser.parse_args()
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
        APP_NOW: app,
    }
    figures: dict[str, dict[str, list[float]]] = {}
    for label, point in points.items():
        row = headline_figures(pool, AppRanking(point, depth))
        figures[label] = row
        cells = [f"{name} {a:.3f} / {b:.3f}" for name, (a, b) in row.items()]
        print(f"{label}: " + " | ".join(cells), flush=True)
    if args.write:
        RESULTS.write_text(json.dumps({"run": _run(), "points": figures}, indent=1) + "\n")


def _run() -> dict[str, Any]:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return {
        "command": "python bench/experiments/fixed_points.py --work /work/pool --write",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": commit,
        "load": os.getloadavg()[0],
    }


def readme_line(results: Path = RESULTS) -> str:
    """The README's line on the app's own defaults on the docs sections, whose held-out
    figure is the ranking chosen without them."""
    data = json.loads(results.read_text(encoding="utf-8"))
    first, second = data["points"][APP_NOW]["claude-docs"]
    run = data["run"]
    return (
        "The docs sections' held-out hybrid figure is what the ranking chosen without that set"
        " would score: the other sets (page- and file-level gold) choose a stronger spread of"
        " a page's sections than section-level questions want. The app's own defaults, chosen"
        f" on every set, score {first:.3f} / {second:.3f} there"
        f" (`bench/experiments/fixed_points.py`, at {run['commit']}, {run['date'][:10]}).\n"
    )


if __name__ == "__main__":
    main()
