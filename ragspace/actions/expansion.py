"""Search hits grown to whole sections (docs) or definitions (code): what an agent reads next.

A chunk is cut to the chunk size; an agent usually wants the whole function or the whole
section around it. The chunker records both on every chunk: code chunks carry the
tree-sitter `scope` chain (and `defines` with each definition's first line), prose chunks
their `heading_path`. A hit grows over the neighbouring chunks of its document that share
its scope (inside the same definition) or its heading path (the same section and its
subsections), and the lines are read from the stored text. Hits whose ranges overlap in one
document become one unit, so each is returned once, with every hit it holds.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ragspace.models import ChunkDraft, Hit
from ragspace.store import Store

Unit = Literal["section", "definition"]
UNITS: tuple[Unit, ...] = ("section", "definition")


@dataclass
class ExpandedHit:
    """A whole section or definition around one or more hits (best hit first)."""

    hits: list[Hit]
    start_line: int
    end_line: int
    unit: str  # "section", "definition", or "chunk" when nothing says where it ends
    label: str  # heading path or scope chain
    text: str = ""
    continuation: str | None = field(default=None)  # set when the reading caps cut it

    @property
    def hit(self) -> Hit:
        """The best hit inside."""
        return self.hits[0]


def _same_scope(scope: list[Any]) -> Callable[[ChunkDraft], bool]:
    return lambda c: list(c.metadata.get("scope") or [])[: len(scope)] == scope


def _same_section(heading: str) -> Callable[[ChunkDraft], bool]:
    def inside(chunk: ChunkDraft) -> bool:
        path = str(chunk.metadata.get("heading_path") or "")
        return path == heading or path.startswith(heading + " > ")

    return inside


def span(chunks: Sequence[ChunkDraft], hit: Hit, unit: Unit) -> tuple[int, int, str, str]:
    """(first line, last line, unit, label) of the section or definition around a hit; the
    other unit when the hit's chunk only knows that one, the hit's own lines when neither."""
    scope = list(hit.metadata.get("scope") or [])
    heading = str(hit.metadata.get("heading_path") or "")
    ways = {
        "definition": (_same_scope(scope), " / ".join(map(str, scope))) if scope else None,
        "section": (_same_section(heading), heading) if heading else None,
    }
    chosen = ways[unit] or ways["definition" if unit == "section" else "section"]
    at = next((i for i, c in enumerate(chunks) if c.ordinal == hit.ordinal), None)
    if chosen is None or at is None:
        return hit.start_line, hit.end_line, "chunk", ""
    inside, label = chosen
    first = last = at
    while first > 0 and inside(chunks[first - 1]):
        first -= 1
    while last + 1 < len(chunks) and inside(chunks[last + 1]):
        last += 1
    start = chunks[first].start_line
    if scope and chosen is ways["definition"] and first > 0:
        # a definition that starts inside the chunk before (under its parent's scope)
        defines = chunks[first - 1].metadata.get("defines") or []
        lines = [int(d["line"]) for d in defines if d.get("name") == scope[-1]]
        start = min([start, *[line for line in lines if line < start]])
    end = max(c.end_line for c in chunks[first : last + 1])
    if chosen is ways["definition"]:
        end = _before_next_definition(chunks, last, scope, start, end)
    kind = "definition" if chosen is ways["definition"] else "section"
    return start, end, kind, label


def _before_next_definition(
    chunks: Sequence[ChunkDraft], last: int, scope: list[Any], start: int, end: int
) -> int:
    """The end of a definition whose last chunk also holds the start of the next one: the
    line before it (the next chunk's scope names it; the last chunk's `defines` has its line)."""
    if last + 1 >= len(chunks):
        return end
    following = list(chunks[last + 1].metadata.get("scope") or [])
    common = next(
        (i for i, (a, b) in enumerate(zip(scope, following, strict=False)) if a != b), None
    )
    if common is None:
        common = min(len(scope), len(following))
    if common >= len(following):
        return end
    defines = chunks[last].metadata.get("defines") or []
    lines = [int(d["line"]) for d in defines if d.get("name") == following[common]]
    return min([end, *[line - 1 for line in lines if start < line <= end]])


class HitExpansion:
    """Grows hits to whole sections or definitions, reading their lines from the store."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def expand(self, hits: Sequence[Hit], unit: Unit) -> list[ExpandedHit]:
        """One entry per section or definition, in the order of their best hits."""
        chunks: dict[int, list[ChunkDraft]] = {}
        found: list[ExpandedHit] = []
        for hit in hits:
            if hit.document_id not in chunks:
                chunks[hit.document_id] = self._store.chunks.of_document(hit.document_id)
            start, end, kind, label = span(chunks[hit.document_id], hit, unit)
            same = next(
                (
                    e
                    for e in found
                    if e.hit.document_id == hit.document_id
                    and start <= e.end_line
                    and e.start_line <= end
                ),
                None,
            )
            if same is None:
                found.append(ExpandedHit([hit], start, end, kind, label))
            else:
                same.hits.append(hit)
                same.start_line, same.end_line = (
                    min(start, same.start_line),
                    max(end, same.end_line),
                )
        for entry in found:
            read = self._store.documents.read_lines(
                entry.hit.document_id, entry.start_line, entry.end_line
            )
            if read.end < entry.end_line or read.cut_line:  # the reading caps cut it
                entry.continuation = read.continuation
            entry.text, entry.end_line = read.text, read.end
        return found
