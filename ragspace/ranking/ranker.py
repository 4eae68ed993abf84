"""The ranking a search returns: its candidates fused into one score each, then each signal
of SIGNALS in its order (files lifted by their own evidence, the question's evidence, files
the symbol table links), best first, documents spread when they compete, one hit per prose
section."""

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ragspace.models import Hit
from ragspace.ranking.candidates import Candidate
from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions
from ragspace.ranking.selection import Scored, one_per_section
from ragspace.ranking.signals.defined_symbols import defined_symbols
from ragspace.ranking.signals.documents_spread import documents_spread
from ragspace.ranking.signals.file_cards import file_cards
from ragspace.ranking.signals.file_names import file_names
from ragspace.ranking.signals.fused_sides import fused_sides
from ragspace.ranking.signals.linked_files import LinkSource, linked_files
from ragspace.ranking.signals.prose_for_code import lowered_prose, prose_for_code

OptionsT = TypeVar("OptionsT", bound=RankingOptions)
Scores = dict[int, float]  # each candidate's score by chunk id


@dataclass(frozen=True)
class Signals(Generic[OptionsT]):
    """A ranking's signals, in the order they apply (each reads the scores the ones before
    it leave: the order matters for the numbers)."""

    fusion: Callable[[Offer, OptionsT], Scores]  # first: one score per candidate, a new dict
    # then a file's own evidence lifts its chunks, each over the scores so far, in place
    files: tuple[Callable[[Offer, Scores, OptionsT], None], ...]
    # then the question's evidence, in place: boosts add fractions of `unit` (the best score
    # the files leave), factors multiply
    question: tuple[Callable[[Offer, Scores, OptionsT, float], None], ...]
    # then files the symbol table links to the best ones (a new dict)
    links: Callable[[Offer, Scores, OptionsT, LinkSource], Scores]
    # last, over the hits in their final order: documents spread over the list (a new list)
    spread: Callable[[Offer, Sequence[Scored], OptionsT], list[Scored]]


SIGNALS: Signals[RankingOptions] = Signals(
    fusion=fused_sides,
    files=(file_cards,),
    question=(defined_symbols, file_names, prose_for_code),
    links=linked_files,
    spread=documents_spread,
)


def rank(
    candidates: Sequence[Candidate],
    options: RankingOptions,
    question: str = "",
    limit: int | None = None,
    per_section: bool = True,
    links: LinkSource | None = None,
) -> list[Hit]:
    """The best `limit` candidates (all without) as hits carrying their final score, best
    first; with `per_section`, at most one hit per prose section (selection.py).

    `links` reads the symbol table's links between the best files and the other candidates
    (store/symbol_links.py), asked once when `neighbour_weight` is on.
    """
    return rank_offer(Offer(question, candidates), options, limit, per_section, links)


def rank_offer(
    offer: Offer,
    options: RankingOptions,
    limit: int | None = None,
    per_section: bool = True,
    links: LinkSource | None = None,
) -> list[Hit]:
    """`rank` over an Offer: what a caller that ranks one question many times calls,
    keeping the Offer."""
    hits = {c.hit.chunk_id: c.hit for c in offer.candidates}
    ranked = SIGNALS.spread(offer, ordered(hits, scored(offer, options, links)), options)
    return selected(ranked, limit, per_section)


def scored(
    offer: Offer,
    options: OptionsT,
    links: LinkSource | None = None,
    signals: Signals[OptionsT] | Signals[RankingOptions] = SIGNALS,
) -> Scores:
    """Each candidate's final score under `signals` (the app's by default); files linked to
    the best ones are lifted when `links` is given. A new dict, the caller's."""
    before = offer.latest(
        (signals, dataclasses.replace(options, neighbour_weight=0.0)),
        lambda: _before_links(offer, options, signals),
    )
    if links is None:
        return dict(before)
    return signals.links(offer, before, options, links)


def _before_links(
    offer: Offer, options: OptionsT, signals: Signals[OptionsT] | Signals[RankingOptions]
) -> Scores:
    """Every signal applied but the links'."""
    scores = signals.fusion(offer, options)
    for lift in signals.files:
        lift(offer, scores, options)
    if scores:
        unit = max(scores.values()) or 1.0
        for adjust in signals.question:
            adjust(offer, scores, options, unit)
    return scores


def ordered(hits: Mapping[int, Hit], scores: Mapping[int, float]) -> list[Scored]:
    """The hits (by chunk id) with their final scores, best first (ties: the lower chunk
    id, as the store orders them)."""
    order = sorted(hits)
    order.sort(key=scores.__getitem__, reverse=True)  # a stable sort, also reversed
    return [(scores[chunk], hits[chunk]) for chunk in order]


def selected(ranked: Sequence[Scored], limit: int | None, per_section: bool) -> list[Hit]:
    """The first `limit` of the ranked hits (with `per_section`, one hit per prose
    section), each carrying its score."""
    if per_section:
        ranked = one_per_section(ranked, limit)
    return [hit.model_copy(update={"score": score}) for score, hit in ranked[:limit]]


def canonical(options: OptionsT, offer: Offer | None = None) -> OptionsT:
    """The options with the fields that cannot change this ranking set to their `OFF`
    values: the cards' confidence power and lifting only files' best chunks when the cards
    are off; and, for one question's `offer`, the signals it gives nothing to act on (no
    chunk defines a symbol it names, none only by its text, no prose is lowered for it, no
    candidate is code for the links to start from or the files to spread, or it names a symbol,
    which keeps its files' chunks together); the definitions' refinements with no
    definition boost. Options with one canonical form rank alike, so a grid search
    scores them once (for that question)."""
    if not options.file_weight:
        options = dataclasses.replace(options, file_confidence_power=0.0, lift_best_chunk=False)
    if options.page_decay >= 1.0:
        options = dataclasses.replace(options, page_spread_power=0.0)
    if options.file_decay >= 1.0:
        options = dataclasses.replace(options, file_spread_power=0.0)
    if offer is None:
        return _definitions_canonical(options)
    if not offer.defining:
        options = dataclasses.replace(options, definition_boost=0.0)
    elif not offer.read_off_the_text:
        options = dataclasses.replace(options, text_definition_factor=1.0)
    options = _definitions_canonical(options)
    if not lowered_prose(offer, options.prose_factor):
        options = dataclasses.replace(options, prose_factor=1.0)
    if not offer.code_documents:
        options = dataclasses.replace(options, neighbour_weight=0.0)
    if not offer.code_documents or offer.profile.symbols:
        options = dataclasses.replace(options, file_decay=1.0, file_spread_power=0.0)
    if not offer.prose:
        options = dataclasses.replace(options, page_decay=1.0, page_spread_power=0.0)
    return options


def _definitions_canonical(options: OptionsT) -> OptionsT:
    """With no definition boost, how it would be weighed cannot matter: its refinements
    off."""
    if options.definition_boost:
        return options
    return dataclasses.replace(
        options,
        definition_specificity=0.0,
        text_definition_factor=1.0,
        definition_once_per_file=False,
    )
