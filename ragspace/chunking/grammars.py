"""Tree-sitter grammars shipped in per-language wheels, and the queries that find definitions."""

import importlib
import importlib.resources
import logging
import threading
from dataclasses import dataclass
from types import ModuleType
from typing import cast

import tree_sitter

from ragspace.chunking.grammar_queries import EXTRA_QUERIES
from ragspace.chunking.reference_queries import EXTRA_REFERENCE_QUERIES

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GrammarSpec:
    """Where a language's parser lives and whose `tags.scm` queries find its definitions."""

    module: str
    function: str = "language"
    tags_from: tuple[str, ...] = ()  # modules whose shipped tags.scm is used, in order


# Language names as `ragspace.text.languages` gives them (and `tsx`: see `grammar_for`).
GRAMMARS: dict[str, GrammarSpec] = {
    "python": GrammarSpec("tree_sitter_python", tags_from=("tree_sitter_python",)),
    "js": GrammarSpec("tree_sitter_javascript", tags_from=("tree_sitter_javascript",)),
    "ts": GrammarSpec(
        "tree_sitter_typescript",
        "language_typescript",
        tags_from=("tree_sitter_javascript", "tree_sitter_typescript"),
    ),
    # `<T>value` is a type assertion in `.ts` and an element in `.tsx`: two grammars
    "tsx": GrammarSpec(
        "tree_sitter_typescript",
        "language_tsx",
        tags_from=("tree_sitter_javascript", "tree_sitter_typescript"),
    ),
    "go": GrammarSpec("tree_sitter_go", tags_from=("tree_sitter_go",)),
    "rust": GrammarSpec("tree_sitter_rust", tags_from=("tree_sitter_rust",)),
    "java": GrammarSpec("tree_sitter_java", tags_from=("tree_sitter_java",)),
    "c": GrammarSpec("tree_sitter_c", tags_from=("tree_sitter_c",)),
    "cpp": GrammarSpec("tree_sitter_cpp", tags_from=("tree_sitter_cpp",)),
    "ruby": GrammarSpec("tree_sitter_ruby", tags_from=("tree_sitter_ruby",)),
    "php": GrammarSpec("tree_sitter_php", "language_php", tags_from=("tree_sitter_php",)),
    "csharp": GrammarSpec("tree_sitter_c_sharp"),
    "scala": GrammarSpec("tree_sitter_scala", tags_from=("tree_sitter_scala",)),
    "swift": GrammarSpec("tree_sitter_swift", tags_from=("tree_sitter_swift",)),
    "lua": GrammarSpec("tree_sitter_lua", tags_from=("tree_sitter_lua",)),
    "elixir": GrammarSpec("tree_sitter_elixir", tags_from=("tree_sitter_elixir",)),
    "ocaml": GrammarSpec("tree_sitter_ocaml", "language_ocaml", tags_from=("tree_sitter_ocaml",)),
    # fsharp's tags.scm marks the enclosing module, not the `let`, as the function
    "fsharp": GrammarSpec("tree_sitter_fsharp"),
    "kotlin": GrammarSpec("tree_sitter_kotlin"),
    "shell": GrammarSpec("tree_sitter_bash"),
    "haskell": GrammarSpec("tree_sitter_haskell"),
    "zig": GrammarSpec("tree_sitter_zig"),
    "objc": GrammarSpec("tree_sitter_objc"),
    "julia": GrammarSpec("tree_sitter_julia"),
    "groovy": GrammarSpec("tree_sitter_groovy"),
    "gdscript": GrammarSpec("tree_sitter_gdscript"),
}


def grammar_for(language: str, path: str) -> str:
    """The grammar a file needs: its language's, but TSX for a `.tsx` file."""
    return "tsx" if language == "ts" and path.lower().endswith(".tsx") else language


@dataclass(frozen=True)
class Grammar:
    """A loaded language, its definition query, and the same with reference patterns (for
    the symbol table)."""

    language: tree_sitter.Language
    query: tree_sitter.Query
    with_references: tree_sitter.Query


def shipped_tags(module: ModuleType) -> str:
    """The grammar's own `queries/tags.scm`, or "" when the wheel ships none."""
    path = importlib.resources.files(module) / "queries" / "tags.scm"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def _definition_query(
    language: tree_sitter.Language, source: str, captures: tuple[bytes, ...] = (b"@definition.",)
) -> tree_sitter.Query:
    """Compile `source`, keeping only the patterns with one of `captures` (`@definition.*`)."""
    query = tree_sitter.Query(language, source)
    encoded = source.encode("utf-8")
    # the stub says method, the binding has a property
    for index in range(cast(int, query.pattern_count)):
        pattern = encoded[query.start_byte_for_pattern(index) : query.end_byte_for_pattern(index)]
        if not any(capture in pattern for capture in captures):
            query.disable_pattern(index)
    return query


class Grammars:
    """Loads each grammar once, on first use; safe to share between threads."""

    def __init__(self, specs: dict[str, GrammarSpec] | None = None) -> None:
        self._specs = GRAMMARS if specs is None else specs
        self._loaded: dict[str, Grammar | None] = {}
        self._lock = threading.Lock()

    def supports(self, language: str) -> bool:
        """True when a grammar wheel is declared for `language`."""
        return language in self._specs

    def get(self, language: str) -> Grammar | None:
        """The grammar for `language`, or None when there is none or it fails to load."""
        if language not in self._specs:
            return None
        with self._lock:
            if language not in self._loaded:
                try:
                    self._loaded[language] = self._load(self._specs[language], language)
                except (ImportError, AttributeError, OSError, ValueError) as error:
                    log.warning("The %s grammar did not load (%s); using patterns", language, error)
                    self._loaded[language] = None
            return self._loaded[language]

    @staticmethod
    def _load(spec: GrammarSpec, language: str) -> Grammar | None:
        module = importlib.import_module(spec.module)
        loaded = tree_sitter.Language(getattr(module, spec.function)())
        parts = [shipped_tags(importlib.import_module(name)) for name in spec.tags_from]
        definitions = "\n".join([*parts, EXTRA_QUERIES.get(language, "")])
        both = "\n".join([definitions, EXTRA_REFERENCE_QUERIES.get(language, "")])
        return Grammar(
            loaded,
            _definition_query(loaded, definitions),
            _definition_query(loaded, both, (b"@definition.", b"@reference.")),
        )


# Compiling a grammar's queries costs up to a second (Swift: two queries of 0.5 s each), so
# every parser of the process shares one cache unless given its own (tests of broken wheels).
SHARED_GRAMMARS = Grammars()
