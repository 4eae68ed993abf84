"""Experiment: definitions from tree-sitter syntax trees instead of line patterns.

Not used by the app. It swaps `ragspace.chunking.chunker.outline` for a tree-sitter version so the
same packer can be scored on the code evaluation set (Python, Rust, C, C++, Java only).
Needs: pip install tree-sitter tree-sitter-python tree-sitter-rust tree-sitter-c
tree-sitter-cpp tree-sitter-java

Usage (from the repository root):
    python bench/experiments/treesitter_outline.py --code-sizes 1200
"""

import importlib
import sys
from typing import Any

import tree_sitter

import ragspace.chunking.chunker
from ragspace.chunking.code import DEFINITION_LEVELS, Definition, Outline
from ragspace.chunking.code import outline as pattern_outline
from ragspace.chunking.lines import LINE, PARAGRAPH, LineTable

_GRAMMARS = {
    "python": "tree_sitter_python",
    "rust": "tree_sitter_rust",
    "c": "tree_sitter_cpp",  # the corpus's .h files are C++ headers
    "cpp": "tree_sitter_cpp",
    "java": "tree_sitter_java",
}
_DEFINITIONS = {
    "function_definition": "def",
    "class_definition": "class",
    "function_item": "fn",
    "impl_item": "impl",
    "struct_item": "struct",
    "enum_item": "enum",
    "trait_item": "trait",
    "mod_item": "mod",
    "macro_definition": "macro_rules!",
    "class_specifier": "class",
    "struct_specifier": "struct",
    "class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "record_declaration": "record",
    "method_declaration": "method",
    "constructor_declaration": "method",
}
_ATTACHED = ("comment", "line_comment", "block_comment", "attribute_item", "decorator")
_parsers: dict[str, tree_sitter.Parser] = {}


def _parser(language: str) -> tree_sitter.Parser | None:
    module = _GRAMMARS.get(language)
    if module is None:
        return None
    if language not in _parsers:
        grammar = importlib.import_module(module)
        _parsers[language] = tree_sitter.Parser(tree_sitter.Language(grammar.language()))
    return _parsers[language]


def ts_outline(table: LineTable, language: str) -> Outline:
    """The same Outline as the pattern version, built from a syntax tree when one exists."""
    parser = _parser(language)
    if parser is None:
        return pattern_outline(table, language)
    tree = parser.parse(table.text.encode("utf-8"))
    levels = [LINE] * len(table)
    for number in range(1, len(table)):
        if table.blank[number - 1] and not table.blank[number]:
            levels[number] = PARAGRAPH
    shape = Outline([], [-1] * len(table), levels)
    _walk(tree.root_node, shape, -1, 0)
    return shape


def _walk(node: Any, shape: Outline, parent: int, depth: int) -> None:
    for child in node.children:
        kind = _DEFINITIONS.get(child.type)
        if kind is None or (child.type.endswith("_specifier") and not _has_body(child)):
            _walk(child, shape, parent, depth)
            continue
        line, end = child.start_point[0], child.end_point[0]
        attached = _attached_start(child)
        name = _name(child)
        label = f"{kind} {name.text.decode('utf-8', 'replace') if name else ''}".strip()
        shape.definitions.append(Definition(line, depth, label, parent, attached))
        index = len(shape.definitions) - 1
        level = DEFINITION_LEVELS[min(depth, len(DEFINITION_LEVELS) - 1)]
        shape.levels[attached] = max(shape.levels[attached], level)
        shape.levels[line] = max(shape.levels[line], level - 1)
        if end + 1 < len(shape.levels):
            shape.levels[end + 1] = max(shape.levels[end + 1], level)
        for number in range(line, min(end + 1, len(shape.owner))):
            shape.owner[number] = index
        _walk(child, shape, index, depth + 1)
    shape.definitions.sort(key=lambda d: d.line)


def _name(node: Any) -> Any:
    name = node.child_by_field_name("name")
    if node.type == "impl_item":
        name = node.child_by_field_name("type")
    declarator = node.child_by_field_name("declarator")
    while name is None and declarator is not None:  # C/C++: int Foo::bar(...) {...}
        if declarator.type in (
            "identifier",
            "qualified_identifier",
            "field_identifier",
            "operator_name",
            "destructor_name",
        ):
            return declarator
        declarator = declarator.child_by_field_name("declarator")
    return name


def _has_body(node: Any) -> bool:
    return node.child_by_field_name("body") is not None


def _attached_start(node: Any) -> int:
    first = node.start_point[0]
    sibling = node.prev_sibling
    while sibling is not None and sibling.type in _ATTACHED and sibling.end_point[0] >= first - 1:
        first = sibling.start_point[0]
        sibling = sibling.prev_sibling
    return first


if __name__ == "__main__":
    ragspace.chunking.chunker.outline = ts_outline  # type: ignore[attr-defined]
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    import eval_sweep

    sys.argv += ["--label", "treesitter"]
    eval_sweep.main()
