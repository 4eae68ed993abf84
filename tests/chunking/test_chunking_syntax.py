"""Scope chains from tree-sitter: each chunk knows the definitions around it and in it."""

import ast
from pathlib import Path

import pytest

from ragspace.chunking.chunker import Chunker
from ragspace.chunking.grammars import GRAMMARS, Grammars, grammar_for
from ragspace.chunking.syntax import SyntaxParser
from ragspace.models import ChunkDraft
from ragspace.text.languages import detect_language_of, is_prose
from tests.chunking.python_ast import parse_python

DATA = Path(__file__).parent.parent / "data"
# 1-based first line of each definition -> its scope chain, read off the files by hand.
SCOPES: dict[str, dict[int, list[str]]] = {
    "code/inventory.py": {
        7: ["Item"], 15: ["Item", "restock"], 21: ["Item", "take"], 28: ["Inventory"],
        31: ["Inventory", "__init__"], 34: ["Inventory", "add"], 42: ["Inventory", "low_stock"],
        48: ["Inventory", "total_units"], 53: ["parse_line"], 59: ["load_remote"],
    },
    "code/router.ts": {
        3: ["Handler"], 5: ["Params"], 9: ["Route"], 16: ["Router"], 19: ["Router", "add"],
        29: ["Router", "handle"], 42: ["paramsFrom"], 50: ["notFound"], 56: ["readJson"],
    },
    "code/cache.go": {
        11: ["entry"], 18: ["Cache"], 27: ["New"], 37: ["Cache", "Get"], 54: ["Cache", "Put"],
        69: ["Cache", "removeElement"],
    },
    "code/matrix.rs": {
        8: ["Matrix"], 14: ["Matrix"], 16: ["Matrix", "zeros"], 21: ["Matrix", "identity"],
        29: ["Matrix", "get"], 33: ["Matrix", "set"], 38: ["Matrix", "transpose"],
        52: ["Matrix", "add"], 62: ["Matrix", "mul"], 76: ["Matrix", "fmt"], 86: ["tests"],
        90: ["tests", "identity_is_neutral"],
    },
    "code/OrderService.java": {
        11: ["OrderService"], 16: ["OrderService", "OrderService"],
        24: ["OrderService", "place"], 34: ["OrderService", "cancel"],
        43: ["OrderService", "toString"], 48: ["OrderService", "OrderRepository"],
        49: ["OrderService", "OrderRepository", "save"], 56: ["OrderService", "Status"],
    },
    "code/ring_buffer.cpp": {
        9: ["util", "RingBuffer"], 11: ["util", "RingBuffer", "RingBuffer"],
        17: ["util", "RingBuffer", "push"], 26: ["util", "RingBuffer", "pop"],
        36: ["util", "RingBuffer", "size"], 46: ["average"], 57: ["main"],
    },
    "code/slugger.rb": {
        5: ["Blog"], 7: ["Blog", "Slugger"], 10: ["Blog", "Slugger", "initialize"],
        14: ["Blog", "Slugger", "slug"], 26: ["Blog", "Slugger", "reset!"],
        32: ["Blog", "Slugger", "normalize"], 37: ["Blog", "slugify"],
    },
    "code/Mailer.php": {
        9: ["Transport"], 11: ["Transport", "send"], 14: ["Mailer"],
        18: ["Mailer", "__construct"], 25: ["Mailer", "send"], 34: ["Mailer", "sentCount"],
        39: ["Mailer", "footer"], 45: ["mailer_from_env"],
    },
    "code/TemperatureLog.cs": {
        10: ["Weather.Station", "TemperatureLog"],
        14: ["Weather.Station", "TemperatureLog", "Add"],
        23: ["Weather.Station", "TemperatureLog", "Average"],
        42: ["Weather.Station", "Conversions"],
        44: ["Weather.Station", "Conversions", "ToFahrenheit"],
    },
    "code/Playlist.kt": {
        5: ["Track"], 7: ["Playlist"], 10: ["Playlist", "add"],
        16: ["Playlist", "totalDuration"], 20: ["Playlist", "shuffled"],
        30: ["PlaylistFormatter"], 31: ["PlaylistFormatter", "format"], 38: ["byArtist"],
    },
    "code/backup.sh": {8: ["log"], 12: ["dump_database"], 20: ["prune_old"]},
    "syntax/legacy.ts": {
        2: ["parsePort"], 7: ["Settings"], 10: ["Settings", "get"], 14: ["Settings", "set"],
    },
    "syntax/Toolbar.tsx": {
        3: ["ToolbarProps"], 8: ["Toolbar"], 17: ["Counter"], 20: ["Counter", "increment"],
        24: ["Counter", "render"],
    },
    "syntax/format.js": {
        4: ["PriceFormatter"], 9: ["PriceFormatter", "format"], 17: ["total"], 21: ["withTax"],
    },
    "syntax/strbuf.h": {7: ["strbuf"], 15: ["strbuf_init"], 17: ["strbuf_len"]},
    "syntax/span.h": {
        9: ["util", "Span"], 11: ["util", "Span", "Span"], 15: ["util", "Span", "size"],
        17: ["util", "Span", "first"],
    },
    "syntax/Counter.h": {6: ["Counter"], 10: ["Counter", "initWithStart"]},
    "syntax/Counter.m": {
        3: ["Counter"], 5: ["Counter", "initWithStart"], 13: ["Counter", "increment"],
        17: ["Counter", "valueAfter"], 25: ["Counter", "counter"], 31: ["clamp"],
    },
    "syntax/Inventory.scala": {
        6: ["Item"], 8: ["Restocker"], 12: ["Inventory"], 15: ["Inventory", "add"],
        19: ["Inventory", "restock"], 26: ["Inventory"], 29: ["Inventory", "fromList"],
    },
    "syntax/Timer.swift": {
        4: ["Ticking"], 8: ["Countdown"], 15: ["Countdown", "tick"],
        22: ["Countdown", "reset"], 27: ["Lap"], 31: ["Lap", "formatted"], 36: ["totalTime"],
    },
    "syntax/queue.lua": {
        5: ["Queue", "new"], 9: ["Queue", "push"], 14: ["Queue", "pop"], 24: ["drain"],
    },
    "syntax/bank.ex": {
        1: ["Bank.Account"], 9: ["Bank.Account", "open"], 13: ["Bank.Account", "deposit"],
        17: ["Bank.Account", "withdraw"], 25: ["Bank.Account", "log"],
    },
    "syntax/stack.ml": {
        6: ["push"], 8: ["pop"], 13: ["Bounded"], 16: ["Bounded", "create"],
        18: ["Bounded", "push"],
    },
    "syntax/Shapes.fs": {
        4: ["Geometry.Shapes", "Shape"], 8: ["Geometry.Shapes", "area"],
        13: ["Geometry.Shapes", "perimeter"], 18: ["Geometry.Shapes", "Canvas"],
        21: ["Geometry.Shapes", "Canvas", "Fits"],
    },
    "syntax/Shapes.hs": {
        11: ["Shape"], 16: ["HasName"], 19: ["HasName"], 24: ["area"], 28: ["perimeter"],
        32: ["largest"],
    },
    "syntax/list.zig": {
        5: ["IntList"], 10: ["IntList", "init"], 14: ["IntList", "append"],
        23: ["IntList", "deinit"], 28: ["sum"], 34: ["append grows the list"],
    },
    "syntax/geometry.jl": {
        1: ["Geometry"], 6: ["Geometry", "Point"], 13: ["Geometry", "Polygon"],
        18: ["Geometry", "distance"], 24: ["Geometry", "centroid"],
        31: ["Geometry", "perimeter"], 33: ["Geometry", "twice"],
    },
    "syntax/build.groovy": {
        8: ["Pipeline"], 17: ["Pipeline", "stage"], 22: ["Pipeline", "publish"],
        31: ["Notifier"], 35: ["runAll"],
    },
    "syntax/player.gd": {
        11: ["_ready"], 16: ["_physics_process"], 22: ["take_damage"], 29: ["die"],
        33: ["Inventory"], 36: ["Inventory", "add"],
    },
}  # fmt: skip
_NOT_CODE = ("#", "//", "/*", "*", "--", "%", "@", '"""', "(*", "[", ";")


