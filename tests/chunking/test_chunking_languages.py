"""Real source files of 15 languages: definitions stay whole and chunks name their symbol."""

from pathlib import Path

import pytest

from ragspace.chunking.chunker import Chunker
from ragspace.text.languages import detect_language

DATA = Path(__file__).parent.parent / "data" / "code"

# Every definition of each file, by 1-based line, as a reader would name it.
EXPECTED: dict[str, list[tuple[int, str]]] = {
    "inventory.py": [
        (7, "class Item"),
        (15, "class Item / def restock"),
        (21, "class Item / def take"),
        (28, "class Inventory"),
        (31, "class Inventory / def __init__"),
        (34, "class Inventory / def add"),
        (42, "class Inventory / def low_stock"),
        (48, "class Inventory / def total_units"),
        (53, "def parse_line"),
        (59, "def load_remote"),
    ],
    "router.ts": [
        (3, "type Handler"),
        (5, "interface Params"),
        (9, "interface Route"),
        (16, "class Router"),
        (19, "class Router / method add"),
        (29, "class Router / method handle"),
        (42, "function paramsFrom"),
        (50, "function notFound"),
        (56, "function readJson"),
    ],
    "cache.go": [
        (11, "type entry"),
        (18, "type Cache"),
        (27, "func New"),
        (37, "func Get"),
        (54, "func Put"),
        (69, "func removeElement"),
    ],
    "matrix.rs": [
        (8, "struct Matrix"),
        (14, "impl Matrix"),
        (16, "impl Matrix / fn zeros"),
        (21, "impl Matrix / fn identity"),
        (29, "impl Matrix / fn get"),
        (33, "impl Matrix / fn set"),
        (38, "impl Matrix / fn transpose"),
        (49, "impl Add for &Matrix"),
        (52, "impl Add for &Matrix / fn add"),
        (59, "impl Mul for &Matrix"),
        (62, "impl Mul for &Matrix / fn mul"),
        (75, "impl fmt::Display for Matrix"),
        (76, "impl fmt::Display for Matrix / fn fmt"),
        (86, "mod tests"),
        (90, "mod tests / fn identity_is_neutral"),
    ],
    "OrderService.java": [
        (11, "class OrderService"),
        (16, "class OrderService / method OrderService"),
        (24, "class OrderService / method place"),
        (34, "class OrderService / method cancel"),
        (44, "class OrderService / method toString"),
        (48, "class OrderService / interface OrderRepository"),
        (56, "class OrderService / enum Status"),
    ],
    "ring_buffer.cpp": [
        (9, "class RingBuffer"),
        (11, "class RingBuffer / function RingBuffer"),
        (17, "class RingBuffer / function push"),
        (26, "class RingBuffer / function pop"),
        (36, "class RingBuffer / function size"),
        (46, "function average"),
        (57, "function main"),
    ],
    "slugger.rb": [
        (5, "module Blog"),
        (7, "module Blog / class Slugger"),
        (10, "module Blog / class Slugger / def initialize"),
        (14, "module Blog / class Slugger / def slug"),
        (26, "module Blog / class Slugger / def reset!"),
        (32, "module Blog / class Slugger / def normalize"),
        (37, "module Blog / def self.slugify"),
    ],
    "Mailer.php": [
        (9, "interface Transport"),
        (11, "interface Transport / function send"),
        (14, "class Mailer"),
        (18, "class Mailer / function __construct"),
        (25, "class Mailer / function send"),
        (34, "class Mailer / function sentCount"),
        (39, "class Mailer / function footer"),
        (45, "function mailer_from_env"),
    ],
    "TemperatureLog.cs": [
        (7, "record Reading"),
        (10, "class TemperatureLog"),
        (14, "class TemperatureLog / method Add"),
        (23, "class TemperatureLog / method Average"),
        (29, "class TemperatureLog / method Extremes"),
        (36, "class TemperatureLog / method Mean"),
        (42, "class Conversions"),
        (44, "class Conversions / method ToFahrenheit"),
    ],
    "Playlist.kt": [
        (5, "class Track"),
        (7, "class Playlist"),
        (10, "class Playlist / fun add"),
        (16, "class Playlist / fun totalDuration"),
        (20, "class Playlist / fun shuffled"),
        (25, "class Playlist / fun toString"),
        (30, "object PlaylistFormatter"),
        (31, "object PlaylistFormatter / fun format"),
        (38, "fun byArtist"),
    ],
    "backup.sh": [(8, "function log"), (12, "function dump_database"), (20, "function prune_old")],
    "schema.sql": [
        (3, "table members"),
        (9, "table books"),
        (16, "table loans"),
        (24, "index loans_open_idx"),
        (26, "function available_copies"),
    ],
    "deploy.yaml": [(2, "service"), (10, "database"), (17, "logging")],
    "pyproject-sample.toml": [
        (2, "project"),
        (9, "project.optional-dependencies"),
        (13, "tool.ruff"),
        (17, "tool.ruff.lint"),
        (21, "tool.mypy.overrides"),
    ],
    "package.json": [
        (5, "scripts"),
        (11, "dependencies"),
        (16, "devDependencies"),
        (23, "engines"),
    ],
}
_NOT_CODE = ("#", "//", "/*", "*", "--", "@", "[", "template")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _end(lines: list[str], start: int, language: str) -> int:
    """Last 1-based line of the definition starting at `start`, found independently."""
    index = start - 1
    if language in ("python", "yaml"):
        last = index
        for number in range(index + 1, len(lines)):
            if not lines[number].strip():
                continue
            if _indent(lines[number]) <= _indent(lines[index]):
                break
            last = number
        return last + 1
    if language == "ruby":
        for number in range(index + 1, len(lines)):
            if lines[number].strip() == "end" and _indent(lines[number]) == _indent(lines[index]):
                return number + 1
    if language in ("sql", "toml"):
        number = index
        while number + 1 < len(lines) and lines[number + 1].strip():
            number += 1
        return number + 1
    return _brace_end(lines, index) + 1


