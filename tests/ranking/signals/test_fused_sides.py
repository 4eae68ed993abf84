"""Fusion, the first signal: convex over the sides' scaled scores, or RRF over their ranks."""

import pytest

from ragspace.models import Fusion
from ragspace.ranking.candidates import Side
from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions
from ragspace.ranking.signals.fused_sides import fused_sides, side_weights
from tests.ranking.made import candidate, hit

CANDIDATES = [
    candidate(hit(1), vector=(1, 0.9), keyword=(3, 1.0)),
    candidate(hit(2), vector=(2, 0.5), keyword=(1, 9.0)),
    candidate(hit(3), keyword=(2, 5.0)),
]


def test_convex_fusion_weighs_each_sides_min_max_score_by_its_share() -> None:
    options = RankingOptions(fusion=Fusion.CONVEX, vector_share=0.75)
    assert side_weights(options) == {Side.VECTOR: 0.75, Side.KEYWORD: 0.25}
    fused = fused_sides(Offer("q", CANDIDATES), options)
    assert fused == {1: 0.75, 2: pytest.approx(0.25), 3: pytest.approx(0.25 * 0.5)}


def test_rrf_sums_weight_over_k_plus_rank_the_keyword_side_by_its_weight() -> None:
    options = RankingOptions(fusion=Fusion.RRF, rrf_k=10, keyword_weight=2.0)
    assert side_weights(options) == {Side.VECTOR: 1.0, Side.KEYWORD: 2.0}
    fused = fused_sides(Offer("q", CANDIDATES), options)
    assert fused == {
        1: pytest.approx(1 / 11 + 2 / 13),
        2: pytest.approx(1 / 12 + 2 / 11),
        3: pytest.approx(2 / 12),
    }
    # weights given for the question replace the options' own
    only_vectors = fused_sides(Offer("q", CANDIDATES), options, {Side.VECTOR: 1.0})
    assert only_vectors == {1: pytest.approx(1 / 11), 2: pytest.approx(1 / 12), 3: 0.0}
