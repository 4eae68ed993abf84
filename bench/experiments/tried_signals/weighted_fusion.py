"""Fusion with each side's weight chosen for the question: the vector share of a question
naming code symbols (`symbol_vector_share`), and each side weighed by its confidence in its
own best candidate (`confidence_power`: the side with the clearer winner leads)."""

from collections.abc import Mapping

from bench.experiments.tried_signals.options import TriedOptions
from ragspace.models import Fusion
from ragspace.ranking.candidates import Side
from ragspace.ranking.offer import Offer
from ragspace.ranking.signals.fused_sides import fused_sides, side_weights


def weighted_fusion(offer: Offer, options: TriedOptions) -> dict[int, float]:
    """Each candidate's fused score, the sides weighed for this question."""
    weights = side_weights(options)
    symbols = options.symbol_vector_share
    if options.fusion is Fusion.CONVEX and symbols is not None and offer.profile.symbols:
        weights = {Side.VECTOR: symbols, Side.KEYWORD: 1.0 - symbols}
    return fused_sides(offer, options, _confident(offer, weights, options.confidence_power))


def _confident(offer: Offer, weights: Mapping[Side, float], power: float) -> Mapping[Side, float]:
    """The weights scaled by each side's confidence in its own best candidate, keeping their
    sum."""
    if power == 0:
        return weights
    scaled = {side: w * offer.confidence(side) ** power for side, w in weights.items()}
    total, wanted = sum(scaled.values()), sum(weights.values())
    return {side: w * wanted / total for side, w in scaled.items()} if total > 0 else weights
