"""A chunk that defines a symbol the question names rises (Offer.defining: by the parse's
`defines`, or a definition line in its text)."""

from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions


def defined_symbols(
    offer: Offer, scores: dict[int, float], options: RankingOptions, unit: float
) -> None:
    """Each defining chunk gains `definition_boost` times the best score (`unit`), in place."""
    if options.definition_boost:
        for chunk in offer.defining:
            scores[chunk] += unit * options.definition_boost
