"""A repository map: files and their top-level definitions with signatures, the most
important first, cut to a token budget (as aider's repo map, from the symbol table).

A definition's importance is how many other files use its name, shared among the files that
define that name (a reference is matched by name, not resolved: `get` is defined by many
classes, and the thousands of `.get(` calls on dictionaries say little about any one of
them); tests, examples and generated code define names nobody else needs, so theirs count a
tenth, and they do not take a share of the names the code under test defines.
"""

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragspace.symbols.records import MapEntry
from ragspace.text.file_kinds import is_secondary

# Members are listed in the table but say little about a repository's shape.
_MINOR = frozenset({"constant", "variable", "property", "field", "enum_variant"})
SECONDARY_WEIGHT = 0.1  # a test's, example's or generated file's definition


def importance(entries: Sequence[MapEntry]) -> list[float]:
    """Each definition's importance: the other files using its name, over its definers."""
    definers: dict[str, set[str]] = defaultdict(set)
    primary: dict[str, set[str]] = defaultdict(set)
    for entry in entries:
        definers[entry.name].add(entry.path)
        if not is_secondary(entry.path):
            primary[entry.name].add(entry.path)
    scores: list[float] = []
    for entry in entries:
        secondary = is_secondary(entry.path)
        sharing = definers[entry.name] if secondary else primary[entry.name]
        score = entry.referring_files / max(1, len(sharing))
        scores.append(score * SECONDARY_WEIGHT if secondary else score)
    return scores


def ranked(entries: Sequence[MapEntry]) -> list[int]:
    """Indexes of `entries`, the most important first (then the outer, then file order)."""
    scores = importance(entries)
    return sorted(range(len(entries)), key=lambda i: (-scores[i], entries[i].depth, i))


@dataclass(frozen=True)
class RepoMap:
    """The map's text and what it holds of the DocSet."""

    docset: str
    text: str
    tokens: int
    files_shown: int
    files_total: int
    definitions_shown: int
    definitions_total: int

    @property
    def truncated(self) -> bool:
        """True when the budget left definitions out."""
        return self.definitions_shown < self.definitions_total


def build_repo_map(
    docset: str, entries: Sequence[MapEntry], max_tokens: int, count: Callable[[str], int]
) -> RepoMap:
    """The most important definitions that fit `max_tokens`, grouped by file."""
    kept = major(entries)
    order = ranked(kept)
    containers = _containers(kept)
    # the largest prefix of the ranking whose rendering fits (tokens grow with the prefix)
    low, high = 0, len(order)
    while low < high:
        middle = (low + high + 1) // 2
        if count(_render(kept, order[:middle], containers)) <= max_tokens:
            low = middle
        else:
            high = middle - 1
    text = _render(kept, order[:low], containers)
    return RepoMap(
        docset=docset,
        text=text,
        tokens=count(text) if text else 0,
        files_shown=len({kept[i].path for i in order[:low]}),
        files_total=len({e.path for e in kept}),
        definitions_shown=low,
        definitions_total=len(kept),
    )


def major(entries: Sequence[MapEntry]) -> list[MapEntry]:
    """The definitions a map shows: not constants, variables, fields and the like."""
    return [e for e in entries if e.kind not in _MINOR]


def _containers(entries: Sequence[MapEntry]) -> list[int]:
    """For each entry, the top-level definition of its file just before it (-1: none)."""
    found: list[int] = []
    current, path = -1, ""
    for index, entry in enumerate(entries):
        if entry.path != path:
            current, path = -1, entry.path
        found.append(current if entry.depth > 0 else -1)
        if entry.depth == 0:
            current = index
    return found


def _render(entries: Sequence[MapEntry], chosen: Sequence[int], containers: list[int]) -> str:
    """`path` then one indented `line: signature` per definition, files by their best rank."""
    shown = set(chosen) | {containers[i] for i in chosen if containers[i] != -1}
    files: dict[str, list[int]] = {}
    for index in chosen:  # rank order: a file's first appearance is its best definition
        files.setdefault(entries[index].path, [])
    for index in sorted(shown):
        files[entries[index].path].append(index)
    lines: list[str] = []
    for path, members in files.items():
        lines.append(f"{path}:")
        for index in members:
            entry = entries[index]
            label = entry.signature or f"{entry.kind} {entry.name}"
            lines.append(f"{'  ' * (entry.depth + 1)}{entry.start_line}: {label}")
    return "\n".join(lines)
