"""The protocol's tables from its results file: the held-out table, the guards', both levels
beside each side alone, the README's; and the lines a run prints as it goes."""

import json
import subprocess
from pathlib import Path
from typing import Any

from bench.pool.choice import folds_of, grouped
from bench.pool.questions import Question
from bench.pool.scoring import LEVEL_METRICS, Ranking, fold_scores, scores
from bench.pool.semble import semble_tables
from bench.pool.sets import (
    HEADLINE,
    HEADLINE_LABELS,
    MIXED_GUARDS,
    ROOT,
    SEMBLE_GROUP,
    group_of,
    headline_of,
)
from bench.pool.variants import RETIRED

COUNTS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
COUNTS += " fifteen sixteen seventeen eighteen nineteen twenty"


def count(n: int) -> str:
    """A number of sets in words (as the tables' prose says it)."""
    words = COUNTS.split()
    return words[n] if n < len(words) else str(n)


def columns(names: list[str]) -> list[tuple[str, list[str]]]:
    """The tables' columns: a set, or a group's sets (semble-dev's repositories) as one,
    shown as the mean of their held-out figures."""
    return [
        (group if len(members) == 1 else f"{group} (repo mean)", members)
        for group, members in grouped(names).items()
    ]


def group_scores(row: dict[str, Any], members: list[str]) -> dict[str, float]:
    """A row's held-out figures on a column: the mean over its sets."""
    return {
        key: sum(fold_scores(row, name)[key] for name in members) / len(members)
        for key in fold_scores(row, members[0])
    }


def git_commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return done.stdout.strip()


def report(results: Path) -> str:
    """The results as markdown: the held-out table, then the never-below-a-side check."""
    saved = json.loads(results.read_text())
    run, rows = saved["run"], saved["rows"]
    names = list(run["sets"])
    shown = columns(names)
    lines = [
        f"`{run['command']}` on {run['date']}, commit {run['commit']}, load "
        f"{run['load']:.2f}; {', '.join(f'{n} {q}' for n, q in run['sets'].items())} "
        f"questions; {run['depth']} candidates a side, k = {run['k']}. Each cell: the "
        f"figure on that set of the parameters chosen on the other {count(len(names) - 1)} "
        "(R@5 / MRR@10 of sections for claude-docs, R@10 / MRR@10 of chunks for codebase, "
        "of files for the SWE-QA sets"
        + (
            f"; NDCG@10 / MRR@10 of chunks for {SEMBLE_GROUP}, the mean of its repositories' "
            "held-out figures (each repository one set)"
            if SEMBLE_GROUP in dict(grouped(names))
            else ""
        )
        + ").",
        "",
        "| ranking | " + " | ".join(label for label, _ in shown) + " |",
        "|---|" + "---:|" * len(shown),
    ]
    for row in rows:
        cells = [headline_cell(m[0], group_scores(row, m)) for _, m in shown]
        kept = " (kept)" if row.get("kept") else ""
        if row.get("kept") and row["variant"] in RETIRED:
            kept = " (kept alone; left out of the joint grid)"
        lines.append(f"| {row['variant']}{kept} | " + " | ".join(cells) + " |")
    shipped = rows[-1]
    lines += [
        "",
        "Chosen for the last row, per held-out set: "
        + "; ".join(f"{name}: {shipped['folds'][name]['chosen']}" for name in names)
        + f"; on all {count(len(names))} (the app's default): {shipped.get('shipped', '-')}.",
    ]
    lines += ["", *never_below_a_side(rows, names), "", *both_levels(rows, shown)]
    lines += guard_table(rows, run.get("guards", {}), len(names))
    return "\n".join(lines) + "\n" + semble_section(saved)


