"""What should a keyword-only search (before the vectors land) be ranked with? (issue 68)

A keyword-only search is ranked by its side alone today (`fusion_only`). Over the candidates
bench/semble_dev.py saved in the keyword phase (every side but the vector one: chunks, whole
documents, file cards), this ranks each question with the app's ranking signals that need no
vector, over a grid, and chooses the point under leave-one-set-out over every set (each
semble-dev repository a set, docs-dev's two sites too): each fold's point is the best mean
objective on the other sets, scored on the held-out one. Also tries one signal the ranking
does not have yet (`rare_definitions`: a name defined in more than RARE candidate files, a
namespace like `absl` in `absl::Mutex`, is no evidence of which file defines what is asked).

    python bench/experiments/keyword_ranking.py --work /work/semble-pool [--sets a,b]
"""

import argparse
import dataclasses
import itertools
import json
import multiprocessing
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import semble_dev  # noqa: E402
from quality_pool import HEADLINE, candidates_file, ranked, scores  # noqa: E402

from bench.experiments.tried_signals.options import TriedOptions, fusion_only  # noqa: E402
from bench.pool.scoring import keyword_sides  # noqa: E402

RARE = 3  # candidate files a name may be defined in and still single one out


@dataclass(frozen=True)
class Point:
    """The app's options and the prototype signals."""

    options: TriedOptions
    rare_definitions: bool = False
    # a question whose keyword side's best candidates are mostly prose is ranked by that side
    # alone: the code-aware signals lift every section of a page alike (docs-dev's recall)
    prose_alone: bool = False

    def label(self) -> str:
        base = fusion_only(TriedOptions())
        changed = [
            f"{f.name}={getattr(self.options, f.name)}"
            for f in dataclasses.fields(self.options)
            if getattr(self.options, f.name) != getattr(base, f.name)
        ]
        if self.rare_definitions:
            changed.append("rare_definitions")
        if self.prose_alone:
            changed.append("prose_alone")
        return ", ".join(changed) or "fusion only"


def rare_only(question: Any) -> Any:
    """The question whose Offer counts as definitions only names defined in at most RARE of
    its candidate files."""
    from ragspace.ranking.offer import _defines

    names = question.offer.profile.symbols
    files: dict[str, set[int]] = {}
    for c in question.offer.candidates:
        for name in names:
            if _defines(c.hit, (name,)):
                files.setdefault(name, set()).add(c.hit.document_id)
    kept = tuple(n for n in names if len(files.get(n, ())) <= RARE)
    fresh = dataclasses.replace(question)  # a new Offer, its own cached properties
    fresh.offer.__dict__["defining"] = frozenset(
        c.hit.chunk_id for c in fresh.offer.candidates if kept and _defines(c.hit, kept)
    )
    return fresh


def objective(one: Any, figures: dict[str, float]) -> float:
    if one.kind == "docs":
        return (figures["mrr@10"] + figures["recall@5"]) / 2
    return figures["ndcg@10"]


