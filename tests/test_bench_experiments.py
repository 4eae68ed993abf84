"""Every experiment in bench/experiments/ backs a figure and can be run again.

An experiment is a one-off decision script (issue 65: "each experiment either backs a figure
the log cites and runs from bench/README.md, or leaves the tree"). So each one has a row in
bench/README.md's experiments table with its command, is cited by docs/benchmarks-log.md or
docs/benchmarks.md, and still imports against today's packages (a module moved or renamed
under it fails here, not the next time someone wants its figure). Only scripts whose row says
what extra to install first (`needs ...`) may fail to import for want of that package.
"""

import importlib
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "bench" / "experiments"
SCRIPTS = sorted(p.stem for p in EXPERIMENTS.glob("*.py"))
README = (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
CITED = "".join(
    (ROOT / "docs" / name).read_text(encoding="utf-8")
    for name in ("benchmarks.md", "benchmarks-log.md")
)


def _row(script: str) -> str | None:
    """The script's row in bench/README.md's experiments table."""
    found = re.search(rf"^\| `experiments/{re.escape(script)}\.py` \|.*$", README, re.MULTILINE)
    return found.group(0) if found else None


def test_there_are_experiments_to_check() -> None:
    assert len(SCRIPTS) > 10


@pytest.mark.parametrize("script", SCRIPTS)
def test_each_experiment_has_a_readme_row_with_its_command(script: str) -> None:
    row = _row(script)
    assert row is not None, f"bench/README.md has no row for experiments/{script}.py"
    assert f"experiments/{script}.py" in row.split("|")[-2], "its command column runs it"


@pytest.mark.parametrize("script", SCRIPTS)
def test_each_experiment_is_cited_where_its_figures_are(script: str) -> None:
    assert f"{script}.py" in CITED, f"no figure of experiments/{script}.py is in docs/"


@pytest.mark.parametrize("script", SCRIPTS)
def test_each_experiment_imports_against_todays_packages(
    script: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(EXPERIMENTS))  # they import their siblings by name
    monkeypatch.setattr(sys, "argv", [script])
    try:
        importlib.import_module(f"bench.experiments.{script}")
    except ModuleNotFoundError as missing:
        row = _row(script) or ""
        assert missing.name and not missing.name.startswith(("ragspace", "bench", "scripts"))
        assert "needs" in row, f"{script} needs {missing.name}, and its row does not say so"
