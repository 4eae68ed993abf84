"""The protocol's run: every variant's row under leave-one-set-out, the kept signals tuned
jointly, the signals not kept offered one at a time on top; `--write` saves the rows."""

import dataclasses
import itertools
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from bench.pool.choice import (
    Choice,
    folds_of,
    grouped,
    leave_one_set_out,
    side_floors,
    training_sets,
    tuned_jointly,
)
from bench.pool.questions import Question, cut_question, load_pool
from bench.pool.report import git_commit, print_guards, print_row, report
from bench.pool.scoring import Ranking, fold_scores, scores, short, today_ranking
from bench.pool.semble import semble_beside
from bench.pool.sets import GUARDS, HEADLINE, RESULTS, K, PoolSet, headline_of
from bench.pool.variants import ON_TOP, RETIRED, axes_of, variants


def wins(row: dict[str, Any], today: dict[str, Any]) -> bool:
    """A change is kept when, on the held-out folds, no set's headline figures fall more
    than 0.01 below today's ranking and their mean rises, and its default (the point chosen
    on every set) keeps every guard's headline figures within 0.01 of today's default. A
    group's sets (semble-dev's repositories) are judged by their mean held-out figures."""
    for guard, figures in row.get("guards", {}).items():
        for metric in headline_of(guard):
            if figures[metric] - today["guards"][guard][metric] < -0.01:
                return False
    gains = headline_gains(row, today)
    return bool(gains) and min(gains) >= -0.01 and sum(gains) > 0


def headline_gains(row: dict[str, Any], today: dict[str, Any]) -> list[float]:
    """The row's held-out change against `today` on each set's (a group's: the mean over
    its sets) two headline figures."""
    gains = []
    for group in grouped([name for name in HEADLINE if name in row["folds"]]).values():
        for metric in HEADLINE[group[0]]:  # a group's sets share their headline
            changes = [fold_scores(row, n)[metric] - fold_scores(today, n)[metric] for n in group]
            gains.append(sum(changes) / len(changes))
    return gains


JOINT_POINTS = 5_000  # the kept signals' joint grid at most (the five sets': 960 points)


def affordable(
    kept: Sequence[tuple[str, float, dict[str, list[Any]]]], limit: int = JOINT_POINTS
) -> tuple[dict[str, list[Any]], list[str]]:
    """The kept rows' axes merged (in the rows' order), and the rows left out: those that
    would take the joint grid over `limit` points, the ones that gained least first. Each
    kept axis multiplies the grid: on two small sets ten rows were kept, 1.5 million
    points. A row left out is offered on top of the shipped one instead (`stack`)."""
    chosen: set[str] = set()
    for name, _gain, _axes in sorted(kept, key=lambda row: -row[1]):
        if grid_size(merged_axes([a for n, _g, a in kept if n in chosen or n == name])) <= limit:
            chosen.add(name)
    return merged_axes([a for n, _g, a in kept if n in chosen]), [
        n for n, _g, _a in kept if n not in chosen
    ]


def merged_axes(all_axes: Sequence[dict[str, list[Any]]]) -> dict[str, list[Any]]:
    merged: dict[str, list[Any]] = {}
    for axes in all_axes:
        for field, values in axes.items():
            merged.setdefault(field, [])
            merged[field] += [v for v in values if v not in merged[field]]
    return merged


def grid_size(axes: dict[str, list[Any]]) -> int:
    return math.prod(len(values) for values in axes.values())