def _split(name: str, size: int, chunker: Chunker | None = None) -> tuple[str, list[ChunkDraft]]:
    path = DATA / name
    text = path.read_text(encoding="utf-8")
    language = detect_language_of(path.name, text)
    assert language is not None and not is_prose(language)
    chunker = chunker or Chunker(size, size, 50)
    return language, chunker.split(text, language, path.name)


def _lead(lines: list[str], chunk: ChunkDraft, starts: dict[int, list[str]]) -> int:
    """The chunk's first definition or code line (1-based), past blanks, comments, decorators."""
    for number in range(chunk.start_line, chunk.end_line + 1):
        stripped = lines[number - 1].strip()
        if number in starts or (stripped and not stripped.startswith(_NOT_CODE)):
            return number
    return chunk.start_line


def test_the_samples_cover_every_grammar() -> None:
    """One file per language with a grammar wheel, each with its definitions by hand."""
    covered = {grammar_for(_split(name, 300)[0], name) for name in SCOPES}
    assert covered == set(GRAMMARS)


@pytest.mark.parametrize("size", [300, 2000])
@pytest.mark.parametrize("name", sorted(SCOPES))
def test_each_definition_is_listed_by_the_chunk_holding_its_first_line(
    name: str, size: int
) -> None:
    """`defines` names every definition with its line, in the chunk where it starts."""
    _, chunks = _split(name, size)
    for line, chain in SCOPES[name].items():
        holders = [c for c in chunks if c.start_line <= line <= c.end_line]
        listed = [(d["name"], d["line"]) for c in holders for d in c.metadata.get("defines", [])]
        assert (chain[-1], line) in listed, (line, listed)


