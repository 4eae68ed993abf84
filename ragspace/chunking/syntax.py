"""Definitions of a source file from a tree-sitter parse, and the scope chain of any line span."""

import logging
import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import tree_sitter

from ragspace.chunking.grammars import SHARED_GRAMMARS, Grammar, Grammars

log = logging.getLogger(__name__)

# Bigger files (generated code, vendored bundles) keep the line-pattern chunking only.
MAX_PARSE_BYTES = 1_000_000
# Kinds that hold methods: a function directly inside one of these is a method.
_CONTAINERS = frozenset({"class", "interface", "impl", "object", "type", "extension", "mixin"})
# Members are listed where they are defined but never become a chunk's scope; inside a
# function they are local variables and are dropped.
_MEMBERS = frozenset({"constant", "variable", "property", "field", "enum_variant"})
_CALLABLE = frozenset({"function", "method", "macro"})

# A line holding only a macro call (`NS_ASSUME_NONNULL_BEGIN`, `Q_OBJECT`) derails C-family
# parsers; it is blanked (same length, so offsets hold) before parsing.
_MACRO_LINE = re.compile(rb"^[ \t]*[A-Z][A-Z0-9_]{2,}(?:\([^()\n]*\))?[ \t]*$", re.MULTILINE)
_C_FAMILY = frozenset({"c", "cpp", "objc"})
_AROUND = frozenset({"function_definition", "declaration", "field_declaration"})


@dataclass(frozen=True)
class Symbol:
    """A definition: its name, kind and 0-based line range, and its enclosing definition."""

    name: str
    kind: str
    line: int
    end: int
    parent: int  # index of the enclosing symbol, or -1
    owner_type: str = ""  # Go receiver type, Lua table: part of the scope, not a parent
    start_byte: int = 0
    end_byte: int = 0


@dataclass(frozen=True)
class ParsedSource:
    """The tree a table was read from, kept so symbol extraction need not parse again."""

    tree: tree_sitter.Tree
    data: bytes  # the bytes parsed (C-family macro lines blanked)
    grammar: Grammar
    # (name node, kind) of each `@reference.*` match, when references were asked for
    references: list[tuple[tree_sitter.Node, str]]


@dataclass
class SymbolTable:
    """A file's definitions in source order, the innermost one around each line."""

    symbols: list[Symbol]
    owner: list[int]
    starts: list[int]  # first line of each symbol, ascending
    source: ParsedSource | None = None

    @cached_property
    def scopes(self) -> list[list[str]]:
        """Each definition's scope, names from the outermost definition down to it
        (`["Session", "request"]`; a Go receiver type before its method), built once per
        file from its parent's: a parent always comes before its children."""
        found: list[list[str]] = []
        for symbol in self.symbols:
            own = [symbol.owner_type, symbol.name] if symbol.owner_type else [symbol.name]
            found.append([*found[symbol.parent], *own] if symbol.parent != -1 else own)
        return found

    def scope(self, index: int) -> list[str]:
        """Names from the outermost definition down to `index`: `["Session", "request"]`."""
        return list(self.scopes[index])

    def starting_in(self, first: int, last: int) -> list[int]:
        """Indices of the definitions whose first line lies in first..last."""
        starts = self.starts
        return list(range(bisect_left(starts, first), bisect_left(starts, last + 1)))

    def metadata(self, first: int, last: int, lead: int) -> dict[str, Any]:
        """`scope`, `kind` and `defines` for lines first..last; `lead` = first code line."""
        defined = self.starting_in(first, last)
        around = self.owner[first] if first < len(self.owner) else -1
        scopes = [i for i in defined if self.symbols[i].kind not in _MEMBERS]
        heading = next((i for i in scopes if self.symbols[i].line <= lead), None)
        innermost = heading if heading is not None else around
        if innermost == -1 and scopes:
            innermost = scopes[0]
        result: dict[str, Any] = {}
        if innermost != -1:
            result["scope"] = self.scope(innermost)
            result["kind"] = self.symbols[innermost].kind
        defines: dict[tuple[str, str, int], dict[str, Any]] = {}
        for symbol in (self.symbols[i] for i in defined):
            entry = {"name": symbol.name, "kind": symbol.kind, "line": symbol.line + 1}
            # the equations of one function (Haskell) are listed once
            defines.setdefault((symbol.name, symbol.kind, symbol.parent), entry)
        if defines:
            result["defines"] = list(defines.values())
        return result


