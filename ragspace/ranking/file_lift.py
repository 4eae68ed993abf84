"""How a file's own evidence (a score per document) lifts its candidate chunks: every chunk
of a page, only the best chunk of a code file when the options ask for it."""

from collections.abc import Mapping

from ragspace.ranking.offer import Offer


def lift_documents(
    offer: Offer,
    scores: dict[int, float],
    per_document: Mapping[int, float],
    weight: float,
    best_only: bool,
) -> None:
    """Every chunk (with `best_only`, each code file's best chunk by `scores` and every
    prose chunk) of a scored document gains weight x its document's 0-1 score, in place."""
    lifted = best_chunks(offer, scores) if best_only else None
    for candidate in offer.candidates:
        hit = candidate.hit
        if lifted is None or hit.chunk_id in lifted:
            scores[hit.chunk_id] += weight * per_document.get(hit.document_id, 0.0)


def best_chunks(offer: Offer, scores: Mapping[int, float]) -> frozenset[int]:
    """Each code file's best-scoring candidate chunk (ties: the lower chunk id), and every
    chunk of prose: a page's sections are answers of their own, as in selection.py."""
    best: dict[int, tuple[tuple[float, int], int]] = {}
    for candidate in offer.candidates:
        hit = candidate.hit
        if hit.chunk_id in offer.prose:
            continue
        key = (scores[hit.chunk_id], -hit.chunk_id)
        if hit.document_id not in best or key > best[hit.document_id][0]:
            best[hit.document_id] = (key, hit.chunk_id)
    return offer.prose | frozenset(chunk for _key, chunk in best.values())