# the first run's axes (433 points; every fold chose file_weight 0.5, name_boost 0.5,
# coherence_boost 0.2, secondary_factor 0.3, file_decay 0.5, neighbour_weight 0.3 and no
# definition boost, rare or not), then around that point where it was at an edge
FIRST_AXES = {
    "file_weight": (0.0, 0.5, 1.0),
    "definition_boost": (0.0, 2.0),
    "name_boost": (0.0, 0.5, 1.0),
    "secondary_factor": (1.0, 0.3),
    "file_decay": (1.0, 0.5),
    "coherence_boost": (0.0, 0.2),
    "neighbour_weight": (0.0, 0.3),
}
# the second run (these axes, docs-dev's guards) chose name_boost and coherence_boost 0 on
# most folds: they cost vite's Recall@5; the third keeps them from prose questions
SECOND_AXES = {
    "file_weight": (0.5, 1.0),
    "definition_boost": (0.0,),
    "name_boost": (0.0, 0.5, 1.0, 2.0),
    "secondary_factor": (1.0, 0.3, 0.15),
    "file_decay": (1.0, 0.5, 0.3),
    "coherence_boost": (0.0, 0.1, 0.2, 0.4),
    "neighbour_weight": (0.3,),
}
# the third (today's keyword side, prose questions kept from the signals) chose file_weight 1,
# name_boost 0.5, coherence_boost 0.4, secondary_factor 0.3, file_decay 0.3 on every fold
# (held out repo mean 0.839, docs-dev unchanged); the fourth, on the keyword side with the
# path words (--phase paths), around it
THIRD_AXES = {
    "file_weight": (0.5, 1.0),
    "definition_boost": (0.0,),
    "name_boost": (0.0, 0.5, 1.0),
    "secondary_factor": (0.3, 0.15),
    "file_decay": (0.5, 0.3),
    "coherence_boost": (0.0, 0.1, 0.2, 0.4),
    "neighbour_weight": (0.3,),
}
# the fourth (--phase paths, docs-dev guards) chose the grid's edges again (coherence_boost
# 0.8, file_decay 0.15, secondary_factor 0.15; held out 0.850), and that point costs codebase
# (the protocol's chunk-level code set) chunk R@10 0.902 -> 0.76: FOURTH_AXES; the fifth adds
# codebase and claude-docs as guards (--pool) over a grid that holds points near fusion only:
# run 5 (codebase's candidates before its path words) chose cards 1.0, names 0.5, links 0.3
# (held out 0.803); run 6 (after them) cards 0.5, names 0.5, links 0.3 (held out 0.773): the
# shipped values (ragspace/search/keyword_ranking.py)
FOURTH_AXES = {
    "file_weight": (0.5, 1.0),
    "definition_boost": (0.0,),
    "name_boost": (0.5, 1.0),
    "secondary_factor": (0.3, 0.15),
    "file_decay": (0.5, 0.3, 0.15),
    "coherence_boost": (0.2, 0.4, 0.8),
    "neighbour_weight": (0.3,),
}
AXES = {
    "file_weight": (0.0, 0.5, 1.0),
    "definition_boost": (0.0,),
    "name_boost": (0.0, 0.5, 1.0),
    "secondary_factor": (1.0, 0.3),
    "file_decay": (1.0, 0.5, 0.3),
    "coherence_boost": (0.0, 0.2, 0.4),
    "neighbour_weight": (0.0, 0.3),
}

GUARD_METRICS = ("mrr@10", "recall@5")
# a guard's shortfall below fusion only less 0.01 costs this many times its size: in effect a
# point that costs a guard is not chosen while one that does not is there
GUARD_WEIGHT = 10.0


def grid() -> list[Point]:
    base = TriedOptions()
    axes = AXES
    points = [Point(fusion_only(base))]
    for values in itertools.product(*axes.values()):
        options = dataclasses.replace(base, **dict(zip(axes, values, strict=True)))
        for rare in (False, True):
            if rare and not options.definition_boost:
                continue
            points.append(Point(options, rare, prose_alone=True))
    return points


_STATE: tuple[dict[str, list[Any]], dict[str, list[Any]], list[Any], list[Point]] | None = None


def _point_row(index: int) -> dict[str, dict[str, float]]:
    assert _STATE is not None
    plain, rare, sets, points = _STATE
    point = points[index]
    row = {}
    alone = fusion_only(point.options)

    def ranking(question: Any) -> list[Any]:
        prose = point.prose_alone and mostly_prose(question)
        return ranked(question, alone if prose else point.options)

    for one in sets:
        questions = rare[one.name] if point.rare_definitions else plain[one.name]
        if isinstance(one, PoolGuard):
            row[one.name] = scores(questions, ranking)
        else:
            row[one.name] = semble_dev.set_scores(questions, ranking, one)
    return row


@dataclass(frozen=True)
class PoolGuard:
    """One of the protocol's corpus sets (its candidates saved from a copy of its data
    folder, as `save_candidates` names them: `<phase>-<name>`), a guard here."""

    name: str
    kind: str = "pool"

    def metrics(self) -> tuple[str, ...]:
        return tuple(HEADLINE[self.name])


def pool_guards(folder: Path | None, phase: str) -> list[tuple[PoolGuard, list[Any]]]:
    from quality_pool import PoolSet, load_questions_with_candidates

    if folder is None:
        return []
    found = []
    for name in ("codebase", "claude-docs"):
        source = PoolSet(name, semble_dev.SHARED / name, f"eval-{name}")
        if candidates_file(folder / f"{phase}-{name}").exists():
            found.append(
                (
                    PoolGuard(name),
                    load_questions_with_candidates(folder / f"{phase}-{name}", source),
                )
            )
    return found