@pytest.mark.parametrize("name", sorted(SCOPES))
def test_a_chunk_starting_at_a_definition_carries_its_scope_chain(name: str) -> None:
    """Chunks start at definitions with that definition's chain; the rest continue one."""
    _, chunks = _split(name, 300)
    lines = (DATA / name).read_text(encoding="utf-8").split("\n")
    starts = SCOPES[name]
    at_definitions = 0
    for chunk in chunks:
        lead = _lead(lines, chunk, starts)
        if lead in starts:
            assert chunk.metadata["scope"] == starts[lead], (lead, chunk.content)
            assert chunk.metadata["kind"]
            at_definitions += 1
        elif lead > min(starts):  # inside a definition that started in an earlier chunk
            assert chunk.metadata.get("scope"), (lead, chunk.content)
        else:  # the file's preamble (imports...): named after the first definition it holds
            held = [line for line in starts if chunk.start_line <= line <= chunk.end_line]
            assert bool(chunk.metadata.get("scope")) == bool(held) or "defines" in chunk.metadata
            at_definitions += bool(held)
    assert at_definitions >= 1


def test_chunk_metadata_for_a_method() -> None:
    """The format stored in the chunk's metadata (jsonb), on one example."""
    _, chunks = _split("code/inventory.py", 300)
    [chunk] = [c for c in chunks if c.start_line == 34]
    assert chunk.metadata == {
        "language": "python",
        "symbol": "class Inventory / def add",
        "scope": ["Inventory", "add"],
        "kind": "method",
        "defines": [{"name": "add", "kind": "method", "line": 34}],
    }
    assert chunk.header == "inventory.py | class Inventory / def add"


@pytest.mark.parametrize("name", sorted(n for n in SCOPES if n.startswith("code/")))
def test_the_parse_does_not_move_chunk_boundaries(name: str) -> None:
    """Languages with line patterns are cut where they were before tree-sitter."""
    without = Chunker(300, 300, 50, syntax=SyntaxParser(Grammars({})))
    _, before = _split(name, 300, without)
    _, after = _split(name, 300)
    assert [(c.start_line, c.end_line, c.content, c.header) for c in before] == [
        (c.start_line, c.end_line, c.content, c.header) for c in after
    ]
    assert all("scope" not in c.metadata for c in before)


def _ast_definitions(text: str) -> set[tuple[tuple[str, ...], int, int]]:
    """(scope chain, first line, last line) of every def and class, as Python's ast sees them."""
    found: set[tuple[tuple[str, ...], int, int]] = set()

    def visit(node: ast.AST, chain: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inner = (*chain, child.name)
                found.add((inner, child.lineno, child.end_lineno or child.lineno))
                visit(child, inner)
            else:
                visit(child, chain)

    visit(parse_python(text), ())
    return found


def test_python_definitions_match_the_ast_module_on_a_real_checkout() -> None:
    """Every def/class of the flask checkout: same scope chain and line range as `ast`."""
    parser = SyntaxParser()
    files = sorted((DATA / "checkout").rglob("*.py"))
    assert len(files) > 50
    checked = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        table = parser.symbols(text, "python", len(text.split("\n")))
        assert table is not None
        parsed = {
            (tuple(table.scope(index)), symbol.line + 1, symbol.end + 1)
            for index, symbol in enumerate(table.symbols)
            if symbol.kind in ("class", "function", "method")
        }
        expected = _ast_definitions(text)
        assert parsed == expected, (path, sorted(parsed ^ expected)[:5])
        checked += len(expected)
    assert checked > 1000
