"""semble-dev in the retrieval protocol (bench/quality_pool.py, issue 68): each repository a
set of its own with its language, counted as one group when a fold chooses, and reported per
repository and per language beside the published and the peer's figures."""

import json
import tarfile
from pathlib import Path
from typing import Any

from bench.pool.choice import by_group, folds_of, group_mean, guards_seen, training_sets
from bench.pool.protocol import affordable, wins
from bench.pool.report import readme_report, report
from bench.pool.semble import semble_beside
from bench.pool.sets import (
    CORE_SETS,
    DOCS_GUARDS,
    GUARDS,
    HEADLINE,
    HEADLINE_NDCG,
    SEMBLE,
    SEMBLE_GROUP,
    SEMBLE_SETS,
    SETS,
    chosen_sets,
    data_dir,
    group_of,
)

PUBLISHED = json.loads((SEMBLE / "published.json").read_text(encoding="utf-8"))["repos"]


def test_each_semble_dev_repository_is_a_set_with_its_language_and_tarball() -> None:
    assert [s.name for s in SEMBLE_SETS] == sorted(PUBLISHED)  # the 15, after the five
    assert (*CORE_SETS, *SEMBLE_SETS) == SETS and len(SETS) == len(CORE_SETS) + 15
    for pool_set in SEMBLE_SETS:
        assert pool_set.language == PUBLISHED[pool_set.name]["language"]
        assert pool_set.headline == HEADLINE_NDCG == ("chunk ndcg@10", "chunk mrr@10")
        assert pool_set.questions.exists() and pool_set.docset == pool_set.name
        assert pool_set.tarball is not None
        with tarfile.open(pool_set.tarball) as archive:  # indexing unpacks it to src/<name>/
            first = archive.next()
            assert first is not None and first.name.split("/")[0] == pool_set.name
    assert len({data_dir(Path("w"), s) for s in SETS}) == len(SETS)  # a data folder each
    assert [s.name for s in chosen_sets(["sinatra", "pytest"])] == ["pytest", "sinatra"]


def test_docs_dev_sites_are_guards_every_fold_sees_and_never_folds() -> None:
    assert [s.name for s in DOCS_GUARDS] == ["fastapi", "vite"]
    assert all(HEADLINE[s.name] == ("file recall@5", "file mrr@10") for s in DOCS_GUARDS)
    assert [s.name for s in chosen_sets(["vite", "express"])] == ["express", "vite"]
    pool: dict[str, list[Any]] = {name: [] for name in ["express", "sinatra", *GUARDS]}
    assert folds_of(pool) == ["express", "sinatra"]
    for held_out in ("express", "sinatra"):
        assert {"fastapi", "vite"} <= set(guards_seen(pool, training_sets(pool, held_out)))


def test_semble_dev_counts_as_one_group_when_a_fold_chooses() -> None:
    assert {group_of(s.name) for s in SEMBLE_SETS} == {SEMBLE_GROUP}
    assert group_of("pytest") == "pytest" and group_of("claude-docs beside code") != SEMBLE_GROUP
    values = {"pytest": 1.0, "express": 0.0, "sinatra": 1.0, "tokio": 0.5}
    assert sorted(by_group(values)) == [0.5, 1.0]
    assert group_mean(values) == 0.75  # not (1 + 0 + 1 + 0.5) / 4
    assert group_mean({"pytest": 0.2, "sphinx": 0.4}) == 0.30000000000000004


def _row(changes: dict[str, float]) -> dict[str, Any]:
    figures = {"chunk ndcg@10": 0.8, "chunk mrr@10": 0.8, "file recall@10": 0.8}
    figures |= {"file mrr@10": 0.8}
    folds = {
        name: {"scores": {key: value + change for key, value in figures.items()}}
        for name, change in changes.items()
    }
    return {"folds": folds}


def test_a_row_is_judged_on_semble_dev_by_its_repositories_mean() -> None:
    today = _row({"pytest": 0.0, "express": 0.0, "sinatra": 0.0})
    # one small repository worse by 0.03, another better by 0.05: semble-dev gains
    assert wins(_row({"pytest": 0.0, "express": -0.03, "sinatra": 0.05}), today)
    assert not wins(_row({"pytest": -0.03, "express": 0.05, "sinatra": 0.05}), today)
    assert not wins(_row({"pytest": 0.02, "express": -0.05, "sinatra": 0.02}), today)