def semble_section(saved: dict[str, Any]) -> str:
    """semble-dev per repository and per language, held out, beside the peer and the
    published figures; "" for a run without it."""
    rows = saved["rows"]
    by_name = {row["variant"]: row for row in rows}
    modes = ("vector", "keyword", "keyword-only ranking", "hybrid (today)")
    shown = [(s, by_name[s]) for s in modes if s in by_name]
    tables = semble_tables(saved, [*shown, ("hybrid (shipped)", rows[-1])])
    if not tables:
        return ""
    lines = [
        "",
        f"{SEMBLE_GROUP}, chunk NDCG@10 (semble's definition, `score_semble.py`), each "
        "repository scored with the ranking chosen on the other sets; `hybrid (shipped)` is "
        f"the last row ({rows[-1]['variant']}). `peer`: `semble_peer.py` (semble 0.7.0's "
        "BM25 and code ranking, no dense side) run on this machine (`-`: no peer file given); "
        "`semble`, `CRE Hybrid`, `BM25`: `published.json` (`-`: not published).",
        "",
        *tables,
    ]
    return "\n".join(lines) + "\n"


def guard_table(rows: list[dict[str, Any]], guards: dict[str, int], sets: int) -> list[str]:
    """Each row's default (its point chosen on every set) on the guards."""
    if not guards:
        return []
    lines = [
        "",
        "Guards: "
        + " and ".join(guard_words(g, n) for g, n in guards.items())
        + f"; each row's default (its point chosen on all {count(sets)} sets), the same "
        "figures"
        + (
            ", page-level R@5 / MRR@10 for docs-dev's sites:"
            if set(guards) - set(MIXED_GUARDS)
            else ":"
        ),
        "",
        "| ranking | " + " | ".join(guards) + " |",
        "|---|" + "---:|" * len(guards),
    ]
    for row in rows:
        cells = [headline_cell(guard, row["guards"][guard]) for guard in guards]
        lines.append(f"| {row['variant']} | " + " | ".join(cells) + " |")
    return lines


def guard_words(guard: str, questions: int) -> str:
    """What a guard asks of which DocSet, as the guards' table says it."""
    if guard in MIXED_GUARDS:
        asked = f"{MIXED_GUARDS[guard]}'s {questions} questions asked"
        return f"{asked} of one DocSet holding both corpus sets ({guard})"
    return f"docs-dev's {questions} {guard} questions asked of its own DocSet ({guard})"


def headline_cell(name: str, figures: dict[str, float]) -> str:
    """A set's (or a guard's) two headline figures: `R@k / MRR@10`."""
    first, second = headline_of(name)
    return f"{figures[first]:.3f} / {figures[second]:.3f}"


def in_sample_line(label: str, pool: dict[str, list[Question]], ranking: Ranking) -> str:
    """One ranking's headline figures on every set of the pool, in sample."""
    cells = (f"{name} {headline_cell(name, scores(qs, ranking))}" for name, qs in pool.items())
    return f"{label}: " + "  ".join(cells)


def headline_figures(pool: dict[str, list[Question]], ranking: Ranking) -> dict[str, list[float]]:
    """One ranking's two headline figures on every set and guard of the pool, in sample,
    semble-dev's repositories as one entry: their mean."""
    figures: dict[str, list[float]] = {}
    repos: list[list[float]] = []
    for name, questions in pool.items():
        got = scores(questions, ranking)
        pair = [got[metric] for metric in headline_of(name)]
        if group_of(name) == SEMBLE_GROUP:
            repos.append(pair)
        else:
            figures[name] = pair
    if repos:
        figures[SEMBLE_GROUP] = [sum(pair[i] for pair in repos) / len(repos) for i in (0, 1)]
    return figures


def headline_line(label: str, pool: dict[str, list[Question]], ranking: Ranking) -> str:
    """`label: set a / b | ...`: one ranking's headline figures on every set, one line."""
    row = headline_figures(pool, ranking)
    return f"{label}: " + " | ".join(f"{name} {a:.3f} / {b:.3f}" for name, (a, b) in row.items())


def print_experiment(
    pool: dict[str, list[Question]],
    tuned: tuple[dict[str, dict[str, Any]], Any, dict[str, Any], dict[str, dict[str, float]]],
    reference: dict[str, dict[str, float]],
    label: str,
) -> None:
    """An experiment's `tuned_jointly` result: each fold's held-out figures beside the
    reference's (`label`), the point chosen on all five, and the guards at that point."""
    folds, default, _chosen, guards = tuned
    for name in folds_of(pool):
        fold = folds[name]
        print(
            f"{name:12s} {label} {headline_cell(name, reference[name])}   held out "
            f"{headline_cell(name, fold['scores'])}   ({fold['chosen']})"
        )
    print(f"chosen on all five: {default}")
    for name, figures in guards.items():
        print(
            f"{name:24s} {label} {headline_cell(name, reference[name])}   default "
            f"{headline_cell(name, figures)}"
        )