class SyntaxParser:
    """Parses a file with its language's grammar wheel and lists its definitions."""

    def __init__(self, grammars: Grammars | None = None, max_bytes: int = MAX_PARSE_BYTES) -> None:
        self.grammars = SHARED_GRAMMARS if grammars is None else grammars
        self.max_bytes = max_bytes

    def supports(self, language: str) -> bool:
        """True when `language` has a grammar wheel."""
        return self.grammars.supports(language)

    def symbols(
        self, text: str, language: str, line_count: int, references: bool = False
    ) -> SymbolTable | None:
        """The file's definitions, or None (no grammar, too big, or the parse failed).

        With `references`, the same pass over the tree also collects the reference matches
        (one query with both kinds of patterns costs less than two)."""
        if not self.supports(language):
            return None
        try:
            data = text.encode("utf-8")
            if len(data) > self.max_bytes:
                return None
            if language in _C_FAMILY:
                data = _MACRO_LINE.sub(lambda match: b" " * len(match[0]), data)
            return self._extract(data, language, line_count, references)
        except (UnicodeError, ValueError, RuntimeError, ImportError, AttributeError) as error:
            log.warning(
                "tree-sitter could not read this %s file (%s); using patterns", language, error
            )
            return None

    def _extract(
        self, data: bytes, language: str, line_count: int, references: bool
    ) -> SymbolTable | None:
        grammar = self.grammars.get(language)
        if grammar is None:
            return None
        tree = tree_sitter.Parser(grammar.language).parse(data)
        query = grammar.with_references if references else grammar.query
        found: dict[tuple[int, int], _Row] = {}
        uses: list[tuple[tree_sitter.Node, str]] = []
        for _, captures in tree_sitter.QueryCursor(query).matches(tree.root_node):
            names = captures.get("name")
            kinds = [key for key in captures if key.startswith("definition.")]
            if names and not kinds:
                used = next((key for key in captures if key.startswith("reference.")), None)
                if used is not None:
                    uses.append((names[0], used.removeprefix("reference.")))
                continue
            if not names:
                continue
            node = _whole(captures[kinds[0]][0])
            key = (node.start_byte, -node.end_byte)
            receiver = _text(captures["receiver"][0]) if "receiver" in captures else ""
            if key not in found or (receiver and not found[key][-1]):
                kind = kinds[0].removeprefix("definition.")
                row, end = node.start_point.row, node.end_point.row
                found[key] = (
                    node.start_byte,
                    node.end_byte,
                    _text(names[0]),
                    kind,
                    row,
                    end,
                    receiver,
                )
        table = _nest([found[key] for key in sorted(found)], line_count)
        table.source = ParsedSource(tree, data, grammar, uses)
        return table


# start byte, end byte, name, kind, first line, last line, receiver type
_Row = tuple[int, int, str, str, int, int, str]


def _whole(node: tree_sitter.Node) -> tree_sitter.Node:
    """C-family tags mark a function's declarator; the definition is the node around it."""
    while node.type.endswith("declarator") and node.parent is not None:
        if not node.parent.type.endswith("declarator") and node.parent.type not in _AROUND:
            break
        node = node.parent
    return node


def _text(node: tree_sitter.Node) -> str:
    return " ".join((node.text or b"").decode("utf-8", "replace").split())


def _nest(rows: list[_Row], line_count: int) -> SymbolTable:
    """Symbols with their parents, from definitions sorted by (start byte, -end byte)."""
    symbols: list[Symbol] = []
    ends: list[int] = []  # end byte of each symbol on the stack
    stack: list[int] = []
    for start, end_byte, name, kind, line, end, receiver in rows:
        while stack and ends[-1] <= start:
            stack.pop()
            ends.pop()
        parent = stack[-1] if stack else -1
        parent_kind = symbols[parent].kind if parent != -1 else ""
        if kind in _MEMBERS and parent_kind in _CALLABLE:
            continue
        if kind == "function" and parent_kind in _CONTAINERS:
            kind = "method"
        symbols.append(Symbol(name, kind, line, end, parent, receiver, start, end_byte))
        if kind in _MEMBERS:
            continue
        stack.append(len(symbols) - 1)
        ends.append(end_byte)
    return SymbolTable(symbols, _owners(symbols, line_count), [s.line for s in symbols])


def _owners(symbols: list[Symbol], line_count: int) -> list[int]:
    """The innermost non-member definition around each line, in one sweep over the lines."""
    owner = [-1] * line_count
    stack: list[int] = []
    following = 0
    for row in range(line_count):
        while following < len(symbols) and symbols[following].line <= row:
            while stack and symbols[stack[-1]].end < symbols[following].line:
                stack.pop()
            if symbols[following].kind not in _MEMBERS:
                stack.append(following)
            following += 1
        while stack and symbols[stack[-1]].end < row:
            stack.pop()
        owner[row] = stack[-1] if stack else -1
    return owner
