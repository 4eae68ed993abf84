"""Where definitions start and end in source code, found by per-language line patterns."""

import itertools
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

from ragspace.chunking.lines import LINE, PARAGRAPH, LineTable

_MODS = (
    r"(?:(?:public|private|protected|internal|static|final|abstract|sealed|partial|open|"
    r"override|virtual|async|readonly|unsafe|extern|synchronized|native|inline|data|inner|"
    r"companion|annotation|enum|fileprivate|export|default|declare|suspend|operator|infix|"
    r"tailrec|mutating|strictfp|new|const|@\w+(?:\([^)\n]*\))?)[ \t]+)*"
)
_NOT_STATEMENT = r"(?!(?:return|throw|new|else|if|for|while|switch|case|catch|delete|do|goto)\b)"
# a definition line has no `;` before its body opens (calls and declarations do)
_SIGNATURE_END = r"[^;{\n]*(?:\{.*)?$"
_TYPES = r"(?P<kind>class|interface|enum|record|struct|object|trait|protocol|extension|@interface)"

_JAVA_LIKE_TYPE = rf"^[ \t]*{_MODS}{_TYPES}[ \t]+(?P<name>\w+)"
_JAVA_LIKE_METHOD = (
    rf"^[ \t]+{_NOT_STATEMENT}{_MODS}(?:<[^>\n]+>[ \t]+)?[\w<>\[\]?,.]+(?:<[^>\n]*>)?[ \t]+"
    rf"{_NOT_STATEMENT}(?P<name>\w+)[ \t]*\({_SIGNATURE_END}"
)
_C_TYPE = (
    r"^[ \t]*(?:template[ \t]*<[^>\n]*>[ \t]*)?(?P<kind>class|struct|union|enum(?:[ \t]+class)?)"
    r"[ \t]+(?:\w+[ \t]+)*?(?P<name>\w+)[ \t]*(?:final[ \t]*)?(?::[^;{\n]*)?\{?[ \t]*$"
)
_NOT_COMMENT = r"(?![ \t]*(?:\*|//|/\*))"
_C_FUNCTION = (
    # tokens and separators share no character, so a long line cannot backtrack badly
    rf"^{_NOT_COMMENT}[ \t]*{_NOT_STATEMENT}(?:[\w:<>,~]+(?:[ \t]*[*&]+[ \t]*|[ \t]+))+?"
    r"(?P<name>(?:[\w:]*::)?operator[^(\n]*|~?[\w:]+)[ \t]*\(" + _SIGNATURE_END
)
_C_CONSTRUCTOR = r"^(?P<name>\w+::~?\w+)[ \t]*\(" + _SIGNATURE_END

