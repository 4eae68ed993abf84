"""Selection: which of the ranked hits a search returns, in which order."""

from collections.abc import Sequence

from ragspace.models import Hit
from ragspace.text.languages import is_prose

Scored = tuple[float, Hit]  # a hit with its final score, before the score is written in it


def hit_is_prose(hit: Hit) -> bool:
    """The hit is documentation (markdown, rst, text, html), not code or configuration."""
    return is_prose(str(hit.metadata.get("language", "")))


def one_per_section(ranked: Sequence[Scored], limit: int | None = None) -> list[Scored]:
    """Drop hits whose prose section already has a better hit; the first `limit` kept
    (all without).

    A long section is split into several chunks that match the same query alike; they
    would fill the top of the list with one section and push other relevant sections out.
    The passage built for the best chunk shows its neighbours anyway. Code chunks carry
    no section anchor and are all kept.
    """
    seen: set[tuple[int, str]] = set()
    kept: list[Scored] = []
    for score, hit in ranked:
        anchor = hit.metadata.get("anchor")
        if isinstance(anchor, str):
            section = (hit.document_id, anchor)
            if section in seen:
                continue
            seen.add(section)
        kept.append((score, hit))
        if len(kept) == limit:
            break
    return kept


def spread_files(ranked: Sequence[Scored], decay: float) -> list[Scored]:
    """The hits reordered so that each further chunk of a code file already listed counts
    `decay` times less (1: no change): the next file's best chunk can pass a file's third.
    Prose is left alone: one_per_section already spreads it over sections, and a page's
    sections are each an answer of their own. The scores stay; only the order changes."""
    if decay >= 1.0:
        return list(ranked)
    listed: dict[int, int] = {}
    placed: list[tuple[float, int]] = []
    for position, (score, hit) in enumerate(ranked):  # best first: earlier chunks count
        if hit_is_prose(hit):
            placed.append((score, position))
            continue
        seen = listed.get(hit.document_id, 0)
        listed[hit.document_id] = seen + 1
        placed.append((score * decay**seen, position))
    placed.sort(key=lambda item: (-item[0], item[1]))
    return [ranked[position] for _effective, position in placed]
