"""The repository map ranks by importance (how many other files use a definition, shared
among the files defining its name), not by how often a name is written: on a constructed
package whose most used name is `get` (dictionaries' `.get`, and methods of that name in
several classes and in a test), the class every module uses comes first. Through the
action, so `ragspace map`, MCP `repo_map` and the app's map share it."""

import pytest

from ragspace.actions import Actions
from ragspace.ingestion.worker import Ingestor
from ragspace.sources.files import UploadedFile

ENGINE = b'''class Engine:
    """What every module runs on."""

    def start(self) -> None:
        pass

    def get(self, key: str) -> str:
        return key
'''
CACHE = b"""class Cache:
    def get(self, key: str) -> str:
        return key
"""


def _user(n: int) -> bytes:
    # each module builds an Engine once and calls `.get` on dictionaries many times
    calls = "".join(f"    value{i} = options.get('k{i}')\n" for i in range(12))
    return (
        f"from pkg.engine import Engine\n\n\ndef run_{n}(options: dict[str, str]) -> None:\n"
        f"    engine = Engine()\n{calls}    engine.start()\n"
    ).encode()


TEST = b"""class FakeResponse:
    def get(self, key: str) -> str:
        return key


def helper() -> int:
    return 1


def test_many() -> None:
    for _ in range(3):
        assert helper() == helper() == helper()
    assert FakeResponse().get("a") == {}.get("a", "a")
"""
FILES = {
    "pkg/engine.py": ENGINE,
    "pkg/cache.py": CACHE,
    **{f"pkg/user{n}.py": _user(n) for n in range(4)},
    "tests/test_engine.py": TEST,
}


@pytest.fixture
def package(service: Actions, ingestor: Ingestor) -> Actions:
    service.docsets.create("pkg")
    service.sources.add_files("pkg", [UploadedFile(p, data) for p, data in FILES.items()])
    ingestor.process_all()
    return service


def test_the_most_referenced_class_comes_first_not_the_most_written_name(
    package: Actions,
) -> None:
    lines = package.symbols.repo_map("pkg", 2000).text.splitlines()
    assert lines[:2] == ["pkg/engine.py:", "  1: class Engine"]
    # the test's own `get` and helper come after every definition of the package
    test_file = lines.index("tests/test_engine.py:")
    assert test_file > lines.index("pkg/cache.py:")
    # the budget keeps the most important: one definition, Engine
    assert package.symbols.repo_map("pkg", 20).text.splitlines() == lines[:2]


def test_the_map_picture_shows_the_files_by_importance_and_their_links(package: Actions) -> None:
    graph = package.symbols.repo_graph("pkg", files=7)
    assert graph.files_total == 7
    engine = graph.files[0]
    assert engine.path == "pkg/engine.py"
    top = engine.definitions[0]
    assert (top.qualified_name, top.start_line, top.end_line) == ("Engine", 1, 8)
    linked = {(graph.files[link.first].path, graph.files[link.second].path) for link in graph.links}
    users = {f.path for f in graph.files if f.path.startswith("pkg/user")}
    assert users and all(("pkg/engine.py", user) in linked for user in users)
