"""A file's evidence from its own candidate chunks: how well its best few chunks match.

A question about behaviour ("how does the runner report a crash in a fixture") is often
answered by a file as a whole, none of whose chunks says all of it. The file whose three
best chunks all match the question is more likely the answer than one with a single close
chunk among unrelated ones, and it rises as a file (ranker.py lifts its best chunk)."""

from collections import defaultdict
from collections.abc import Sequence

from ragspace.ranking.candidates import Candidate, Side

TOP_CHUNKS = 3  # a file's best chunks averaged


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