def test_the_joint_grid_leaves_out_the_kept_rows_that_gained_least_when_too_large() -> None:
    kept = [
        ("a", 0.05, {"x": [0, 1, 2, 3]}),
        ("b", 0.01, {"y": [0, 1, 2, 3, 4]}),
        ("c", 0.09, {"z": [0, 1], "x": [0, 4]}),
    ]
    axes, left_out = affordable(kept, limit=20)
    assert left_out == ["b"] and axes == {"x": [0, 1, 2, 3, 4], "z": [0, 1]}  # rows' order
    assert affordable(kept, limit=50) == (
        {"x": [0, 1, 2, 3, 4], "y": [0, 1, 2, 3, 4], "z": [0, 1]},
        [],
    )


def _scores(value: float) -> dict[str, float]:
    keys = ["chunk recall@5", "chunk recall@10", "chunk mrr@10", "chunk ndcg@10"]
    keys += ["file recall@5", "file recall@10", "file mrr@10"]
    return dict.fromkeys(keys, value)


def _results(tmp_path: Path) -> Path:
    """A protocol run over codebase and three semble-dev repositories, with a peer file."""
    names = {"codebase": 248, "express": 9, "sinatra": 16, "tokio": 17}
    peer = tmp_path / "peer.json"
    peer.write_text(json.dumps({"rows": [{"repo": "express", "ndcg@10": 0.928}]}))
    rows = []
    sides = (("vector", 0.5), ("keyword", 0.4), ("keyword-only ranking", 0.45))
    for variant, base in (*sides, ("hybrid (today)", 0.6)):
        folds = {n: {"chosen": "-", "scores": _scores(base)} for n in names}
        rows.append({"variant": variant, "folds": folds, "guards": {"vite": _scores(base)}})
    shipped: dict[str, dict[str, Any]] = {
        n: {"chosen": "defaults", "scores": _scores(0.7)} for n in names
    }
    shipped["tokio"]["scores"]["chunk ndcg@10"] = 0.9
    guards = {"vite": _scores(0.7)}
    rows.append({"variant": "kept signals, tuned jointly", "folds": shipped, "guards": guards})
    run = {"command": "c", "date": "d", "commit": "abc", "load": 1.0, "depth": 75, "k": 10}
    run |= {"sets": names, "guards": {"vite": 12}}
    saved = {"run": run, "rows": rows, **semble_beside(list(names), peer)}
    results = tmp_path / "quality_pool.json"
    results.write_text(json.dumps(saved))
    return results


def test_the_report_shows_semble_dev_per_repository_and_language(tmp_path: Path) -> None:
    text = report(_results(tmp_path))
    assert "| ranking | codebase | semble-dev (repo mean) |" in text
    # tokio's NDCG@10 0.9, the others' 0.7: the repo mean 0.767 and MRR@10 0.700
    assert "| kept signals, tuned jointly | 0.700 / 0.700 | 0.767 / 0.700 |" in text
    assert "chosen on the other three" in text and "on all four (the app's default)" in text
    assert "docs-dev's 12 vite questions asked of its own DocSet (vite)" in text
    assert "| kept signals, tuned jointly | 0.700 / 0.700 |\n" in text  # vite's R@5 / MRR@10
    head = "| set | language | n | vector | keyword | keyword-only ranking | hybrid (today) |"
    head += " hybrid (shipped) | peer |"
    assert head + " semble | CRE Hybrid | BM25 |" in text
    express = PUBLISHED["express"]["methods"]
    published = " | ".join(
        f"{express[m]['ndcg10']:.3f}" for m in ("semble", "CodeRankEmbed Hybrid", "BM25")
    )
    express_row = (
        "| express | javascript | 9 | 0.500 | 0.400 | 0.450 | 0.600 | 0.700 | 0.928 | "
        f"{published} |"
    )
    assert express_row in text
    # no peer row
    assert "| sinatra | ruby | 16 | 0.500 | 0.400 | 0.450 | 0.600 | 0.700 | - |" in text
    assert "| rust | 1 | 0.500 | 0.400 | 0.450 | 0.600 | 0.900 | - |" in text
    assert "| repo mean | 3 | 0.500 | 0.400 | 0.450 | 0.600 | 0.767 | 0.928 |" in text


def test_the_readme_shows_semble_dev_as_one_row_of_its_repo_mean(tmp_path: Path) -> None:
    text = readme_report(_results(tmp_path))
    codebase = (
        "| code chunks (248) | R@10 / MRR@10 | 0.500 / 0.500 | 0.400 / 0.400 | 0.700 / 0.700 |"
    )
    assert codebase in text
    assert (
        "| semble-dev code chunks, repo mean (42) | NDCG@10 / MRR@10 | 0.500 / 0.500 | "
        "0.400 / 0.400 | 0.767 / 0.700 |"
    ) in text
    assert "the ranking chosen on the other three" in text
