"""A definition counts by how well it singles out a file: a name the question uses that many
candidate files define (a namespace, `absl` in `absl::Mutex`; a common word like `Time` in
`const absl::Time t`) says little about which file answers; a name only one file defines says
much. Each defining chunk's boost (signals/defined_symbols.py) becomes `definition_boost`
times (1 / the number of candidate files defining its most specific name) to the power
`definition_specificity`."""

from collections.abc import Callable

from bench.experiments.tried_signals.options import TriedOptions
from ragspace.ranking.offer import Offer, _defines


def specificity(offer: Offer) -> dict[int, float]:
    """Each defining chunk's weight: 1 / the candidate files that define its most specific
    name the question uses."""
    names = offer.profile.symbols
    files: dict[str, set[int]] = {}
    defined: dict[int, list[str]] = {}
    for candidate in offer.candidates:
        hit = candidate.hit
        if hit.chunk_id not in offer.defining:
            continue
        for name in names:
            if _defines(hit, (name,)):
                files.setdefault(name, set()).add(hit.document_id)
                defined.setdefault(hit.chunk_id, []).append(name)
    return {chunk: max(1 / len(files[n]) for n in found) for chunk, found in defined.items()}


def specific_definitions(
    offer: Offer, scores: dict[int, float], options: TriedOptions, unit: float
) -> None:
    """Takes back the part of each defining chunk's boost its name's spread over files does
    not earn (defined_symbols runs first), in place."""
    power = options.definition_specificity
    if not power or not options.definition_boost:
        return
    for chunk, weight in weights_of(offer).items():
        scores[chunk] -= unit * options.definition_boost * (1 - weight**power)


def weights_of(offer: Offer) -> dict[int, float]:
    """`specificity`, derived once for the offer."""
    return offer.derived("definition specificity", lambda: specificity(offer))


def weighed_boost(offer: Offer, options: TriedOptions) -> Callable[[int], float]:
    """Each defining chunk's boost as specific_definitions leaves it: `definition_boost`
    times its weight to the power `definition_specificity` (the boost itself when 0)."""
    power, boost = options.definition_specificity, options.definition_boost
    if not power:
        return lambda _chunk: boost * 1.0
    weights = weights_of(offer)
    return lambda chunk: boost * weights[chunk] ** power