# (pattern, kind when the pattern has no `kind` group)
_PATTERNS: dict[str, list[tuple[str, str]]] = {
    "python": [(r"^[ \t]*(?:async[ \t]+)?(?P<kind>def|class)[ \t]+(?P<name>\w+)", "")],
    "js": [
        (
            r"^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?"
            r"(?:async[ \t]+)?(?P<kind>function\*?|class|interface|enum|namespace"
            r"|type(?=[ \t]+[\w$]+[ \t]*[=<]))[ \t]+(?P<name>[\w$]+)",
            "",
        ),
        (
            r"^[ \t]*(?:export[ \t]+)?(?:const|let|var)[ \t]+(?P<name>[\w$]+)[ \t]*(?::[^=\n]+)?="
            r"[ \t]*(?:async[ \t]+)?(?:function\b|\([^)\n]*\)[ \t]*(?::[^=\n]+)?=>|[\w$]+[ \t]*=>)",
            "function",
        ),
        (
            r"^[ \t]+(?:(?:public|private|protected|static|readonly|async|override|get|set)[ \t]+)*"
            r"(?!(?:if|for|while|switch|catch|return|function)\b)(?P<name>[\w$]+)[ \t]*"
            r"(?:<[^>\n]*>)?\([^)\n]*\)[ \t]*(?::[^{\n]+)?\{[ \t]*$",
            "method",
        ),
    ],
    "go": [
        (r"^func[ \t]+(?:\([^)\n]*\)[ \t]*)?(?P<name>\w+)", "func"),
        (r"^type[ \t]+(?P<name>\w+)[ \t]+(?:struct|interface)\b", "type"),
    ],
    "rust": [
        (
            r"^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?"
            r"(?:(?:async|const|unsafe|extern[ \t]+\"[^\"\n]*\")[ \t]+)*"
            r"(?P<kind>fn|struct|enum|trait|mod|union|macro_rules!)[ \t]*(?P<name>\w+)",
            "",
        ),
        (
            r"^[ \t]*(?:unsafe[ \t]+)?(?P<kind>impl)(?:<[^{\n]*?>)?[ \t]+(?P<name>[^{\n]+?)"
            r"[ \t]*(?:where\b[^{\n]*)?\{?[ \t]*$",
            "",
        ),
    ],
    "java": [(_JAVA_LIKE_TYPE, ""), (_JAVA_LIKE_METHOD, "method")],
    "csharp": [(_JAVA_LIKE_TYPE, ""), (_JAVA_LIKE_METHOD, "method")],
    "scala": [
        (_JAVA_LIKE_TYPE, ""),
        (r"^[ \t]*" + _MODS + r"(?P<kind>def)[ \t]+(?P<name>\w+)", ""),
    ],
    "kotlin": [
        (_JAVA_LIKE_TYPE, ""),
        (
            rf"^[ \t]*{_MODS}(?P<kind>fun)[ \t]+(?:<[^>\n]*>[ \t]*)?(?:[\w.<>]+\.)?(?P<name>\w+)",
            "",
        ),
    ],
    "swift": [
        (_JAVA_LIKE_TYPE, ""),
        (rf"^[ \t]*{_MODS}(?:class[ \t]+)?(?P<kind>func|init|deinit)\b[ \t]*(?P<name>\w*)", ""),
    ],
    "c": [(_C_TYPE, ""), (_C_FUNCTION, "function"), (_C_CONSTRUCTOR, "function")],
    "cpp": [(_C_TYPE, ""), (_C_FUNCTION, "function"), (_C_CONSTRUCTOR, "function")],
    "ruby": [(r"^[ \t]*(?P<kind>def|class|module)[ \t]+(?P<name>[\w:.]+[?!=]?)", "")],
    "php": [
        (
            r"^[ \t]*(?:(?:abstract|final|public|private|protected|static|readonly)[ \t]+)*"
            r"(?P<kind>function|class|interface|trait|enum)[ \t]+(?P<name>\w+)",
            "",
        )
    ],
    "shell": [
        (r"^[ \t]*function[ \t]+(?P<name>[\w:.-]+)", "function"),
        (r"^[ \t]*(?P<name>[\w:.-]+)[ \t]*\(\)", "function"),
    ],
    "sql": [
        (
            r"(?i)^[ \t]*create[ \t]+(?:or[ \t]+replace[ \t]+)?(?:(?:temp|temporary|unique|"
            r"materialized|unlogged)[ \t]+)*(?P<kind>table|view|function|procedure|index|trigger|"
            r"type|schema|sequence|extension)[ \t]+(?:if[ \t]+not[ \t]+exists[ \t]+)?"
            r"(?P<name>[\w.\"`]+)",
            "",
        )
    ],
    "yaml": [(r"^(?P<name>[\w.-][^:#\n]*?):(?:[ \t]|\r?$)", "")],
    "toml": [(r"^[ \t]*\[{1,2}(?P<name>[^\]\n]+)\]{1,2}", "")],
    "ini": [(r"^[ \t]*\[(?P<name>[^\]\n]+)\]", "")],
    "json": [(r"^[ \t]*\"(?P<name>[^\"\n]+)\"[ \t]*:[ \t]*[\[{]", "")],
    "lua": [(r"^[ \t]*(?:local[ \t]+)?(?P<kind>function)[ \t]+(?P<name>[\w.:]+)", "")],
    "elixir": [(r"^[ \t]*(?P<kind>defmodule|defp?|defmacro)[ \t]+(?P<name>[\w.?!]+)", "")],
    "perl": [(r"^[ \t]*(?P<kind>sub|package)[ \t]+(?P<name>[\w:]+)", "")],
    "erlang": [(r"^(?P<name>[a-z]\w*)\((?:[^\n]*->|[^\n]*,[ \t]*$|[ \t]*$)", "function")],
    "clojure": [
        (
            r"^\((?P<kind>defn-?|defmacro|defmulti|defmethod|defprotocol|defrecord|deftype|"
            r"definterface|def|ns)[ \t]+(?:\^\S+[ \t]+)?(?P<name>[^\s()\[\]]+)",
            "",
        )
    ],
    "nim": [
        (
            r"^[ \t]*(?P<kind>proc|func|method|iterator|template|macro|converter)[ \t]+"
            r"(?P<name>`[^`\n]+`|\w+)",
            "",
        ),
        (r"^[ \t]+(?P<name>\w+)\*?(?:\[[^\]\n]*\])?[ \t]*=[ \t]*(?:ref[ \t]+)?object\b", "type"),
    ],
    "dart": [
        (
            r"^[ \t]*(?:(?:abstract|base|final|sealed|interface)[ \t]+)*"
            r"(?P<kind>class|mixin|extension|enum|typedef)[ \t]+(?P<name>\w+)",
            "",
        ),
        (_JAVA_LIKE_METHOD, "method"),
        (
            rf"^{_NOT_STATEMENT}(?:[\w<>?,]+[ \t]+)+(?P<name>\w+)[ \t]*(?:<[^>\n]*>)?\("
            + _SIGNATURE_END,
            "function",
        ),
    ],
    "matlab": [
        (
            r"^[ \t]*(?P<kind>function)[ \t]+(?:(?:\[[^\]\n]*\]|\w+)[ \t]*=[ \t]*)?(?P<name>\w+)",
            "",
        )
    ],
}
_PATTERNS["ts"] = _PATTERNS["js"]
_PATTERNS["objc"] = [
    (r"^@(?P<kind>interface|implementation|protocol)[ \t]+(?P<name>\w+(?:[ \t]*\(\w*\))?)", ""),
    (r"^[-+][ \t]*\([^)\n]*\)[ \t]*(?P<name>\w+)", "method"),
    *_PATTERNS["c"],
]
_COMPILED = {
    language: [(re.compile(pattern, re.MULTILINE), kind) for pattern, kind in patterns]
    for language, patterns in _PATTERNS.items()
}
_LONGEST_DEFINITION_LINE = 400
_FLAT = frozenset({"toml", "ini", "sql"})  # sections end only where the next one starts
_CLOSERS = ("}", ")", "]", "{", "end", "fi", "done", "esac")
_LABELS = re.compile(r"(?:public|private|protected|signals|slots)\s*:")
COMMENT_STARTS = ("#", "//", "/*", "*", "--", "%", "@", "'''", '"""', ";", "[", "template")


