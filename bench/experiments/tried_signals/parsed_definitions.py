"""Where a grammar parses the chunk's language, its parse alone says what the chunk
defines: a line the text patterns read as a definition (`const absl::Time t` as one of
`Time`, `let session = ...`) is a use there, and the chunk keeps `text_definition_factor` of
its boost (signals/defined_symbols.py runs first). Languages without a grammar keep the
patterns, as they must."""

from bench.experiments.tried_signals.options import TriedOptions, text_definitions
from bench.experiments.tried_signals.specific_definitions import weighed_boost
from ragspace.chunking.grammars import GRAMMARS, grammar_for
from ragspace.models import Hit
from ragspace.ranking.definitions import defines
from ragspace.ranking.offer import Offer, declared_names


def read_off_the_text(offer: Offer) -> frozenset[int]:
    """The defining chunks whose language a grammar parses but whose parse declares none of
    the names the question uses: the text patterns alone made them definitions."""
    names = offer.profile.symbols
    return frozenset(
        c.hit.chunk_id
        for c in offer.candidates
        if c.hit.chunk_id in offer.defining
        and _parsed(c.hit)
        and not defines("", names, declared_names(c.hit) or [])
    )


def parsed_definitions(
    offer: Offer, scores: dict[int, float], options: TriedOptions, unit: float
) -> None:
    """Takes back `1 - text_definition_factor` of each such chunk's boost (the boost as
    specific_definitions leaves it, when that is on), in place."""
    keep = options.text_definition_factor
    if keep == 1.0 or not options.definition_boost:
        return
    boost_of = weighed_boost(offer, options)
    for chunk in text_definitions(offer):
        scores[chunk] -= unit * boost_of(chunk) * (1 - keep)


def _parsed(hit: Hit) -> bool:
    language = hit.metadata.get("language")
    return isinstance(language, str) and grammar_for(language, hit.path) in GRAMMARS
