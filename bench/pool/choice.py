"""Choosing under leave-one-set-out: every grid point scored on every set once (a process per
core), each fold's point chosen on its training sets and scored on the held-out one.

Every set is a fold, semble-dev's 15 repositories too (twenty folds). What the folds cost is
scoring each point on each set, once, whatever the number of folds: choosing a fold's point
from that table sums figures computed once per point and set over its training sets
(`Choice.value`, about 10 microseconds a point: 5 s for 25,000 points and twenty folds), so
twenty folds cost what the questions cost (277 more, a third more than the five sets' and
the guards' 833), not four times five folds. What can make a run slow is the joint grid: each
kept row's axes multiply it, so it is capped (protocol.JOINT_POINTS).

In a fold's training objective the sets count by group (`group_of`): the mean over groups of
each group's mean, and the worst change over groups. Each of the five sets is its own group;
semble-dev's repositories are one group, semble-dev, whose figure is their repo mean (what
semble publishes and issue 68's goal is stated in). Counted one by one, the 15 repositories
would be 15 of the 19 training sets, and each of them (9 to 21 questions, where one question
moves NDCG@10 by 0.05-0.1 and reruns of the same system differ by up to 0.05: semble-dev's
README) would be the worst set in turn, so the choice would follow its noise. Per language
(12 groups, 9 of them one repository) keeps both faults. As one group semble-dev weighs as one
set of 277 questions beside the five; every repository is still held out on its own, and
`wins` judges semble-dev by its repo mean too."""

import dataclasses
import functools
import itertools
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from bench.pool.questions import Question
from bench.pool.scoring import (
    LEVEL_METRICS,
    OBJECTIVE,
    Ranking,
    fold_scores,
    objective,
    scores,
    short,
    today_ranking,
)
from bench.pool.sets import GUARDS, group_of, headline_of


def folds_of(pool: dict[str, list[Question]]) -> list[str]:
    """The sets that are folds (every set but the guards)."""
    return [name for name in pool if name not in GUARDS]


def grouped(names: Iterable[str]) -> dict[str, list[str]]:
    """The sets by the training group they count in (a set of no group is its own)."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(group_of(name), []).append(name)
    return groups


@functools.cache
def _groups(training: tuple[str, ...]) -> list[list[str]]:
    return list(grouped(training).values())


def by_group(values: Mapping[str, float]) -> list[float]:
    """Each group's mean of its sets' values."""
    return [sum(values[n] for n in group) / len(group) for group in grouped(values).values()]


def group_mean(values: Mapping[str, float]) -> float:
    """The mean over groups of each group's mean: a training objective in which semble-dev's
    repositories count as one set."""
    means = by_group(values)
    return sum(means) / len(means)


def guards_seen(pool: dict[str, list[Question]], training: Sequence[str]) -> list[str]:
    """The guards a fold may look at: those whose source set it trains on, and docs-dev's."""
    return [
        name
        for name, source in GUARDS.items()
        if name in pool and (source in training or source == name)  # docs-dev's: every fold
    ]


def leave_one_set_out(
    pool: dict[str, list[Question]], family: Callable[[Any], Ranking], grid: Sequence[Any]
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, float]]]:
    """For each set: the grid point best on the other sets, and its scores on this one; and
    the guards' scores of the point best on every set (the row's default)."""
    table = {
        (name, repr(point)): scores(questions, family(point))
        for point in grid
        for name, questions in pool.items()
    }

    def best(training: Sequence[str]) -> Any:
        return max(
            grid, key=lambda p: group_mean({n: objective(table[(n, repr(p))]) for n in training})
        )

    folds = {}
    for held_out in folds_of(pool):
        chosen = best(training_sets(pool, held_out))
        label = short(chosen) if chosen is not None else "-"
        folds[held_out] = {"chosen": label, "scores": table[(held_out, repr(chosen))]}
    everywhere = best(folds_of(pool))
    return folds, {guard: table[(guard, repr(everywhere))] for guard in pool if guard in GUARDS}


def tuned_jointly(
    pool: dict[str, list[Question]],
    family: Callable[[Any], Ranking],
    axes: Mapping[str, Sequence[Any]],
    start: Any,
    floors: dict[str, dict[str, float]],
) -> tuple[dict[str, dict[str, Any]], Any, dict[str, Any], dict[str, dict[str, float]]]:
    """Every point of the axes' grid (`start` with each combination of their values) scored
    on every set once; for each fold the point best on its four training sets (scored on the
    held-out one), and the point best on every set: the one the app ships. Returns the
    folds, that point, each fold's chosen point (what `stack` builds on) and the guards'
    scores of the default.

    The whole grid, not a climb from `start`: coordinate ascent stopped at a point that
    depended on the axes' order (sphinx's fold at 0.510 / 0.461 where the grid's best for
    its training sets scores 0.569 / 0.484; docs/benchmarks-log.md). Points are compared by
    `Choice.value`."""
    points = [
        dataclasses.replace(start, **dict(zip(axes, values, strict=True)))
        for values in itertools.product(*axes.values())
    ]
    choice = Choice(pool, family, points, floors)
    everything = range(len(points))
    folds, chosen = {}, {}
    for held_out in folds_of(pool):
        best = choice.best(everything, training_sets(pool, held_out))
        folds[held_out] = choice.fold(best, held_out)
        chosen[held_out] = points[best]
    everywhere = choice.best(everything, folds_of(pool))
    return folds, points[everywhere], chosen, choice.guards(everywhere)


