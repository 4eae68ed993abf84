"""The file side lifts the files its cards describe (path, headings, definitions: the
store's Side.FILE), by the card's score scaled like the sides' and weighed by how clearly
the cards single out a file: a question that describes a file finds it even when no single
chunk carries its words."""

from ragspace.ranking.candidates import Side
from ragspace.ranking.file_lift import lift_documents
from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions


def file_cards(offer: Offer, scores: dict[int, float], options: RankingOptions) -> None:
    """Each described file's chunks (its best one, with `lift_best_chunk`) gain the card
    side's weight x the card's 0-1 score, in place."""
    weight = card_weight(offer, options)
    if weight:  # the file side offers each document by one chunk
        per_document = offer.documents_scaled(Side.FILE, options.scaling)
        lift_documents(offer, scores, per_document, weight, options.lift_best_chunk)


def card_weight(offer: Offer, options: RankingOptions) -> float:
    """The file side's weight for this question: `file_weight` times the cards' confidence
    over the chunk sides' to `file_confidence_power`."""
    power = options.file_confidence_power
    if not options.file_weight or not power:
        return options.file_weight
    chunk_sides = [offer.confidence(side) for side in (Side.VECTOR, Side.KEYWORD)]
    offered = [c for c in chunk_sides if c > 0]
    reference = sum(offered) / len(offered) if offered else 1.0
    ratio = offer.confidence(Side.FILE) / reference
    return float(options.file_weight * ratio**power)