def both_levels(rows: list[dict[str, Any]], shown_sets: list[tuple[str, list[str]]]) -> list[str]:
    """Chunk and file R@10 / MRR@10 of each side alone, today's fusion and the shipped one,
    per column (a group's: the mean over its sets)."""
    shown = [r for r in rows if r["variant"] in ("vector", "keyword", "hybrid (today)")]
    shown.append(rows[-1])
    lines = [
        "| set | level | " + " | ".join(r["variant"] for r in shown) + " |",
        "|---|---|" + "---:|" * len(shown),
    ]
    for name, members in shown_sets:
        for level in ("chunk", "file"):
            cells = [
                " / ".join(f"{group_scores(r, members)[f'{level} {m}']:.3f}" for m in LEVEL_METRICS)
                for r in shown
            ]
            lines.append(f"| {name} | {level} R@10 / MRR | " + " | ".join(cells) + " |")
    return lines


def never_below_a_side(rows: list[dict[str, Any]], names: list[str]) -> list[str]:
    """For the last (shipped) ranking: every set and level where it falls more than 0.01
    below the better of vector and keyword alone, on R@10 or MRR@10."""
    by_name = {row["variant"]: row for row in rows}
    shipped = rows[-1]
    misses = []
    for name in names:
        for level in ("chunk", "file"):
            for metric in LEVEL_METRICS:
                key = f"{level} {metric}"
                sides = max(by_name[s]["folds"][name]["scores"][key] for s in ("vector", "keyword"))
                value = shipped["folds"][name]["scores"][key]
                if value < sides - 0.01:
                    misses.append(f"{name} {key} {value:.3f} < {sides:.3f}")
    verdict = "none" if not misses else "; ".join(misses)
    return [f"Below the better single side by more than 0.01 ({shipped['variant']}): {verdict}."]


def readme_report(results: Path) -> str:
    """The README's table: each set's headline figures for each side alone and for the
    shipped ranking, held out."""
    saved = json.loads(results.read_text())
    run, rows = saved["run"], saved["rows"]
    by_name = {row["variant"]: row for row in rows}
    shown = [("vector", by_name["vector"]), ("keyword", by_name["keyword"]), ("hybrid", rows[-1])]
    lines = [
        "| set (questions) | measure | " + " | ".join(n for n, _ in shown) + " |",
        "|---|---|---:|---:|---:|",
    ]
    names = list(run["sets"])
    for _, members in columns(names):
        first, second = HEADLINE[members[0]]
        cells = []
        for _, row in shown:
            figures = group_scores(row, members)
            cells.append(f"{figures[first]:.3f} / {figures[second]:.3f}")
        questions = sum(run["sets"][name] for name in members)
        label = f"{HEADLINE_LABELS[members[0]]} ({questions})"
        lines.append(f"| {label} | {measure(first)} / MRR@10 | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"k = 10; each hybrid figure is held out: its set scored with the ranking chosen on "
        f"the other {count(len(names) - 1)} (`bench/quality_pool.py`, at {run['commit']}, "
        f"{run['date']}).",
    ]
    return "\n".join(lines) + "\n"


def measure(metric: str) -> str:
    """A headline metric as the README names it: `file recall@10` -> `R@10`."""
    name, k = metric.split()[-1].split("@")
    short = {"recall": "R", "ndcg": "NDCG"}.get(name, name.upper())
    return f"{short}@{k}"


def print_guards(row: dict[str, Any]) -> None:
    """A row's default's figures on the guards, when there are any."""
    if row.get("guards"):
        print_row("    guards (default)", {g: {"scores": f} for g, f in row["guards"].items()})


def print_row(name: str, folds: dict[str, dict[str, Any]]) -> None:
    cells = []
    for set_name, figures_of in folds.items():
        first, second = headline_of(set_name)
        figures = figures_of["scores"]
        cells.append(f"{figures[first]:.3f}/{figures[second]:.3f}")
    print(f"{name:32s} " + "  ".join(cells))
