"""A file with several good chunks rises: it is about the question as a whole."""

from collections import defaultdict

from bench.experiments.tried_signals.options import TriedOptions
from ragspace.ranking.offer import Offer


def file_coherence(
    offer: Offer, scores: dict[int, float], options: TriedOptions, unit: float
) -> None:
    """Every chunk of a file gains `coherence_boost` times the best score (`unit`) times its
    file's summed scores over the best file's, in place."""
    if not options.coherence_boost:
        return
    boost = unit * options.coherence_boost
    per_file: dict[int, float] = defaultdict(float)
    for candidate in offer.candidates:
        per_file[candidate.hit.document_id] += max(scores[candidate.hit.chunk_id], 0.0)
    best = max(per_file.values(), default=0.0)
    if best <= 0:
        return
    for candidate in offer.candidates:
        hit = candidate.hit
        scores[hit.chunk_id] += boost * per_file[hit.document_id] / best
