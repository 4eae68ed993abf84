"""Files the symbol table links to the best ones rise: a question about how two parts work
together is answered by the file that defines what the best file uses, or uses what it
defines, even when its own words match the question less.

The best `SEEDS` files (by their best chunk's score) pass each linked candidate file the
log of the link's weight times their own score over the best one; the sums are scaled 0-1
and lift each linked file's best chunk by weight times the best score, but never above the
last seed's best chunk: a linked file joins the seeds' company without displacing them, so
chunk rankings that want a seed's second chunk keep it (docs/architecture.md, "Files the
symbol table links").
"""

import math
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping

from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions

SEEDS = 5
Links = Mapping[int, Mapping[int, float]]
# (the seeds, every candidate document) -> the links between the seeds and the others (the
# store reads them: store/symbol_links.py; a mapping of more links serves as well)
LinkSource = Callable[[Collection[int], Collection[int]], Links]


def linked_files(
    offer: Offer, scores: dict[int, float], options: RankingOptions, links: LinkSource
) -> dict[int, float]:
    """The scores with each linked file's best chunk lifted by `neighbour_weight` (see the
    module's docstring), as a new dict."""
    weight = options.neighbour_weight
    best = _best_chunk_per_file(offer.document_of, scores)
    if not weight or not best:
        return dict(scores)
    seeds = sorted(best.items(), key=lambda item: -item[1][0])[:SEEDS]  # ties: first offered
    if not any(seed in offer.code_documents for seed, _ in seeds):
        return dict(scores)  # pages and prose have no symbol rows: nothing to ask the store
    linked = links([seed for seed, _ in seeds], list(best))
    unit = seeds[0][1][0] or 1.0
    floor = seeds[-1][1][0]  # the last seed's best chunk: a lifted file stops there
    strength: dict[int, float] = defaultdict(float)
    for seed, (seed_score, _) in seeds:
        for other, link in linked.get(seed, {}).items():
            if other in best and other != seed:
                strength[other] += seed_score / unit * math.log1p(link)
    top = max(strength.values(), default=0.0)
    if top <= 0:
        return dict(scores)
    lifted = dict(scores)
    for document, value in strength.items():
        score, chunk = best[document]
        lifted[chunk] = min(score + weight * unit * value / top, max(score, floor))
    return lifted


def _best_chunk_per_file(
    document_of: Mapping[int, int], scores: Mapping[int, float]
) -> dict[int, tuple[float, int]]:
    """Each document's best chunk: (its score, its chunk id); ties: the first offered
    (`document_of`: each candidate chunk's document, in the order offered)."""
    best: dict[int, tuple[float, int]] = {}
    for chunk, document in document_of.items():
        score = scores[chunk]
        held = best.get(document)
        if held is None or score > held[0]:
            best[document] = (score, chunk)
    return best
