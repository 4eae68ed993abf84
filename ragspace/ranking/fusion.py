"""Fusion: one score per candidate from the sides' scores or ranks."""

import math
from collections.abc import Iterable, Mapping, Sequence

from ragspace.ranking.candidates import Candidate, Side


def side_scores(candidates: Sequence[Candidate], side: Side) -> dict[int, float]:
    """Each candidate's raw score on `side`, by chunk id; those the side did not offer are
    left out."""
    return {c.hit.chunk_id: e.score for c in candidates if (e := c.on(side)) is not None}


def min_max(candidates: Sequence[Candidate], side: Side) -> dict[int, float]:
    """Each candidate's score on `side` mapped onto 0-1 over that side's own candidates (best
    1, worst 0; all 1 when they score alike); candidates the side did not offer are left out."""
    return unit_range(side_scores(candidates, side))


def unit_range(values: Mapping[int, float]) -> dict[int, float]:
    """The values mapped onto 0-1 (best 1, worst 0; all 1 when they are alike)."""
    if not values:
        return {}
    low, high = min(values.values()), max(values.values())
    if high == low:
        return dict.fromkeys(values, 1.0)
    return {key: (value - low) / (high - low) for key, value in values.items()}


def distribution(candidates: Sequence[Candidate], side: Side) -> dict[int, float]:
    """Each candidate's score on `side` placed in the side's own score distribution over its
    candidates, (score - (mean - 3 sd)) / 6 sd clipped to 0-1: a side whose best candidate
    barely stands out from the rest gives it less than 1 (min_max gives every side's best 1)."""
    scores = side_scores(candidates, side)
    if len(scores) < 2:
        return dict.fromkeys(scores, 1.0)
    mean, spread = mean_and_spread(list(scores.values()))
    if spread == 0:
        return dict.fromkeys(scores, 1.0)
    low = mean - 3 * spread
    return {chunk: min(1.0, max(0.0, (s - low) / (6 * spread))) for chunk, s in scores.items()}


def confidence(candidates: Sequence[Candidate], side: Side) -> float:
    """How far the side's best candidate stands above its others, in standard deviations
    (0 when it offered fewer than two): a side sure of its answer has a clear winner."""
    scores = list(side_scores(candidates, side).values())
    if len(scores) < 2:
        return 0.0
    mean, spread = mean_and_spread(scores)
    return (max(scores) - mean) / spread if spread else 0.0


def mean_and_spread(values: Sequence[float]) -> tuple[float, float]:
    """The mean and population standard deviation of floats (`statistics.pstdev` computes
    with exact fractions: a fifth of the time to rank a question went there)."""
    mean = math.fsum(values) / len(values)
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))


SCALINGS = {"min_max": min_max, "distribution": distribution}


def convex(
    chunk_ids: Iterable[int],
    scaled: Mapping[Side, Mapping[int, float]],
    weights: Mapping[Side, float],
) -> dict[int, float]:
    """Sum over the sides of weight x the side's scaled score (absent: 0), for each chunk."""
    fused = dict.fromkeys(chunk_ids, 0.0)
    for side, weight in weights.items():
        for chunk, score in scaled[side].items():
            fused[chunk] += weight * score
    return fused


def reciprocal_rank(
    candidates: Sequence[Candidate], weights: Mapping[Side, float], k: int
) -> dict[int, float]:
    """Sum over the sides of weight / (k + rank): reciprocal rank fusion."""
    fused = {c.hit.chunk_id: 0.0 for c in candidates}
    for candidate in candidates:
        for side, weight in weights.items():
            evidence = candidate.on(side)
            if evidence is not None:
                fused[candidate.hit.chunk_id] += weight / (k + evidence.rank)
    return fused


def ordered(candidates: Sequence[Candidate], scores: Mapping[int, float]) -> list[Candidate]:
    """The candidates best first (ties: lower chunk id first, as the store orders them)."""
    return sorted(candidates, key=lambda c: (-scores[c.hit.chunk_id], c.hit.chunk_id))
