"""The figures docs/benchmarks.md and README.md show are the ones the benchmarks wrote.

Each generated part sits between `<!-- NAME:begin -->` and `<!-- NAME:end -->` and must equal
what `scripts/write_benchmarks.py` renders from `bench/results/` today (run it after a
benchmark writes new results); filtered search's table is its benchmark's own `--report`.
"""

import importlib
import json
import shutil
import sys
from pathlib import Path

import pytest

from scripts import write_benchmarks
from scripts.write_benchmarks import PAGES, TABLES, rendered, shown

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"


@pytest.mark.parametrize(
    ("page", "name"),
    [(page, name) for page, names in PAGES.items() for name in names],
    ids=lambda value: value if isinstance(value, str) else value.name,
)
def test_each_page_shows_what_the_results_files_hold(page: Path, name: str) -> None:
    text = page.read_text(encoding="utf-8")
    assert shown(text, name) == TABLES[name](), (
        f"{page.name} is not what bench/results/ holds: run `python scripts/write_benchmarks.py`"
    )


def test_the_filtered_search_table_is_the_benchmarks_own_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    module = importlib.import_module("filtered_search")
    try:
        page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
        assert shown(page, "filtered_search") == module.report(
            BENCH / "results" / "filtered_search.jsonl"
        )
    finally:
        sys.modules.pop("filtered_search", None)


def test_a_new_result_changes_the_readme_so_a_stale_readme_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = tmp_path / "results"
    shutil.copytree(BENCH / "results", results)
    pool = json.loads((results / "quality_pool.json").read_text(encoding="utf-8"))
    pool["run"] |= {"commit": "abc1234", "date": "2026-12-01"}
    pool["rows"][-1]["folds"]["codebase"]["scores"]["chunk recall@10"] = 0.951
    (results / "quality_pool.json").write_text(json.dumps(pool), encoding="utf-8")
    load = json.loads((results / "load_test.json").read_text(encoding="utf-8"))
    load["operations"]["search"]["p95_ms"] = 321.0
    (results / "load_test.json").write_text(json.dumps(load), encoding="utf-8")
    monkeypatch.setattr(write_benchmarks, "RESULTS", results)

    readme = rendered(write_benchmarks.README)
    assert readme != write_benchmarks.README.read_text(encoding="utf-8")
    table = shown(readme, "readme_quality")
    sides = {row["variant"]: row["folds"]["codebase"]["scores"] for row in pool["rows"][:2]}
    vector, keyword = (
        f"{sides[side]['chunk recall@10']:.3f} / {sides[side]['chunk mrr@10']:.3f}"
        for side in ("vector", "keyword")
    )
    assert f"| code chunks (248) | R@10 / MRR@10 | {vector} | {keyword} | 0.951 / " in table
    assert "at abc1234, 2026-12-01" in table
    assert "search p95 321 ms" in table


def test_the_retrieval_quality_section_is_reserved_at_the_top_of_the_retrieval_part() -> None:
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    retrieval = page.index("## Retrieval quality")
    assert page.index("<!-- retrieval_quality:begin -->") > retrieval
    assert page.index("<!-- retrieval_quality:begin -->") < page.index("<!-- shared_sets:begin")
