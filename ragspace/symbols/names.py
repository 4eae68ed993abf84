"""A symbol name as people write it (`Session.request`, `ns::Type`, `url_for()`) and which
stored definitions it names."""

import re

_SEPARATORS = re.compile(r"::|->|#|/|\\")
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")


def normalised(name: str) -> str:
    """`Foo::bar()` -> `Foo.bar`: one separator, no call parentheses, quotes or spaces."""
    cleaned = name.strip().strip("`'\"").removesuffix("()").strip()
    return _SEPARATORS.sub(".", cleaned).strip(".")


def is_symbol_name(name: str) -> bool:
    """True when `name` (normalised) is an identifier, possibly dotted."""
    return bool(_IDENTIFIER.fullmatch(normalised(name)))


def last_part(name: str) -> str:
    """The name a definition is stored under: the last part of a dotted name."""
    return normalised(name).rsplit(".", 1)[-1]


def names_it(query: str, qualified_name: str, path: str) -> bool:
    """Whether a dotted `query` names this definition: its qualified name ends the query
    (`helpers.url_for` for `url_for` in `helpers.py`) or the query ends its qualified name
    (`request` for `Session.request`); leading parts must then appear in the path."""
    wanted = normalised(query)
    if "." not in wanted:
        return True
    if qualified_name == wanted or qualified_name.endswith("." + wanted):
        return True
    if not wanted.endswith("." + qualified_name):
        return False
    leading = wanted[: -len(qualified_name) - 1].split(".")
    folders = re.split(r"[/.]", path.lower())
    return all(part.lower() in folders for part in leading)
