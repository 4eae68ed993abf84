"""The package layout holds: no import cycles, no upward imports (scripts/import_graph.py)."""

from pathlib import Path

from scripts.import_graph import import_graph, problems


def test_ragspace_has_no_import_cycles_or_upward_imports() -> None:
    graph = import_graph()
    assert "ragspace.actions.search" in graph and "ragspace_ui.app" in graph
    assert "ragspace_cli.main" in graph and "ragspace_mcp.tool_server" in graph
    assert problems() == []


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_cycles_and_upward_imports_are_reported(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "ragspace/__init__.py": "",
            "ragspace/actions.py": "from ragspace.eval import runner\n",
            "ragspace/eval/__init__.py": "",
            "ragspace/eval/runner.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from ragspace.actions import Actions\n"
            ),
            "ragspace/models.py": "def f() -> None:\n    import ragspace_ui.app\n",
            "ragspace/settings.py": "import ragspace_cli.main\n",
            "ragspace_cli/__init__.py": "",
            "ragspace_cli/main.py": "from ragspace_ui.app import serve\n",  # outer front end
            "ragspace_cli/evaluate.py": "from ragspace.ingestion.worker import Ingestor\n",
            "ragspace_mcp/__init__.py": "",
            "ragspace_mcp/tools.py": "from ragspace.store import Store\nimport ragspace_ui.app\n",
            "ragspace/store/__init__.py": "",
            "ragspace/ingestion/__init__.py": "",
            "ragspace/ingestion/worker.py": "",
            "ragspace_ui/__init__.py": "",
            "ragspace_ui/app.py": "from ragspace import models\n",
            "ragspace_ui/routes.py": "from ragspace_cli import main\n",
        },
    )
    assert problems(tmp_path) == [
        "cycle: ragspace.actions <-> ragspace.eval.runner",
        "cycle: ragspace.models <-> ragspace_ui.app",
        "ragspace.eval.runner -> ragspace.actions (upward import)",
        "ragspace.models -> ragspace_ui.app (upward import)",
        "ragspace.settings -> ragspace_cli.main (upward import)",
        "ragspace_cli.evaluate -> ragspace.ingestion.worker (upward import)",
        "ragspace_mcp.tools -> ragspace.store (upward import)",
        "ragspace_mcp.tools -> ragspace_ui.app (upward import)",
        "ragspace_ui.routes -> ragspace_cli.main (upward import)",
    ]


def test_the_core_keeps_at_most_eight_modules_at_its_top() -> None:
    """Every stage has its package; only wiring and a few shared nouns stay at the top."""
    root = Path(__file__).resolve().parent.parent / "ragspace"
    assert len(list(root.glob("*.py"))) <= 8
