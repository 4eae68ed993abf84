"""For a question about code (QueryProfile.asks_about_code), the prose beside the code (docs
pages) is lowered: it describes what the question wants to see."""

from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions


def prose_for_code(
    offer: Offer, scores: dict[int, float], options: RankingOptions, _unit: float
) -> None:
    """The lowered prose chunks' scores times `prose_factor`, in place."""
    for chunk in lowered_prose(offer, options.prose_factor):
        scores[chunk] *= options.prose_factor


def lowered_prose(offer: Offer, factor: float) -> frozenset[int]:
    """The prose chunks `factor` lowers: all of them when the question asks about code and
    the candidates hold code as well (among prose alone, lowering it all would change
    nothing but the boosts' weight); none otherwise."""
    if factor == 1.0 or not offer.profile.asks_about_code:
        return frozenset()
    return offer.prose if len(offer.prose) < len(offer.candidates) else frozenset()
