"""The figures docs/benchmarks.md shows are the ones the benchmarks wrote (no copy goes stale).

Each generated table sits between `<!-- NAME:begin -->` and `<!-- NAME:end -->` and must equal
what the benchmark's report renders from its results file today.
"""

import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
# marker name -> (bench module, results file)
TABLES = {"filtered_search": ("filtered_search", BENCH / "results" / "filtered_search.jsonl")}


def shown(name: str) -> str:
    """The table docs/benchmarks.md shows between the markers `name`."""
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    begin, end = f"<!-- {name}:begin -->\n", f"<!-- {name}:end -->"
    assert begin in page and end in page, f"docs/benchmarks.md has no {name} table"
    return page.split(begin, 1)[1].split(end, 1)[0]


@pytest.mark.parametrize("name", sorted(TABLES))
def test_the_benchmark_page_shows_the_results_the_benchmark_wrote(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    module_name, results = TABLES[name]
    monkeypatch.syspath_prepend(str(BENCH))
    module = importlib.import_module(module_name)
    try:
        assert shown(name) == module.report(results)
    finally:
        sys.modules.pop(module_name, None)
