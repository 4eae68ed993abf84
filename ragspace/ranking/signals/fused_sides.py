"""The first signal: each candidate's one score from the vector and keyword sides' (convex
fusion of their scaled scores, or reciprocal rank fusion of their ranks)."""

from collections.abc import Mapping

from ragspace.models import Fusion
from ragspace.ranking.candidates import Side
from ragspace.ranking.fusion import convex, reciprocal_rank
from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions


def fused_sides(
    offer: Offer, options: RankingOptions, weights: Mapping[Side, float] | None = None
) -> dict[int, float]:
    """Each candidate's fused score, the sides weighed by `weights` (default: the options'
    own, a share of the score in convex fusion or of 1 / (k + rank) in RRF). A new dict."""
    if weights is None:
        weights = side_weights(options)
    if options.fusion is Fusion.RRF:
        return reciprocal_rank(offer.candidates, weights, options.rrf_k)
    scaled = {side: offer.scaled(side, options.scaling) for side in weights}
    return convex(offer.chunk_ids, scaled, weights)


def side_weights(options: RankingOptions) -> dict[Side, float]:
    """Each side's weight in the fusion the options choose."""
    if options.fusion is Fusion.CONVEX:
        return {Side.VECTOR: options.vector_share, Side.KEYWORD: 1.0 - options.vector_share}
    return {Side.VECTOR: 1.0, Side.KEYWORD: options.keyword_weight}
