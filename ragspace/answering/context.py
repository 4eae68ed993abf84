"""Context assembly: retrieved chunks -> numbered passages within a character budget."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ragspace.answering.citations import hit_passage
from ragspace.answering.focus import is_prose_metadata
from ragspace.answering.sentences import whole_sentences
from ragspace.models import ChunkDraft, Hit, Passage
from ragspace.store import Store

NEIGHBOURS = 1  # chunks added on each side of a hit when the budget allows
MIN_PASSAGE_CHARS = 200
SENTENCE_REACH = 3  # lines a prose passage may grow by to hold whole sentences


@dataclass
class _Group:
    """Hits of one document whose ordinals touch, to become one passage."""

    best: Hit
    first: int
    last: int
    hits: list[Hit] = field(default_factory=list)


def _groups(hits: Sequence[Hit]) -> list[_Group]:
    """Merge hits of the same document with adjacent or equal ordinals; keep rank order."""
    groups: list[_Group] = []
    for hit in hits:
        for group in groups:
            same = group.best.document_id == hit.document_id
            if same and group.first - 1 <= hit.ordinal <= group.last + 1:
                group.first, group.last = (
                    min(group.first, hit.ordinal),
                    max(group.last, hit.ordinal),
                )
                group.hits.append(hit)
                break
        else:
            groups.append(_Group(best=hit, first=hit.ordinal, last=hit.ordinal, hits=[hit]))
    return groups


class ContextBuilder:
    """Builds passages from hits, with neighbouring chunks, inside a character budget."""

    def __init__(self, store: Store, budget_chars: int) -> None:
        self._store = store
        self._budget = budget_chars

    def passages(self, hits: Sequence[Hit], widen: bool = True) -> list[Passage]:
        """Numbered passages, best first, each exact lines of its document; `widen` adds
        neighbouring chunks (context for a model; a person reading passages wants the match)."""
        passages: list[Passage] = []
        used = 0
        for group in _groups(hits):
            passage = self._passage(group, len(passages) + 1, self._budget - used, widen)
            if passage is None:
                continue
            passages.append(passage)
            used += len(passage.content)
            if used >= self._budget:
                break
        return passages

    def _passage(self, group: _Group, number: int, room: int, widen: bool) -> Passage | None:
        """The group's lines with its neighbours if they fit, else without, else the best chunk."""
        best = group.best
        reach = NEIGHBOURS if widen else 0
        window = self._store.chunks.window(
            best.document_id, max(0, group.first - reach), group.last + reach
        )
        core = [c for c in window if group.first <= c.ordinal <= group.last]
        for chunks in [window, core] if len(window) > len(core) else [core]:
            if not chunks:
                continue
            start, end = min(c.start_line for c in chunks), max(c.end_line for c in chunks)
            if is_prose_metadata(best.metadata):
                start, end, text = self._whole_sentences(best.document_id, start, end)
            else:
                text = self._lines(best.document_id, start, end)
            if text is not None and len(text) <= room:
                return _passage_of(best, number, start, end, text, chunks)
        if room < MIN_PASSAGE_CHARS:
            return None
        # too long (e.g. a minified line): the best chunk only, cut to the room left
        text = best.content[:room]
        return _passage_of(best, number, best.start_line, best.end_line, text, core)

    def _lines(self, document_id: int, start: int, end: int) -> str | None:
        """Lines start..end when they fit the reading caps, else None (never read whole)."""
        shown = self._store.documents.read_lines(document_id, start, end)
        return None if shown.cut_line or shown.end < min(end, shown.total) else shown.text

    def _whole_sentences(
        self, document_id: int, start: int, end: int
    ) -> tuple[int, int, str | None]:
        """Prose lines start..end grown by up to SENTENCE_REACH lines on each side so that
        they neither start nor end inside a sentence (a chunk may be cut mid-sentence): the
        grown range and its text (None past the reading caps), from one read around it."""
        first = max(1, start - SENTENCE_REACH - 1)  # one more line: does the first start one?
        around = self._lines(document_id, first, end + SENTENCE_REACH + 1)
        if around is None:
            return start, end, None
        lines = around.split("\n")
        start, end = whole_sentences(lines, first, start, end, SENTENCE_REACH)
        return start, end, "\n".join(lines[start - first : end - first + 1])


def _passage_of(
    best: Hit, number: int, start: int, end: int, text: str, chunks: Sequence[ChunkDraft]
) -> Passage:
    return hit_passage(best, number).model_copy(
        update={
            "start_line": start,
            "end_line": end,
            "content": text,
            "metadata": _merged_metadata(best.metadata, chunks),
            "focus_line": best.start_line if start <= best.start_line <= end else start,
            "focus_end_line": best.end_line if start <= best.end_line <= end else end,
        }
    )


def _merged_metadata(metadata: dict[str, Any], chunks: Sequence[ChunkDraft]) -> dict[str, Any]:
    """The best chunk's metadata, with page and cell ranges widened to all merged chunks."""
    merged = dict(metadata)
    for unit in ("page", "cell"):
        firsts = [c.metadata[unit] for c in chunks if unit in c.metadata]
        lasts = [
            c.metadata.get(f"{unit}_end", c.metadata[unit]) for c in chunks if unit in c.metadata
        ]
        if firsts:
            merged[unit], merged[f"{unit}_end"] = min(firsts), max(lasts)
    return merged
