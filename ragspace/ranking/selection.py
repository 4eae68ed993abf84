"""Selection: which of the ranked hits a search returns."""

from collections.abc import Sequence

from ragspace.models import Hit


def one_per_section(hits: Sequence[Hit]) -> list[Hit]:
    """Drop hits whose prose section already has a better hit.

    A long section is split into several chunks that match the same query alike; they
    would fill the top of the list with one section and push other relevant sections out.
    The passage built for the best chunk shows its neighbours anyway. Code chunks carry
    no section anchor and are all kept.
    """
    seen: set[tuple[int, str]] = set()
    kept: list[Hit] = []
    for hit in hits:
        anchor = hit.metadata.get("anchor")
        if isinstance(anchor, str):
            section = (hit.document_id, anchor)
            if section in seen:
                continue
            seen.add(section)
        kept.append(hit)
    return kept


def spread_files(hits: Sequence[Hit], decay: float) -> list[Hit]:
    """The hits reordered so that each further chunk of a file already listed counts `decay`
    times less (1: no change): the next file's best chunk can pass a file's third."""
    if decay >= 1.0:
        return list(hits)
    listed: dict[int, int] = {}
    placed: list[tuple[float, int, Hit]] = []
    for position, hit in enumerate(hits):  # best first, so earlier chunks of a file count
        seen = listed.get(hit.document_id, 0)
        listed[hit.document_id] = seen + 1
        placed.append((hit.score * decay**seen, position, hit))
    placed.sort(key=lambda item: (-item[0], item[1]))
    return [hit for _score, _position, hit in placed]
