"""A chunk that defines a symbol the question names rises (Offer.defining: by the parse's
`defines`, or a definition line in its text), by how much the definition says about which
file answers:

- a name many candidate files define (a namespace, a common word) says little: the boost
  times (1 / the files defining its most specific name) to `definition_specificity`;
- where a grammar parses the chunk's language, its parse alone says what the chunk
  defines: a definition only the text patterns read keeps `text_definition_factor` of it;
- with `definition_once_per_file`, a file's definitions count once (overloads are one piece
  of evidence, not seven): only its best defining chunk keeps the boost.
"""

from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions


def defined_symbols(
    offer: Offer, scores: dict[int, float], options: RankingOptions, unit: float
) -> None:
    """Each defining chunk that keeps a boost gains it (definition_boosts), in place."""
    for chunk, boost in definition_boosts(offer, scores, options, unit).items():
        scores[chunk] += boost


def definition_boosts(
    offer: Offer, scores: dict[int, float], options: RankingOptions, unit: float
) -> dict[int, float]:
    """What each defining chunk that keeps a boost gains, by chunk id: its share of
    `definition_boost` times the best score (`unit`); none when the boost is 0."""
    if not options.definition_boost:
        return {}
    power, keep = options.definition_specificity, options.text_definition_factor
    text_only = offer.read_off_the_text if keep != 1.0 else frozenset()
    boosts = {}
    for chunk in offer.defining:
        boost = unit * options.definition_boost
        if power:
            boost *= offer.definition_weights[chunk] ** power
        boosts[chunk] = boost * keep if chunk in text_only else boost
    if options.definition_once_per_file:
        boosts = _best_per_file(offer, scores, boosts)
    return boosts


def _best_per_file(
    offer: Offer, scores: dict[int, float], boosts: dict[int, float]
) -> dict[int, float]:
    """Each file's boosted chunk that scores best once boosted (ties: the lower id)."""
    best: dict[int, int] = {}
    for chunk, boost in boosts.items():
        document = offer.document_of[chunk]
        held = best.get(document)
        if held is None or (scores[chunk] + boost, -chunk) > (scores[held] + boosts[held], -held):
            best[document] = chunk
    return {chunk: boosts[chunk] for chunk in best.values()}
