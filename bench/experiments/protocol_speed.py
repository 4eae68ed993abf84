"""How long does the retrieval protocol take to rank and score one saved question?

`quality_pool.py evaluate` ranks every saved question under every grid point; its joint grid
of the kept signals with the links (3,960 distinct points over 833 questions at the time of
writing) decides whether the protocol fits in a session. This times the same work on a
sample: the kept signals' grid in the protocol's order (the neighbours' weight varied last),
each point ranked and scored on the chosen sets, in one process, after one warm-up pass.

`--checkout DIR` imports `ragspace` and `bench/quality_pool.py` from another checkout (a
worktree of an older commit), so two versions are timed side by side with this one script.

Usage (from the repository root, after `quality_pool.py candidates`):
    python bench/experiments/protocol_speed.py --work /work/pool --sets claude-docs,codebase,pytest
"""

import argparse
import dataclasses
import importlib
import itertools
import os
import sys
import time
from pathlib import Path
from typing import Any

# a sample of the joint grid (quality_pool's kept signals with the links), in its order
AXES: dict[str, list[Any]] = {
    "definition_boost": [0.0, 1.0],
    "prose_factor": [1.0, 0.5],
    "file_weight": [0.0, 0.25],
    "file_confidence_power": [0.0, 4.0],
    "lift_best_chunk": [True],
    "neighbour_weight": [0.0, 0.1, 0.2, 0.3, 0.5],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/work/pool"))
    parser.add_argument("--sets", default="claude-docs,codebase,pytest")
    parser.add_argument("--depth", type=int, default=75)
    parser.add_argument("--checkout", type=Path, default=Path(__file__).resolve().parents[2])
    args = parser.parse_args()
    sys.path[:0] = [str(args.checkout / "bench"), str(args.checkout)]
    qp = importlib.import_module("quality_pool")
    sets = [qp.set_named(name) for name in args.sets.split(",")]
    pool = {
        name: [qp.cut_question(q, args.depth) for q in questions]
        for name, questions in qp.load_pool(args.work, sets).items()
    }
    start = qp.today_ranking()
    points = [
        dataclasses.replace(start, **dict(zip(AXES, values, strict=True)))
        for values in itertools.product(*AXES.values())
    ]

    def family(options: Any) -> Any:
        if hasattr(qp, "AppRanking"):  # the ranking evaluate uses (older checkouts: none)
            return qp.AppRanking(options, args.depth)
        return qp.at_depth(lambda q: qp.ranked(q, options), args.depth)

    for questions in pool.values():  # warm-up: each question's derived evidence
        qp.scores(questions, family(points[0]))
    began = time.perf_counter()
    for point in points:
        for questions in pool.values():
            qp.scores(questions, family(point))
    elapsed = time.perf_counter() - began
    count = sum(len(questions) for questions in pool.values())
    print(
        f"{args.checkout}: {len(points)} points x {count} questions in {elapsed:.1f} s:"
        f" {elapsed / len(points) / count * 1000:.3f} ms a question"
        f" (load {os.getloadavg()[0]:.2f})"
    )


if __name__ == "__main__":
    main()
