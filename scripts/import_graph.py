"""Check the import graph of the four packages: no cycles, no upward imports.

Every import counts, also those inside functions and under `if TYPE_CHECKING:`.
The layers, from the outside in: the CLI (`ragspace_cli`), the web app (`ragspace_ui`), the
MCP server (`ragspace_mcp`, which the web app hosts at its MCP route and the CLI serves over
stdio or HTTP), the core (`ragspace`). The core imports no front end, the MCP server neither
the web app nor the CLI, and the web app never imports the CLI. Front ends reach the core
through its actions: none imports the store, ingestion, search, ranking, embedding or
chunking stages.
The CLI's `ragspace serve` calls `ragspace_ui.server.serve`, the one function that starts the
web app, which `app.py` calls too: an outer front end starting an inner one, never the
other way, so no exception is needed. (A core module that started the UI would have to import
it; the composition root for the web app is `app.py`, outside every package.)
Usage: python scripts/import_graph.py   (exit status 1 and one line per problem)
"""

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ragspace", "ragspace_mcp", "ragspace_ui", "ragspace_cli")
# The core's stages that only the actions (and the composition root) may reach: a front end
# that imported one would bypass the action layer every front end shares.
BEHIND_THE_ACTIONS = (
    "ragspace.store",
    "ragspace.ingestion",
    "ragspace.search",
    "ragspace.ranking",
    "ragspace.embedding",
    "ragspace.chunking",
)
STAGES = (
    "ragspace.actions",
    "ragspace.answering",
    "ragspace.chunking",
    "ragspace.embedding",
    "ragspace.eval",
    "ragspace.ingestion",
    "ragspace.ranking",
    "ragspace.search",
    "ragspace.sources",
    "ragspace.store",
)
# A module of the left-hand package may not import a module of any package on the right.
FORBIDDEN = {
    "ragspace": ("ragspace_mcp", "ragspace_ui", "ragspace_cli"),
    "ragspace_mcp": ("ragspace_ui", "ragspace_cli", *BEHIND_THE_ACTIONS),
    "ragspace_ui": ("ragspace_cli", *BEHIND_THE_ACTIONS),
    "ragspace_cli": BEHIND_THE_ACTIONS,
    "ragspace.actions": ("ragspace.runtime",),
    "ragspace.answering": ("ragspace.actions", "ragspace.runtime"),
    # metrics and the runner score what a search returns; they know no store or worker
    "ragspace.eval": (
        "ragspace.actions",
        "ragspace.runtime",
        "ragspace.store",
        "ragspace.ingestion",
    ),
    "ragspace.chunking": ("ragspace.actions", "ragspace.runtime"),
    "ragspace.sources": ("ragspace.actions", "ragspace.runtime"),
    # ranking is plain Python over candidate lists: it knows nothing of where they come from
    "ragspace.ranking": (
        "ragspace.actions",
        "ragspace.runtime",
        "ragspace.store",
        "ragspace.search",
        "ragspace.ingestion",
        "ragspace.answering",
        "ragspace.eval",
        "ragspace.sources",
    ),
    "ragspace.ingestion": ("ragspace.actions", "ragspace.runtime"),
    "ragspace.search": ("ragspace.actions", "ragspace.runtime", "ragspace.ingestion"),
    # the leaves: pure functions and models of one concern, below every stage
    "ragspace.embedding": ("ragspace.runtime", *(s for s in STAGES if s != "ragspace.embedding")),
    "ragspace.text": ("ragspace.runtime", *STAGES),
    # settings are read by every component and read none: a default is written once, in its
    # setting, and flows from there into the components' own options (settings.area.default_of)
    "ragspace.settings": ("ragspace.runtime", *STAGES),
    "ragspace.symbols": ("ragspace.runtime", *STAGES),
    "ragspace.store": (
        "ragspace.actions",
        "ragspace.runtime",
        "ragspace.answering",
        "ragspace.eval",
        "ragspace.sources",
        "ragspace.ingestion",
        "ragspace.search",
    ),
}

Graph = dict[str, set[str]]


def module_name(path: Path, root: Path) -> str:
    """`ragspace_cli/main.py` -> `ragspace_cli.main`; a package's `__init__` is the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path) -> dict[str, Path]:
    """Every module of the checked packages under root."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            found[module_name(path, root)] = path
    return found


def imported_names(tree: ast.AST, module: str, is_package: bool) -> Iterator[str]:
    """Dotted names an module imports; `from a import b` yields `a.b` (a module or not)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph(root: Path = ROOT) -> Graph:
    """Module -> the modules of the checked packages it imports."""
    found = modules(root)
    graph: Graph = {}
    for name, path in found.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        targets = {
            target
            for target in imported_names(tree, name, path.name == "__init__.py")
            if target in found and target != name
        }
        # `from pkg import sub` also names pkg; only the submodule counts then
        graph[name] = {t for t in targets if not any(o.startswith(t + ".") for o in targets)}
    return graph


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def within(module: str, package: str) -> bool:
    """Whether a module is the package or inside it."""
    return module == package or module.startswith(package + ".")


def upward_imports(graph: Graph) -> list[str]:
    """Imports a lower layer may not make, as `importer -> imported` lines."""
    problems = []
    for importer, targets in sorted(graph.items()):
        for layer, forbidden in FORBIDDEN.items():
            if not within(importer, layer):
                continue
            problems += [
                f"{importer} -> {target} (upward import)"
                for target in sorted(targets)
                if any(within(target, f) for f in forbidden)
            ]
    return problems


def problems(root: Path = ROOT) -> list[str]:
    """Every cycle and upward import, one line each; empty when the graph is clean."""
    graph = import_graph(root)
    found = [f"cycle: {' <-> '.join(component)}" for component in sorted(cycles(graph))]
    return found + upward_imports(graph)


def main() -> int:
    """Print the problems; exit status 1 when there are any."""
    found = problems()
    for line in found:
        print(line)
    if not found:
        print(f"{len(import_graph())} modules: no import cycles, no upward imports")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