def mostly_prose(question: Any) -> bool:
    """The keyword side's first candidates are mostly prose (the app's rule)."""
    from ragspace.search.keyword_ranking import mostly_prose as app_rule

    return app_rule(question.candidates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/work/semble-pool"))
    parser.add_argument("--sets")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--phase", default="keywords", help="which saved candidates")
    parser.add_argument("--json", type=Path, help="write the folds (for semble_dev.py --folds)")
    parser.add_argument(
        "--pool", type=Path, help="a folder with codebase's and claude-docs' candidates"
    )
    parser.add_argument("--pool-phase", default="paths")
    args = parser.parse_args()
    loaded = {
        s.name: semble_dev.load(args.work, s, args.phase) for s in semble_dev.chosen(args.sets)
    }
    sets: list[Any] = [s for s in semble_dev.chosen(args.sets) if loaded[s.name]]
    for guard, questions in pool_guards(args.pool, args.pool_phase):
        sets.append(guard)
        loaded[guard.name] = questions
    plain = {s.name: [keyword_sides(q) for q in loaded[s.name]] for s in sets}
    rare = {name: [rare_only(q) for q in qs] for name, qs in plain.items()}
    points = grid()
    print(f"{len(points)} points x {len(sets)} sets", file=sys.stderr)
    global _STATE
    _STATE = (plain, rare, sets, points)
    cache = args.work / f"keyword-ranking-{args.phase}-{len(points)}x{len(sets)}.json"
    if cache.exists():  # the same grid over the same sets, scored before
        table = json.loads(cache.read_text())
    else:
        with multiprocessing.get_context("fork").Pool(args.processes) as workers:
            table = workers.map(_point_row, range(len(points)), chunksize=8)
        cache.write_text(json.dumps(table))
    names = [s.name for s in sets]

    guards = [s.name for s in sets if s.kind != "code"]
    by_name = {s.name: s for s in sets}

    def guard_metrics(name: str) -> tuple[str, ...]:
        one = by_name[name]
        return one.metrics() if isinstance(one, PoolGuard) else GUARD_METRICS

    def shortfall(index: int) -> float:
        """How far the point falls below fusion only less 0.01 on the guards."""
        return sum(
            max(0.0, table[0][g][m] - 0.01 - table[index][g][m])
            for g in guards
            for m in guard_metrics(g)
        )

    def value(index: int, training: Sequence[str]) -> float:
        training = [n for n in training if n not in guards]
        mean = sum(objective(semble_dev_set(n), table[index][n]) for n in training) / len(training)
        return mean - GUARD_WEIGHT * shortfall(index)

    def semble_dev_set(name: str) -> Any:
        return by_name[name]

    print("| held-out set | fusion only (today) | chosen on the others | point |")
    print("|---|---:|---:|---|")
    held, today = [], []
    folds: dict[str, Any] = {}
    for name in names:
        if name in guards:
            continue
        training = [n for n in names if n != name]
        best = max(range(len(points)), key=lambda i: value(i, training))
        got = objective(by_name[name], table[best][name])
        was = objective(by_name[name], table[0][name])
        held.append((name, got))
        folds[name] = {"chosen": points[best].label(), "scores": table[best][name]}
        today.append((name, was))
        print(f"| {name} | {was:.3f} | {got:.3f} | {points[best].label()} |", flush=True)
    code = [n for n in names if by_name[n].kind == "code"]
    mean_held = sum(g for n, g in held if n in code) / len(code)
    mean_today = sum(g for n, g in today if n in code) / len(code)
    print(f"| code repo mean | {mean_today:.3f} | {mean_held:.3f} | |")
    everywhere = max(range(len(points)), key=lambda i: value(i, names))
    print(f"chosen on every set: {points[everywhere].label()}")
    for guard in guards:
        shown = guard_metrics(guard)
        today_cells = " / ".join(f"{table[0][guard][m]:.3f}" for m in shown)
        cells = " / ".join(f"{table[everywhere][guard][m]:.3f}" for m in shown)
        print(f"guard {guard} {' / '.join(shown)}: fusion only {today_cells}, chosen {cells}")
    if args.json:
        everywhere_label = points[everywhere].label()
        guard_rows = {
            g: {"fusion only": table[0][g], "chosen": table[everywhere][g]} for g in guards
        }
        out = {"phase": args.phase, "folds": folds, "everywhere": everywhere_label}
        args.json.write_text(json.dumps({**out, "guards": guard_rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
