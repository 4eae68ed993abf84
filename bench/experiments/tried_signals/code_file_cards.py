"""A code file's card (its path and the names it defines) says what no single chunk of it
says; a docs page's card (its path and headings) repeats what its sections say already, and
lifting every section of the page alike fills the list with one page, pushing out the other
pages a question needs (docs-dev's "middleware order of execution": four sections of one
middleware.md in the top five, the second middleware.md out). With `cards_of_code_only`,
the cards' lift (signals/file_cards.py, which runs first) reaches code files alone."""

from bench.experiments.tried_signals.options import TriedOptions
from ragspace.ranking.candidates import Side
from ragspace.ranking.offer import Offer
from ragspace.ranking.signals.file_cards import card_weight


def code_file_cards(offer: Offer, scores: dict[int, float], options: TriedOptions) -> None:
    """Takes the cards' lift back from every prose chunk, in place."""
    if not options.cards_of_code_only or not offer.prose:
        return
    weight = card_weight(offer, options)
    if not weight:
        return
    per_document = offer.documents_scaled(Side.FILE, options.scaling)
    for chunk in offer.prose:
        scores[chunk] -= weight * per_document.get(offer.document_of[chunk], 0.0)