@dataclass(frozen=True)
class Definition:
    """A class, function, method, impl block... found in a file."""

    line: int
    depth: int
    label: str
    parent: int  # index of the enclosing definition, or -1
    attached: int  # first line of its leading comments / decorators


@dataclass
class Outline:
    """Definitions of a file, the innermost one around each line, and boundary levels."""

    definitions: list[Definition]
    owner: list[int]
    levels: list[int]

    def path(self, index: int) -> str:
        """`class Foo / def bar` for definition `index`."""
        labels = []
        while index != -1:
            labels.append(self.definitions[index].label)
            index = self.definitions[index].parent
        return " / ".join(reversed(labels))


# Boundary levels before a definition, by nesting depth (top level is strongest).
DEFINITION_LEVELS = (5, 4, 3)


def has_patterns(language: str) -> bool:
    """True when line patterns recognise `language`'s definitions."""
    return language in _COMPILED


def find_definitions(table: LineTable, language: str) -> dict[int, str]:
    """0-based line -> label (`def foo`) of each definition line the patterns recognise."""
    found: dict[int, str] = {}
    compiled = _COMPILED.get(language, [])
    if not compiled:
        return found
    text, line_of = _probe(table)
    for pattern, default_kind in compiled:
        for match in pattern.finditer(text):
            number = line_of(match.start())
            if number in found:
                continue
            groups = match.groupdict()
            kind = (groups.get("kind") or default_kind).strip()
            name = " ".join((groups.get("name") or "").split())
            label = f"{kind.lower() if language == 'sql' else kind} {name}".strip()
            if label:
                found[number] = label
    return found


