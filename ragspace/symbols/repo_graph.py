"""The repository map as a picture's data: the most important files, their top definitions,
and how strongly the symbol table links each pair (one uses a name the other defines)."""

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ragspace.symbols.records import MapEntry
from ragspace.symbols.repo_map import importance, major

FILES_SHOWN = 8  # around one ellipse without overlapping (ragspace_ui/repo_map_view.py)
DEFINITIONS_PER_FILE = 4


@dataclass(frozen=True)
class MapDefinition:
    """A definition shown in a file's box, with its lines and importance."""

    name: str
    qualified_name: str
    kind: str
    start_line: int
    end_line: int
    importance: float


@dataclass(frozen=True)
class MapFile:
    """A file of the map: its importance (its definitions' summed) and its top definitions."""

    path: str
    document_id: int
    importance: float
    definitions: list[MapDefinition]


@dataclass(frozen=True)
class MapLink:
    """Two files of the map (indexes into `RepoGraph.files`) and how strongly they link."""

    first: int
    second: int
    weight: float


@dataclass(frozen=True)
class RepoGraph:
    """The files a map shows, the links between them, and how many files have definitions."""

    docset: str
    files: list[MapFile]
    links: list[MapLink]
    files_total: int


def top_files(
    entries: Sequence[MapEntry],
    files: int = FILES_SHOWN,
    per_file: int = DEFINITIONS_PER_FILE,
) -> tuple[list[MapFile], int]:
    """The `files` most important files, each with its `per_file` most important definitions,
    and how many files have definitions at all. A file's importance sums that of the names it
    defines, each name once: three classes of one file defining `pop` (which every `.pop(`
    call on a dictionary seems to use) do not make it three times as important."""
    # constructors and other dunders say little of what a file is for
    kept = [e for e in major(entries) if not (e.name.startswith("__") and e.name.endswith("__"))]
    scores = importance(kept)
    by_path: dict[str, list[int]] = defaultdict(list)
    for index, entry in enumerate(kept):
        by_path[entry.path].append(index)
    best: dict[str, dict[str, int]] = defaultdict(dict)  # path -> name -> its best definition
    for path, members in by_path.items():
        for i in sorted(members, key=lambda i: (-scores[i], kept[i].depth, i)):
            best[path].setdefault(kept[i].name, i)
    totals = {path: sum(scores[i] for i in names.values()) for path, names in best.items()}
    chosen = sorted(totals, key=lambda path: (-totals[path], path))[:files]
    shown: list[MapFile] = []
    for path in chosen:
        members = sorted(best[path].values(), key=lambda i: (-scores[i], kept[i].depth, i))
        definitions = [
            MapDefinition(
                kept[i].name,
                kept[i].qualified_name or kept[i].name,
                kept[i].kind,
                kept[i].start_line,
                max(kept[i].end_line, kept[i].start_line),
                scores[i],
            )
            for i in members[:per_file]
        ]
        shown.append(MapFile(path, kept[members[0]].document_id, totals[path], definitions))
    return shown, len(by_path)


def map_links(files: Sequence[MapFile], links: Mapping[int, Mapping[int, float]]) -> list[MapLink]:
    """The links between the shown files (a document's links from the symbol table), each pair
    once, the strongest first."""
    index = {f.document_id: i for i, f in enumerate(files)}
    found: dict[tuple[int, int], float] = {}
    for document, linked in links.items():
        for other, weight in linked.items():
            if document in index and other in index and document != other:
                pair = (min(index[document], index[other]), max(index[document], index[other]))
                found[pair] = max(found.get(pair, 0.0), weight)
    return sorted(
        (MapLink(a, b, w) for (a, b), w in found.items()),
        key=lambda link: (-link.weight, link.first, link.second),
    )