def guard_metrics(guard: str) -> tuple[str, ...]:
    """The figures a guard's shortfall is counted on: the objective's, and the headline
    figures `protocol.wins` holds it to (docs-dev's page Recall@5 among them), so that a fold
    does not choose a point the row's guard check then refuses."""
    return tuple(dict.fromkeys((*OBJECTIVE, *headline_of(guard))))


def training_sets(pool: dict[str, list[Question]], held_out: str) -> list[str]:
    """The sets a fold chooses on (one set alone, exploring, can only be scored in sample)."""
    return [name for name in folds_of(pool) if name != held_out] or [held_out]


class Choice:
    """Grid points scored on every set once (one process per core), and the point a fold's
    training sets prefer.

    A point is worth its mean objective on the training sets plus its worst change there
    against today's ranking (a gain on three sets does not pay for a loss on the fourth),
    both over groups (semble-dev's repositories one: the module's docstring),
    minus every shortfall below `floors` (the better single side's R@10 and MRR less 0.01,
    per set and level): the guarantee that fusion never loses to one of its inputs is part
    of what is learnt. Likewise every shortfall of a guard the fold sees (`guards_seen`)
    below today's ranking's figures on it less 0.01 (`guard_metrics`). Ties go to the
    earlier point. Today's ranking is the one before round 3 (`today_ranking`) unless
    `today` is given (an experiment measuring changes against a ranking of its own)."""

    def __init__(
        self,
        pool: dict[str, list[Question]],
        family: Callable[[Any], Ranking],
        points: Sequence[Any],
        floors: dict[str, dict[str, float]],
        today: Any = None,
    ) -> None:
        self.points = list(points)
        keys = [ranks_alike(point) for point in self.points]
        distinct = list(dict.fromkeys(keys))  # points that rank alike are scored once
        started = time.perf_counter()
        global _GRID  # read by the forked workers, which inherit it (nothing is pickled but ints)
        _GRID = (pool, family, distinct)
        with multiprocessing.get_context("fork").Pool(os.cpu_count()) as workers:
            table = workers.map(_point_scores, range(len(distinct)), chunksize=16)
        seconds = time.perf_counter() - started
        print(f"    {len(distinct)} points x {len(pool)} sets: {seconds:.0f} s", file=sys.stderr)
        scored = dict(zip(distinct, table, strict=True))
        self.table = [scored[key] for key in keys]
        before = family(today_ranking() if today is None else today)
        today = {name: scores(questions, before) for name, questions in pool.items()}
        self.before = {name: objective(figures) for name, figures in today.items()}
        guard_floors = {
            guard: {key: today[guard][key] - 0.01 for key in guard_metrics(guard)}
            for guard in pool
            if guard in GUARDS
        }
        self.floors = {**floors, **guard_floors}
        self.pool = pool
        # each point's objective less its shortfall, and its change against today, per set:
        # computed once, since every fold sums them over its training sets
        self.net = [
            {name: objective(got) - self.shortfall(index, name) for name, got in row.items()}
            for index, row in enumerate(self.table)
        ]
        self.change = [
            {name: objective(got) - self.before[name] for name, got in row.items()}
            for row in self.table
        ]

    def value(self, index: int, training: Sequence[str]) -> float:
        net, change = self.net[index], self.change[index]
        groups = _groups(tuple(training))
        total = sum(sum(net[n] for n in group) / len(group) for group in groups) / len(groups)
        worst = min(sum(change[n] for n in group) / len(group) for group in groups)
        guards = sum(self.shortfall(index, g) for g in guards_seen(self.pool, training))
        return total + worst - guards

    def shortfall(self, index: int, name: str) -> float:
        got = self.table[index][name]
        return sum(max(0.0, floor - float(got[key])) for key, floor in self.floors[name].items())

    def guards(self, index: int) -> dict[str, dict[str, float]]:
        """A point's figures on every guard."""
        return {name: self.table[index][name] for name in self.pool if name in GUARDS}

    def best(self, indices: Iterable[int], training: Sequence[str]) -> int:
        return max(indices, key=lambda index: self.value(index, training))

    def fold(self, index: int, held_out: str) -> dict[str, Any]:
        """A fold's row cell: the point chosen and its figures on the held-out set."""
        return {"chosen": short(self.points[index]), "scores": self.table[index][held_out]}


_GRID: tuple[dict[str, list[Question]], Callable[[Any], Ranking], list[Any]] | None = None


def ranks_alike(point: Any) -> Any:
    """A key shared by the points that rank alike: TriedOptions' canonical form (other
    points, an experiment's own options, are their own key)."""
    from bench.experiments.tried_signals.options import TriedOptions, canonical

    return canonical(point) if isinstance(point, TriedOptions) else point


def _point_scores(index: int) -> dict[str, dict[str, float]]:
    """One grid point's figures on every set (in a worker process of Choice)."""
    assert _GRID is not None
    pool, family, points = _GRID
    return {name: scores(questions, family(points[index])) for name, questions in pool.items()}


def side_floors(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per set, each level's R@10 and MRR@10 of the better single side, less 0.01."""
    sides = [row for row in rows if row["variant"] in ("vector", "keyword")]
    floors: dict[str, dict[str, float]] = {}
    for name in sides[0]["folds"]:
        floors[name] = {
            f"{level} {metric}": max(fold_scores(r, name)[f"{level} {metric}"] for r in sides)
            - 0.01
            for level in ("chunk", "file")
            for metric in LEVEL_METRICS
        }
    return floors
