"""A file's symbol table rows from the parse the chunker already made: no second parse.

Definitions come from the chunker's `SymbolTable` (the `@definition.*` query); each gets its
qualified name from the scope chain, its signature (the definition's text up to its body)
and the first line of its docstring (Python) or of the comment block just above it.
References come from the same pass over the tree (the definition query with the grammars'
`@reference.*` patterns and ours, `reference_queries.py`, enabled), each placed in its
innermost definition.
"""

import re

import tree_sitter

from ragspace.chunking.syntax import SymbolTable
from ragspace.symbols.records import (
    DOC_CHARS,
    MAX_DEFINITIONS_PER_DOCUMENT,
    MAX_REFERENCES_PER_DOCUMENT,
    SIGNATURE_CHARS,
    DefinitionDraft,
    FileSymbols,
    ReferenceDraft,
)

_BODY_FIELDS = ("body", "declaration_list", "members")
_COMMENT_MARKS = re.compile(r"^\s*(?:/\*+|\*+/?|//+!?|#+|--+|;+|\(\*+|\"\"\"|''')\s?")
_STRING_MARKS = re.compile(r"^[rRbBuUfF]*(\"\"\"|'''|\"|')|(\"\"\"|'''|\"|')$")


def extract_symbols(table: SymbolTable) -> FileSymbols:
    """Definitions and references of a parsed file, each list capped per document."""
    source = table.source
    if source is None:
        return FileSymbols()
    root = source.tree.root_node
    depths = _depths(table)
    definitions = [
        _definition(table, index, depths[index], root, source.data)
        for index in range(min(len(table.symbols), MAX_DEFINITIONS_PER_DOCUMENT))
    ]
    references = _references(table, source.references)
    truncated = len(table.symbols) > MAX_DEFINITIONS_PER_DOCUMENT or (
        len(references) > MAX_REFERENCES_PER_DOCUMENT
    )
    return FileSymbols(definitions, references[:MAX_REFERENCES_PER_DOCUMENT], truncated)


def _depths(table: SymbolTable) -> list[int]:
    """How many definitions enclose each one, plus one for a receiver type (a Go method
    sits one level below its type), built from its parent's: a parent always comes before
    its children."""
    levels: list[int] = []
    for symbol in table.symbols:
        levels.append(levels[symbol.parent] + 1 if symbol.parent != -1 else 0)
    return [
        level + (1 if symbol.owner_type else 0)
        for level, symbol in zip(levels, table.symbols, strict=True)
    ]


def _definition(
    table: SymbolTable, index: int, depth: int, root: tree_sitter.Node, data: bytes
) -> DefinitionDraft:
    symbol = table.symbols[index]
    node = root.descendant_for_byte_range(symbol.start_byte, symbol.end_byte)
    end = symbol.end
    signature = doc = ""
    if node is not None:
        end = _last_code_row(node)
        signature = _signature(node, data)
        doc = _doc(node)
    return DefinitionDraft(
        name=symbol.name,
        qualified_name=".".join(table.scopes[index]),
        kind=symbol.kind,
        start_line=symbol.line + 1,
        end_line=max(symbol.line, end) + 1,
        signature=signature,
        doc=doc,
        depth=depth,
    )


def _last_code_row(node: tree_sitter.Node) -> int:
    """The last line of the node's code: trailing comments inside its block do not count."""
    start = node.start_point.row
    while node.child_count:
        last = node.child(node.child_count - 1)
        while last is not None and last.is_extra:
            last = last.prev_sibling
        if last is None:
            break
        node = last
    point = node.end_point
    # a node that ends at a line break (a C macro, a Ruby `end\n`) ends on the line before
    return point.row - 1 if point.column == 0 and point.row > start else point.row


def _signature(node: tree_sitter.Node, data: bytes) -> str:
    """The definition's text up to its body, on one line: `def get(self, url, **kwargs)`."""
    body = next(
        (b for b in (node.child_by_field_name(f) for f in _BODY_FIELDS) if b is not None), None
    )
    stop = body.start_byte if body is not None and body.start_byte > node.start_byte else None
    if stop is None:  # no body field: the first line
        newline = data.find(b"\n", node.start_byte, node.end_byte)
        stop = node.end_byte if newline == -1 else newline
    text = data[node.start_byte : min(stop, node.start_byte + 4 * SIGNATURE_CHARS)]
    flat = " ".join(text.decode("utf-8", "replace").split()).rstrip(" :{=")
    return flat if len(flat) <= SIGNATURE_CHARS else flat[: SIGNATURE_CHARS - 1] + "…"


def _doc(node: tree_sitter.Node) -> str:
    """The first line of a Python docstring, else of the comments right above the node."""
    body = node.child_by_field_name("body")
    if body is not None and body.named_child_count:
        first = body.named_children[0]
        if first.type == "expression_statement" and first.named_child_count:
            string = first.named_children[0]
            if string.type == "string":
                return _first_line(_STRING_MARKS.sub("", _node_text(string)))
    lines: list[str] = []
    above, row = node.prev_named_sibling, node.start_point.row
    while above is not None and "comment" in above.type and above.end_point.row >= row - 1:
        lines.insert(0, _node_text(above))
        row = above.start_point.row
        above = above.prev_named_sibling
    return _first_line("\n".join(_COMMENT_MARKS.sub("", line) for line in lines))


def _first_line(text: str) -> str:
    for line in text.splitlines():
        stripped = _COMMENT_MARKS.sub("", line).strip()
        if stripped:
            return stripped[:DOC_CHARS]
    return ""


def _node_text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _references(
    table: SymbolTable, matches: list[tuple[tree_sitter.Node, str]]
) -> list[ReferenceDraft]:
    """Every use the parse's reference patterns matched, once per (name, line, kind), in
    file order, each placed in its innermost definition (by that definition's first line)."""
    defined = {(s.name, s.line) for s in table.symbols}
    seen: set[tuple[str, int, str]] = set()
    found: list[ReferenceDraft] = []
    owners, symbols = table.owner, table.symbols
    for node, kind in matches:
        name, row = _node_text(node), node.start_point[0]
        use = (name, row, kind)
        if use in seen or (name, row) in defined or not name.strip():
            continue
        seen.add(use)
        owner = owners[row] if row < len(owners) else -1
        enclosing_line = symbols[owner].line + 1 if owner != -1 else 0
        found.append(ReferenceDraft(name[:200], kind, row + 1, enclosing_line))
        if len(found) > MAX_REFERENCES_PER_DOCUMENT:
            break
    found.sort(key=lambda r: r.line)
    return found
