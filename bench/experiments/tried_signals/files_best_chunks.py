"""A file's evidence from its own candidate chunks: how well its best few chunks match.

A question about behaviour ("how does the runner report a crash in a fixture") is often
answered by a file as a whole, none of whose chunks says all of it. The file whose three
best chunks all match the question is more likely the answer than one with a single close
chunk among unrelated ones; it rises as a file (by its best chunk, with `lift_best_chunk`).
"""

from collections import defaultdict
from collections.abc import Mapping, Sequence

from bench.experiments.tried_signals.options import TriedOptions
from ragspace.ranking.candidates import Candidate, Side
from ragspace.ranking.file_lift import lift_documents
from ragspace.ranking.fusion import unit_range
from ragspace.ranking.offer import Offer

TOP_CHUNKS = 3  # a file's best chunks averaged


def files_best_chunks(offer: Offer, scores: dict[int, float], options: TriedOptions) -> None:
    """Each file's chunks gain `file_vector_weight` (then `file_keyword_weight`) x its mean
    over its best chunks on that side, scaled 0-1 over the files, in place."""
    for side, weight in (
        (Side.VECTOR, options.file_vector_weight),
        (Side.KEYWORD, options.file_keyword_weight),
    ):
        if weight:
            per_document = _per_document(offer, side)
            lift_documents(offer, scores, per_document, weight, options.lift_best_chunk)


def _per_document(offer: Offer, side: Side) -> Mapping[int, float]:
    return offer.derived(
        ("files", side), lambda: unit_range(best_chunks_mean(offer.candidates, side))
    )


def best_chunks_mean(candidates: Sequence[Candidate], side: Side) -> dict[int, float]:
    """Each document's mean raw score on `side` over its TOP_CHUNKS best candidate chunks, by
    document id; a document with fewer candidates counts the rest at the side's lowest
    offered score (no chunk outside the side's list scores more). Documents the side did
    not offer are left out."""
    per_document: dict[int, list[float]] = defaultdict(list)
    for candidate in candidates:
        evidence = candidate.on(side)
        if evidence is not None:
            per_document[candidate.hit.document_id].append(evidence.score)
    if not per_document:
        return {}
    floor = min(min(scores) for scores in per_document.values())
    means = {}
    for document, scores in per_document.items():
        best = sorted(scores, reverse=True)[:TOP_CHUNKS]
        best += [floor] * (TOP_CHUNKS - len(best))
        means[document] = sum(best) / TOP_CHUNKS
    return means