def _brace_end(lines: list[str], index: int) -> int:
    depth, opened = 0, False
    for number in range(index, len(lines)):
        line = lines[number]
        depth += line.count("{") - line.count("}")
        opened = opened or "{" in line
        if opened and depth <= 0:
            return number
        following = lines[number + 1].strip() if number + 1 < len(lines) else ""
        if not opened and not line.rstrip().endswith(("{", "(", ",")) and following != "{":
            return number  # a one-line declaration such as `record Reading(...);`
    raise AssertionError(f"unbalanced braces after line {index + 1}")


def _definitions(name: str) -> tuple[str, list[str], list[tuple[int, int, str]]]:
    text = (DATA / name).read_text(encoding="utf-8")
    language = detect_language(name)
    assert language is not None
    lines = text.split("\n")
    spans = [(start, _end(lines, start, language), symbol) for start, symbol in EXPECTED[name]]
    return language, lines, spans


def test_the_samples_cover_at_least_eight_languages() -> None:
    """The acceptance criterion asks for eight; the samples hold fifteen."""
    languages = {detect_language(name) for name in EXPECTED}
    assert len(languages) >= 8
    assert sorted(path.name for path in DATA.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("size", [250, 400, 800])
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_no_definition_shorter_than_the_chunk_size_is_cut(name: str, size: int) -> None:
    """Each definition that fits in a chunk lies entirely inside one chunk."""
    language, lines, spans = _definitions(name)
    text = "\n".join(lines)
    chunks = Chunker(size, size, 50).split(text, language, name)
    assert len(chunks) > 1 or len(text) <= size
    checked = 0
    for start, end, symbol in spans:
        if sum(len(line) + 1 for line in lines[start - 1 : end]) > size:
            continue
        checked += 1
        assert any(c.start_line <= start and c.end_line >= end for c in chunks), (
            f"{symbol} (lines {start}-{end}) was cut: "
            f"{[(c.start_line, c.end_line) for c in chunks]}"
        )
    assert checked > 0


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_chunk_names_the_definition_it_is_about(name: str) -> None:
    """Symbol = innermost definition around the chunk's first code line, else the first inside."""
    language, lines, spans = _definitions(name)
    chunks = Chunker(300, 300, 50).split("\n".join(lines), language, name)
    for chunk in chunks:
        first_code = next(
            (
                number
                for number in range(chunk.start_line, chunk.end_line + 1)
                if lines[number - 1].strip()
                and not lines[number - 1].lstrip().startswith(_NOT_CODE)
            ),
            chunk.start_line,
        )
        around = [s for s in spans if s[0] <= first_code <= s[1]]
        inside = [s for s in spans if chunk.start_line <= s[0] <= chunk.end_line]
        expected = max(around)[2] if around else (inside[0][2] if inside else None)
        assert chunk.metadata.get("symbol") == expected, (chunk.start_line, chunk.content)
        if expected:
            assert chunk.header == f"{name} | {expected}"
        assert chunk.metadata["language"] == language
