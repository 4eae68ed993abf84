"""A file's definitions of the names a question uses count once: overloads and
re-declarations (seven `StrJoin` templates in str_join.h) are one piece of evidence about
the file, not seven, and rising together they fill the list with one file. Only each file's
best defining chunk (by its score so far) keeps its boost (signals/defined_symbols.py,
specific_definitions.py and parsed_definitions.py run first)."""

from bench.experiments.tried_signals.options import TriedOptions
from bench.experiments.tried_signals.specific_definitions import specificity
from ragspace.ranking.offer import Offer


def one_definition_per_file(
    offer: Offer, scores: dict[int, float], options: TriedOptions, unit: float
) -> None:
    """Takes back the boost of every defining chunk but its file's best, in place."""
    if not options.definition_once_per_file or not options.definition_boost:
        return
    power = options.definition_specificity
    weights = offer.derived("definition specificity", lambda: specificity(offer)) if power else {}
    best: dict[int, int] = {}
    for chunk in offer.defining:
        document = offer.document_of[chunk]
        held = best.get(document)
        if held is None or (scores[chunk], -chunk) > (scores[held], -held):
            best[document] = chunk
    kept = set(best.values())
    text_only = _text_only(offer, options)
    for chunk in offer.defining - kept:
        boost = options.definition_boost * (weights[chunk] ** power if power else 1.0)
        if chunk in text_only:
            boost *= options.text_definition_factor
        scores[chunk] -= unit * boost


def _text_only(offer: Offer, options: TriedOptions) -> frozenset[int]:
    from bench.experiments.tried_signals.options import text_definitions

    return text_definitions(offer) if options.text_definition_factor != 1.0 else frozenset()