def evaluate(
    work: Path,
    sets: Sequence[PoolSet],
    depth: int,
    write: bool,
    explore: bool,
    results: Path = RESULTS,
    peer: Path | None = None,
) -> None:
    """Every variant's row under leave-one-set-out; with `write`, the rows saved to
    `results` with the run (and semble-dev's published figures, and the peer's measured
    ones from `peer`, semble_peer.py's --json output) and the report printed."""

    started = time.perf_counter()
    pool = {
        name: [cut_question(question, depth) for question in questions]
        for name, questions in load_pool(work, sets).items()
    }
    rows: list[dict[str, Any]] = []
    print(f"{'held-out folds':32s} " + "  ".join(f"{name:>11s}" for name in folds_of(pool)))
    kept: list[tuple[str, float, dict[str, list[Any]]]] = []  # (row, its gain, its axes)
    grids: dict[str, list[Any]] = {}
    for name, family, grid in variants(depth):
        if isinstance(grid, dict):  # the kept signals' axes, searched jointly
            axes, left_out = affordable(kept)
            for row_name in left_out:  # offered one at a time on top instead
                grids[row_name] = next(g for n, _f, g in variants(depth) if n == row_name)
            chosen, shipped = joint_rows(pool, rows, family, name, axes, grids, left_out)
            stack(pool, rows, family, grids, chosen, shipped)
            continue
        if explore and len(grid) > 1:
            for point in grid:
                in_sample = {n: {"scores": scores(q, family(point))} for n, q in pool.items()}
                print_row(f"  {short(point)}", in_sample)
        folds, guards = leave_one_set_out(pool, family, grid)
        row = {"variant": name, "grid": len(grid), "folds": folds, "guards": guards}
        if (today := today_row(rows)) and grid[0] is not None:  # a change to today's ranking
            row["kept"] = wins(row, today)
            if row["kept"] and name not in RETIRED:
                kept.append((name, sum(headline_gains(row, today)), axes_of(grid)))
        rows.append(row)
        if not row.get("kept") and grid[0] is not None:  # not a side alone
            grids[name] = grid
        print_row(name + (" (kept)" if row.get("kept") else ""), folds)
        print_guards(row)
    print(f"evaluate: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    if write:
        run = {
            "command": "python bench/quality_pool.py evaluate --write",
            "date": time.strftime("%Y-%m-%d", time.gmtime()),
            "commit": git_commit(),
            "load": os.getloadavg()[0],
            "depth": depth,
            "k": K,
            "sets": {name: len(pool[name]) for name in folds_of(pool)},
            "guards": {name: len(pool[name]) for name in pool if name in GUARDS},
        }
        saved = {"run": run, "rows": rows, **semble_beside(folds_of(pool), peer)}
        results.write_text(json.dumps(saved, indent=1) + "\n")
        print(report(results))


def today_row(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The row of today's ranking (fusion only), once it is among `rows`."""
    return next((r for r in rows if r["variant"] == "hybrid (today)"), None)


def joint_rows(
    pool: dict[str, list[Question]],
    rows: list[dict[str, Any]],
    family: Callable[[Any], Ranking],
    name: str,
    kept: dict[str, list[Any]],
    grids: dict[str, list[Any]],
    left_out: Sequence[str] = (),
) -> tuple[dict[str, Any], Any]:
    """The kept signals tuned jointly, then each ON_TOP signal with them; appends the rows
    (the shipped one last) and returns the shipped row's points: each fold's and the one
    chosen on every set."""
    print(f"    kept: {', '.join(kept) or 'none'}")
    if left_out:
        print(f"    left out of the joint grid for its size: {', '.join(left_out)}")
    row, chosen, shipped = jointly(pool, rows, family, name, kept)
    if left_out:
        row["left out"] = list(left_out)
    rows.append(row)
    for signal in ON_TOP:
        if signal not in grids:  # kept alone: already among the kept signals
            continue
        axes = {**kept, **axes_of(grids[signal])}
        name = f"kept signals {signal}, tuned jointly"
        row, on_top, everywhere = jointly(pool, rows, family, name, axes)
        row["kept"] = wins(row, rows[-1])
        add_row(rows, row)
        print(f"    {'kept' if row['kept'] else 'not kept'}")
        if row["kept"]:
            chosen, shipped = on_top, everywhere
    return chosen, shipped


def jointly(
    pool: dict[str, list[Question]],
    rows: list[dict[str, Any]],
    family: Callable[[Any], Ranking],
    name: str,
    axes: dict[str, list[Any]],
) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """The row of these axes tuned jointly (tuned_jointly from today's ranking), printed,
    with each fold's point and the one chosen on every set."""
    start = today_ranking()
    folds, shipped, chosen, guards = tuned_jointly(pool, family, axes, start, side_floors(rows))
    print_row(name, folds)
    for set_name, fold in folds.items():
        print(f"    without {set_name}: {fold['chosen']}")
    print(f"    on every set (the default): {short(shipped)}")
    print_guards({"guards": guards})
    row = {
        "variant": name,
        "axes": axes,
        "folds": folds,
        "shipped": short(shipped),
        "guards": guards,
    }
    return row, chosen, shipped


def add_row(rows: list[dict[str, Any]], row: dict[str, Any]) -> None:
    """Add a row built on the shipped one: last when kept (the last row is the one the app
    ships), else just before the shipped row."""
    rows.insert(len(rows) if row["kept"] else len(rows) - 1, row)


STAGES = 3  # signals added one at a time after the joint tuning, at most


def stack(
    pool: dict[str, list[Question]],
    rows: list[dict[str, Any]],
    family: Callable[[Any], Ranking],
    grids: dict[str, list[Any]],
    chosen: dict[str, Any],
    shipped: Any,
) -> None:
    """Forward selection over the signals not kept, one stage at a time, on top of the
    shipped row's points.

    At each stage every fold offers its training sets its current point, and that point
    with any one not-kept variant's grid applied (its own axes: the tests' factor, the
    files' spread, RRF's k and weight...), and takes the best by `Choice.value`. Which
    signal a fold adds, if any, is chosen on its training sets like its values, so the
    held-out figures stay honest. The row is kept (and becomes the shipped one) when it
    wins over the shipped row by `wins`; the next stage then builds on the folds' new
    points. The point chosen on all five sets is the app's default. Appends the rows."""
    variations = [axes_of(grid) for name, grid in grids.items() if name not in ON_TOP]
    variations = [axes for axes in variations if axes]
    for stage in range(1, STAGES + 1):
        bases = {**chosen, "": shipped}  # "": every set, the app's default
        points: dict[Any, int] = {}
        offered = {
            key: [points.setdefault(p, len(points)) for p in one_more(base, variations)]
            for key, base in bases.items()
        }
        choice = Choice(pool, family, list(points), side_floors(rows))
        picks = {n: choice.best(offered[n], training_sets(pool, n)) for n in folds_of(pool)}
        everywhere = choice.best(offered[""], folds_of(pool))
        name = f"+ one not-kept signal more, chosen on the training sets ({stage})"
        folds = {n: choice.fold(index, n) for n, index in picks.items()}
        row: dict[str, Any] = {
            "variant": name,
            "folds": folds,
            "shipped": short(choice.points[everywhere]),
            "guards": choice.guards(everywhere),
        }
        row["kept"] = wins(row, rows[-1])
        add_row(rows, row)
        print_row(name + (" (kept)" if row["kept"] else ""), folds)
        for set_name, fold in folds.items():
            print(f"    without {set_name}: {fold['chosen']}")
        print(f"    on every set: {row['shipped']}")
        print_guards(row)
        if not row["kept"]:
            return
        chosen = {n: choice.points[index] for n, index in picks.items()}
        shipped = choice.points[everywhere]


def one_more(base: Any, variations: Sequence[dict[str, list[Any]]]) -> Iterator[Any]:
    """`base`, then `base` with each combination of each variation's axis values."""
    yield base
    for axes in variations:
        for values in itertools.product(*axes.values()):
            yield dataclasses.replace(base, **dict(zip(axes, values, strict=True)))
