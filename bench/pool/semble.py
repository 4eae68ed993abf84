"""semble-dev in the protocol's results (issue 68): semble's published figures and the peer's
measured ones saved beside the rows, and the tables per repository and per language that
bench/semble_dev.py's report shows too (one code for both)."""

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.pool.sets import SEMBLE, SEMBLE_SETS

# published.json's methods a table sets beside ours, by their column
PUBLISHED = (("semble", "semble"), ("CRE Hybrid", "CodeRankEmbed Hybrid"), ("BM25", "BM25"))


def semble_beside(folds: Sequence[str], peer: Path | None) -> dict[str, Any]:
    """For a run holding semble-dev repositories: each one's language, its published NDCG@10
    per method (published.json) and, with `peer` (semble_peer.py's --json output), the
    peer's NDCG@10 measured here; {} for a run without them."""
    names = [s.name for s in SEMBLE_SETS if s.name in folds]
    if not names:
        return {}
    repos = json.loads((SEMBLE / "published.json").read_text())["repos"]
    measured = {r["repo"]: r for r in json.loads(peer.read_text())["rows"]} if peer else {}
    beside = {}
    for name in names:
        methods = repos[name]["methods"]
        beside[name] = {
            "language": repos[name]["language"],
            "published": {m: v["ndcg10"] if v else None for m, v in methods.items()},
            "peer": measured[name]["ndcg@10"] if name in measured else None,
        }
    return {"semble": beside}


def semble_tables(saved: dict[str, Any], shown: Sequence[tuple[str, dict[str, Any]]]) -> list[str]:
    """semble-dev per repository and per language: chunk NDCG@10 of each shown row
    (label, results row) held out, beside the peer and the published figures."""
    beside = saved.get("semble", {})
    if not beside:
        return []
    sets = saved["run"]["sets"]
    code = [
        {
            "set": name,
            "language": about["language"],
            "questions": sets[name],
            "modes": {
                label: {"ndcg@10": row["folds"][name]["scores"]["chunk ndcg@10"]}
                for label, row in shown
            },
            "published": about["published"],
            "peer": about["peer"],
        }
        for name, about in beside.items()
    ]
    labels = [label for label, _ in shown]
    return [*repo_table(code, labels), "", *language_table(code, labels)]


def cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def mean(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def repo_table(code: Sequence[dict[str, Any]], shown: Sequence[str]) -> list[str]:
    """A row per repository: its NDCG@10 per mode shown, the peer's and the published."""
    head = "| set | language | n | " + " | ".join(shown) + " | peer | "
    head += " | ".join(column for column, _ in PUBLISHED) + " |"
    lines = [head, "|---|---|---:|" + "---:|" * (len(shown) + 1 + len(PUBLISHED))]
    for row in code:
        got = [row["modes"].get(m, {}).get("ndcg@10") for m in shown]
        pub = row.get("published", {})
        refs = [row.get("peer"), *(pub.get(method) for _, method in PUBLISHED)]
        lines.append(
            f"| {row['set']} | {row['language']} | {row['questions']} | "
            + " | ".join(cell(v) for v in got + refs)
            + " |"
        )
    return lines


def language_table(code: Sequence[dict[str, Any]], shown: Sequence[str]) -> list[str]:
    """Means per language and over the repositories (over those a mode has: see n)."""
    languages = sorted({r["language"] for r in code})
    lines = [
        "| language | repos | " + " | ".join(shown) + " | peer |",
        "|---|---:|" + "---:|" * (len(shown) + 1),
    ]
    groups = [(lang, [r for r in code if r["language"] == lang]) for lang in languages]
    groups.append(("repo mean", list(code)))
    for label, rows in groups:
        cells = []
        for mode in shown:
            values = [r["modes"][mode]["ndcg@10"] for r in rows if mode in r["modes"]]
            figure = cell(mean(values))
            cells.append(figure if len(values) == len(rows) else f"{figure} ({len(values)})")
        cells.append(cell(mean([r.get("peer") for r in rows])))
        lines.append(f"| {label} | {len(rows)} | " + " | ".join(cells) + " |")
    return lines
