"""A file's definitions of the names a question uses count once: overloads and
re-declarations (seven `StrJoin` templates in str_join.h) are one piece of evidence about
the file, not seven, and rising together they fill the list with one file. Only each file's
best defining chunk (by its score so far) keeps its boost (signals/defined_symbols.py,
specific_definitions.py and parsed_definitions.py run first)."""

from bench.experiments.tried_signals.options import TriedOptions, text_definitions
from bench.experiments.tried_signals.specific_definitions import weighed_boost
from ragspace.ranking.offer import Offer


def one_definition_per_file(
    offer: Offer, scores: dict[int, float], options: TriedOptions, unit: float
) -> None:
    """Takes back the boost of every defining chunk but its file's best, in place."""
    if not options.definition_once_per_file or not options.definition_boost:
        return
    best: dict[int, int] = {}
    for chunk in offer.defining:
        document = offer.document_of[chunk]
        held = best.get(document)
        if held is None or (scores[chunk], -chunk) > (scores[held], -held):
            best[document] = chunk
    factor = options.text_definition_factor
    text_only = text_definitions(offer) if factor != 1.0 else frozenset()
    boost_of = weighed_boost(offer, options)
    for chunk in offer.defining - set(best.values()):
        boost = boost_of(chunk)
        scores[chunk] -= unit * (boost * factor if chunk in text_only else boost)
