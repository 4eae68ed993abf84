"""Which definition a name on screen refers to, as far as the symbol table can tell.

The table matches names, not types: `request` is both a parameter and `Session.request`, `json`
a keyword argument and a method. So a name is a candidate only where the file's parse
recorded a use of it on that line (a call, a base class, a decorator, a type: never a
parameter or a keyword argument), and then it is resolved by its place:

- `self.name` / `cls.name` / `this.name`: the method of the class around the line;
- `Owner.name`: the definition qualified `Owner.name` (a class's method), or the top-level
  `name` of a file named `Owner` (a module's function);
- a bare `name`: a top-level definition in the same file, a method of the class around the
  line (Java, C#), else the DocSet's one top-level definition of that name.

Anything else with definitions of that name (an attribute of an object whose type the table
does not know, a name several files define) is a guess, and says so.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from ragspace.symbols.records import NameTarget, SymbolLocation

SELF_NAMES = frozenset({"self", "cls", "this", "Self", "me"})
# kinds of definition whose members a `self.` use refers to
CONTAINER_KINDS = frozenset(
    {"class", "struct", "interface", "trait", "impl", "object", "enum", "module", "type"}
)
COMPLEX = None  # the receiver is an expression (`f().name`, `x[0].name`): its type is unknown


@dataclass(frozen=True)
class Resolution:
    """The definition a use links to; `certain` False when it is only a guess by name."""

    target: NameTarget
    certain: bool
    candidates: int  # how many definitions of the name were considered


def enclosing_container(outline: Sequence[SymbolLocation], line: int) -> str:
    """The qualified name of the innermost class (struct, impl...) around `line`, or ''."""
    around = [
        d
        for d in outline
        if d.kind in CONTAINER_KINDS and d.start_line <= line <= max(d.end_line, d.start_line)
    ]
    if not around:
        return ""
    return max(around, key=lambda d: (d.start_line, -d.end_line)).qualified_name


def resolve(
    name: str,
    receiver: str | None,
    path: str,
    container: str,
    targets: Sequence[NameTarget],
) -> Resolution | None:
    """The definition `name` refers to where it is used (`receiver`: the identifier before
    its `.`, '' for none, None for an expression), inside `container` of the file `path`."""
    if not targets:
        return None
    members = [t for t in targets if t.depth > 0]
    if receiver is COMPLEX:
        return _guess(members or list(targets), len(targets))
    if receiver in SELF_NAMES:
        own = [t for t in targets if container and t.qualified_name == f"{container}.{name}"]
        return _pick(own, targets, members)
    if receiver:
        qualified = f"{receiver}.{name}"
        owned = [
            t
            for t in targets
            if t.qualified_name == qualified or t.qualified_name.endswith(f".{qualified}")
        ]
        module = [t for t in targets if t.depth == 0 and PurePosixPath(t.path).stem == receiver]
        found = owned if len(owned) == 1 else module if len(module) == 1 else []
        return _pick(found, targets, owned or module or members)
    local = [t for t in targets if t.path == path and t.depth == 0]
    if not local and container:
        local = [t for t in targets if t.path == path and t.qualified_name == f"{container}.{name}"]
    top = [t for t in targets if t.depth == 0]
    return _pick(local or (top if len(top) == 1 else []), targets, top)


def _pick(
    found: Sequence[NameTarget], targets: Sequence[NameTarget], fallback: Sequence[NameTarget]
) -> Resolution:
    if found:
        return Resolution(found[0], True, len(targets))
    return _guess(list(fallback) or list(targets), len(targets))


def _guess(options: list[NameTarget], candidates: int) -> Resolution:
    return Resolution(options[0], False, candidates)
