"""Languages told apart by name and content; the parse never fails a document."""

import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.chunking.chunker import Chunker
from ragspace.chunking.grammars import GRAMMARS, Grammars, GrammarSpec
from ragspace.chunking.syntax import SyntaxParser
from ragspace.ingestion.worker import Ingestor
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from ragspace.text.languages import detect_language, detect_language_of, is_prose

DATA = Path(__file__).parent.parent / "data"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("syntax/strbuf.h", "c"),
        ("syntax/span.h", "cpp"),
        ("syntax/Counter.h", "objc"),
        ("syntax/Counter.m", "objc"),
        ("syntax/smooth.m", "matlab"),
        ("code/ring_buffer.cpp", "cpp"),
    ],
)
def test_headers_and_dot_m_are_told_apart_by_content(name: str, expected: str) -> None:
    path = DATA / name
    assert detect_language_of(path.name, path.read_text(encoding="utf-8")) == expected


@pytest.mark.parametrize(
    "name",
    ["a.zig", "a.dart", "a.m", "a.erl", "a.clj", "a.jl", "a.nim", "a.ml", "a.fs", "a.groovy",
     "a.gd", "a.hs", "build.gradle", "a.mli", "a.hrl", "a.cljs", "a.fsx"],
)  # fmt: skip
def test_the_issue_s_extensions_are_code(name: str) -> None:
    language = detect_language(name)
    assert language is not None and not is_prose(language)


@pytest.mark.parametrize(
    ("name", "definitions"),
    [
        ("cart.dart", ["class CartItem", "mixin Discountable", "class Cart", "function main"]),
        ("kv_store.erl", ["function new", "function put", "function get", "function delete"]),
        ("stats.clj", ["ns demo.stats", "defn mean", "defn variance", "defmacro with-precision"]),
        ("shapes.nim", ["type Shape", "proc newCircle", "method area", "func describe"]),
        ("smooth.m", ["function smooth", "function bounds"]),
    ],
)
def test_languages_without_a_grammar_are_cut_at_definitions_by_patterns(
    name: str, definitions: list[str]
) -> None:
    path = DATA / "syntax" / name
    text = path.read_text(encoding="utf-8")
    language = detect_language_of(name, text)
    assert language is not None and language not in GRAMMARS
    chunks = Chunker(80, 80, 0).split(text, language, name)
    symbols = {c.metadata.get("symbol", "").split(" / ")[0] for c in chunks}
    assert set(definitions) <= symbols
    assert all("scope" not in c.metadata for c in chunks)


def _python_chunks(chunker: Chunker) -> list[tuple[int, int, str]]:
    text = (DATA / "code" / "inventory.py").read_text(encoding="utf-8")
    return [(c.start_line, c.end_line, c.content) for c in chunker.split(text, "python", "i.py")]


def test_a_file_over_the_parse_cap_keeps_the_pattern_chunks() -> None:
    capped = Chunker(300, 300, 50, syntax=SyntaxParser(max_bytes=100))
    text = (DATA / "code" / "inventory.py").read_text(encoding="utf-8")
    chunks = capped.split(text, "python", "i.py")
    assert all("scope" not in c.metadata for c in chunks)
    assert _python_chunks(capped) == _python_chunks(Chunker(300, 300, 50))


def test_a_grammar_that_does_not_load_falls_back_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    broken = Grammars({"python": GrammarSpec("tree_sitter_no_such_language")})
    chunker = Chunker(300, 300, 50, syntax=SyntaxParser(broken))
    with caplog.at_level(logging.WARNING):
        assert _python_chunks(chunker) == _python_chunks(Chunker(300, 300, 50))
    assert "python grammar did not load" in caplog.text


def test_a_query_that_does_not_compile_falls_back(caplog: pytest.LogCaptureFixture) -> None:
    bad = {"python": GrammarSpec("tree_sitter_python", tags_from=("tree_sitter_go",))}
    with caplog.at_level(logging.WARNING):
        assert SyntaxParser(Grammars(bad)).symbols("def f():\n    pass\n", "python", 3) is None
    assert "did not load" in caplog.text


def test_text_that_is_not_utf8_encodable_falls_back() -> None:
    text = "def f():\n    return '\udcff'\n"  # a lone surrogate, as `surrogateescape` leaves
    chunks = Chunker(300, 300, 50).split(text, "python", "odd.py")
    assert [c.metadata.get("scope") for c in chunks] == [None]
    assert chunks[0].metadata["symbol"] == "def f"


def test_broken_code_still_gets_scopes_for_what_parses() -> None:
    text = "class Good:\n    def ok(self):\n        return 1\n\n\ndef broken(:\n    x = (\n"
    chunks = Chunker(40, 40, 0).split(text, "python", "b.py")
    assert chunks[0].metadata["scope"] == ["Good"]
    assert {c.start_line for c in chunks} >= {1, 6}


def test_scope_metadata_reaches_the_store(
    service: Actions, ingestor: Ingestor, store: Store
) -> None:
    """An uploaded C++ header is stored as C++, its chunks with their scope chains."""
    service.docsets.create("code")
    header = (DATA / "syntax" / "span.h").read_bytes()
    [document] = service.sources.add_files("code", [UploadedFile("include/span.h", header)])
    assert document.language == "cpp"
    assert ingestor.process_all() == 1
    stored = store.chunks.of_document(document.id)
    assert stored[0].metadata["scope"] == ["util"]  # the file fits one chunk at the defaults
    defines = [d for c in stored for d in c.metadata["defines"]]
    assert {"name": "Span", "kind": "class", "line": 9} in defines
    assert {"name": "first", "kind": "method", "line": 17} in defines


def test_one_chunker_serves_several_threads() -> None:
    """The ingestion worker may run in threads sharing one chunker (and its grammars)."""
    names = ["code/inventory.py", "code/cache.go", "syntax/span.h", "syntax/Shapes.hs"] * 3
    texts = [(DATA / name).read_text(encoding="utf-8") for name in names]
    languages = [
        detect_language_of(name, text) or "text" for name, text in zip(names, texts, strict=True)
    ]

    def split(chunker: Chunker, index: int) -> list[tuple[int, object]]:
        chunks = chunker.split(texts[index], languages[index], names[index])
        return [(c.start_line, c.metadata.get("scope")) for c in chunks]

    alone = [split(Chunker(200, 200, 0), index) for index in range(len(names))]
    shared = Chunker(200, 200, 0)
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda index: split(shared, index), range(len(names))))
    assert together == alone
