"""Selection: which of the ranked hits a search returns."""

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