def _probe(table: LineTable) -> tuple[str, Callable[[int], int]]:
    """The text with over-long lines (minified code, data) emptied, so patterns stay fast."""
    if max(map(len, table.lines)) <= _LONGEST_DEFINITION_LINE:
        return table.text, table.line_of
    lines = [line if len(line) <= _LONGEST_DEFINITION_LINE else "" for line in table.lines]
    starts = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    return "\n".join(lines), lambda offset: bisect_right(starts, offset) - 1


def outline(table: LineTable, language: str, labels: dict[int, str] | None = None) -> Outline:
    """Definitions with their nesting, each line's owner, and a boundary level per line.

    `labels` (line -> `kind name`) stands in for the line patterns when given.
    """
    labels = find_definitions(table, language) if labels is None else labels
    levels = [LINE] * len(table)
    for number in range(1, len(table)):
        if table.blank[number - 1] and not table.blank[number]:
            levels[number] = PARAGRAPH
    definitions: list[Definition] = []
    owner = [-1] * len(table)
    stack: list[tuple[int, int]] = []  # (indent, definition index)
    flat = language in _FLAT
    waiting: list[int] = []  # blank and comment lines: their owner is known at the next code
    for number, line in enumerate(table.lines):
        stripped = line.lstrip()
        is_definition = number in labels
        if table.blank[number] or (not is_definition and stripped.startswith(COMMENT_STARTS)):
            waiting.append(number)
            continue
        indent = len(line) - len(stripped)
        if is_definition or not flat:
            # a definition ends right after its last code line, before blanks and comments
            end = waiting[0] if waiting else number
            _close(stack, indent, stripped, is_definition, flat, levels, end, definitions)
        for waiting_line in waiting:
            owner[waiting_line] = stack[-1][1] if stack else -1
        waiting.clear()
        if is_definition:
            parent = stack[-1][1] if stack else -1
            depth = len(stack)
            attached = _attached_start(table, number)
            definitions.append(Definition(number, depth, labels[number], parent, attached))
            level = DEFINITION_LEVELS[min(depth, len(DEFINITION_LEVELS) - 1)]
            levels[attached] = max(levels[attached], level)
            # if comments plus definition are too big, part the comments first
            levels[number] = max(levels[number], level - 1)
            stack.append((indent, len(definitions) - 1))
        owner[number] = stack[-1][1] if stack else -1
    for waiting_line in waiting:
        owner[waiting_line] = -1
    return Outline(definitions, owner, levels)


def _close(
    stack: list[tuple[int, int]],
    indent: int,
    stripped: str,
    is_definition: bool,
    flat: bool,
    levels: list[int],
    number: int,
    definitions: list[Definition],
) -> None:
    """Pop definitions that end before this line; their end is a boundary too."""
    if not is_definition and _LABELS.match(stripped):
        return
    closing = not is_definition and stripped.startswith(_CLOSERS)
    while stack:
        top_indent, top = stack[-1]
        if not flat and (indent > top_indent or (indent == top_indent and closing)):
            return
        stack.pop()
        depth = definitions[top].depth
        level = DEFINITION_LEVELS[min(depth, len(DEFINITION_LEVELS) - 1)]
        levels[number] = max(levels[number], level)
        if flat:
            return


def _attached_start(table: LineTable, number: int) -> int:
    """The definition's first line, counting comments and decorators right above it."""
    first = number
    while first > 0 and not table.blank[first - 1]:
        previous = table.lines[first - 1].lstrip()
        if not previous.startswith(COMMENT_STARTS):
            break
        first -= 1
    return first
