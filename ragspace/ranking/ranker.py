"""The ranking a search returns: candidates fused into one score each, lifted by what the
question names (definitions, file names), lowered for tests and generated code, best first."""

import dataclasses
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ragspace.models import Fusion, Hit
from ragspace.ranking.candidates import Candidate, Side
from ragspace.ranking.fusion import convex, reciprocal_rank
from ragspace.ranking.neighbours import LinkSource, lift_neighbours
from ragspace.ranking.offer import Offer
from ragspace.ranking.paths import is_secondary, name_match
from ragspace.ranking.query import QueryProfile
from ragspace.ranking.selection import one_per_section, spread_files


@dataclass(frozen=True)
class RankingOptions:
    """How the sides' candidates are fused and which evidence lifts or lowers a chunk.

    The boosts are fractions of the best fused score, so they mean the same whatever the
    fusion's scale; 0 turns a signal off. Every default is what bench/quality_pool.py chose
    under leave-one-set-out over the five shared sets: a signal is on only when its own
    held-out row beat today's ranking (docs/benchmarks.md, "Retrieval quality"); the others
    stay here, off, so the protocol can try them again on new sets.
    """

    fusion: Fusion = Fusion.CONVEX
    vector_share: float = 0.5  # of a hit's score, in convex fusion (the full-text side: the rest)
    rrf_k: int = 10
    keyword_weight: float = 1.25  # of the full-text ranking in RRF (quality vectors: 1)
    # how each side's scores are mapped onto 0-1 before convex fusion (fusion.SCALINGS)
    scaling: str = "min_max"
    # whole documents' BM25 (Side.DOCUMENT), scaled like the sides, added to each of their
    # chunks times this; 0: off (and the store does not score documents)
    document_weight: float = 0.0
    # each document's card (Side.FILE: path, headings, definitions), scaled like the sides,
    # added to each of its chunks times this; 0: off (and the store does not score cards)
    file_weight: float = 0.5
    # the document-level sides lift only a code file's best chunk (by the fused score), not
    # every chunk: the file rises as one entry and leaves room for other files (every
    # section of a prose document may answer: all its chunks rise)
    lift_best_chunk: bool = True
    # the file side's weight times its confidence over the chunk sides' (fusion.confidence)
    # to this power: cards that single out a file count more, cards that match many files
    # alike less; 0: a fixed weight
    file_confidence_power: float = 2.0
    # each document's TOP_CHUNKS best candidate chunks on the vector (keyword) side, averaged
    # and scaled 0-1 over the documents (file_chunks.py), added times this like the document
    # sides above; 0: off
    file_vector_weight: float = 0.0
    file_keyword_weight: float = 0.0
    # the vector share for a question naming code symbols (None: vector_share)
    symbol_vector_share: float | None = None
    # each side's weight times its confidence (fusion.confidence) to this power; 0: off
    confidence_power: float = 0.0
    definition_boost: float = 2.0  # a chunk defining a symbol the question names
    name_boost: float = 0.0  # times the share of the file's name words the question uses
    coherence_boost: float = 0.0  # times the file's summed scores over the best file's
    secondary_factor: float = 1.0  # tests, examples, generated code (unless asked about)
    # prose (docs pages) beside code, for a question about code (QueryProfile.asks_about_code)
    prose_factor: float = 0.5
    file_decay: float = 1.0  # each further chunk of a listed file (selection.spread_files)
    sub_question_weight: float = 0.0  # a chunk's best score for a sub-question (see rank)
    # files the symbol table links to the best files (one uses what the other defines) lift
    # their best chunk by this times the best score (neighbours.py); 0: off, and the store
    # is not asked for the links (one more query a hybrid search)
    neighbour_weight: float = 0.3


def fusion_only(options: RankingOptions) -> RankingOptions:
    """The options with every signal beyond fusion off: one side alone (vector or keyword
    mode) is shown as that side ranks it."""
    return dataclasses.replace(
        options,
        document_weight=0.0,
        file_weight=0.0,
        lift_best_chunk=False,
        file_confidence_power=0.0,
        file_vector_weight=0.0,
        file_keyword_weight=0.0,
        definition_boost=0.0,
        name_boost=0.0,
        coherence_boost=0.0,
        secondary_factor=1.0,
        prose_factor=1.0,
        file_decay=1.0,
        sub_question_weight=0.0,
        neighbour_weight=0.0,
    )


def canonical(options: RankingOptions, offer: Offer | None = None) -> RankingOptions:
    """The options with the fields that cannot change this ranking set to fusion_only's:
    the cards' confidence power when the cards are off, lifting only files' best chunks
    when no document-level signal is on; and, for one question's `offer`, the signals it
    gives nothing to act on (no chunk defines a symbol it names, no prose is lowered for
    it, no candidate is code for the links to start from). Options with one canonical form
    rank alike, so a grid search scores them once (for that question; its sub-questions'
    Offers may act on what its own does not)."""
    if not options.file_weight:
        options = dataclasses.replace(options, file_confidence_power=0.0)
    document_level = (
        options.document_weight,
        options.file_weight,
        options.file_vector_weight,
        options.file_keyword_weight,
    )
    if not any(document_level):
        options = dataclasses.replace(options, lift_best_chunk=False)
    if offer is None:
        return options
    if not offer.defining:
        options = dataclasses.replace(options, definition_boost=0.0)
    if not _lowered_prose(offer, options):
        options = dataclasses.replace(options, prose_factor=1.0)
    if not offer.code_documents:
        options = dataclasses.replace(options, neighbour_weight=0.0)
    return options


def side_weights(options: RankingOptions, profile: QueryProfile | None = None) -> dict[Side, float]:
    """Each side's weight in the fusion: a share of the score (convex) or of 1 / (k + rank)."""
    if options.fusion is Fusion.CONVEX:
        share = options.vector_share
        if profile is not None and profile.symbols and options.symbol_vector_share is not None:
            share = options.symbol_vector_share
        return {Side.VECTOR: share, Side.KEYWORD: 1.0 - share}
    return {Side.VECTOR: 1.0, Side.KEYWORD: options.keyword_weight}


def confident_weights(offer: Offer, weights: dict[Side, float], power: float) -> dict[Side, float]:
    """The weights scaled by each side's confidence in its own best candidate, keeping their
    sum: the side with the clearer winner leads this question."""
    if power == 0:
        return weights
    scaled = {side: w * offer.confidence(side) ** power for side, w in weights.items()}
    total, wanted = sum(scaled.values()), sum(weights.values())
    return {side: w * wanted / total for side, w in scaled.items()} if total > 0 else weights


def rank(
    candidates: Sequence[Candidate],
    options: RankingOptions,
    question: str = "",
    limit: int | None = None,
    per_section: bool = True,
    parts: Sequence[tuple[str, Sequence[Candidate]]] = (),
    links: LinkSource | None = None,
) -> list[Hit]:
    """The best `limit` candidates (all without) as hits carrying their final score, best
    first; with `per_section`, at most one hit per prose section (selection.py).

    `links` reads the symbol table's links between the best files and the other candidates
    (store/symbol_links.py), asked once when `neighbour_weight` is on.

    `parts` are the question's sub-questions (query.sub_questions) with their own
    candidates: a chunk also scores `sub_question_weight` times its best rank there, on the
    question's scale, so a passage answering one part alone can compete.
    """
    offers = [Offer(text, found) for text, found in parts]
    return rank_offer(Offer(question, candidates), options, limit, per_section, offers, links)


def rank_offer(
    offer: Offer,
    options: RankingOptions,
    limit: int | None = None,
    per_section: bool = True,
    parts: Sequence[Offer] = (),
    links: LinkSource | None = None,
) -> list[Hit]:
    """`rank` over an Offer (and the sub-questions' Offers): what a caller that ranks one
    question many times calls, keeping the Offer."""
    scores = scored(offer, options, links)
    offered = {c.hit.chunk_id: c for c in offer.candidates}
    top = max(scores.values(), default=0.0)
    for part in parts if options.sub_question_weight else ():
        part_scores = scored(part, options)
        part_top = max(part_scores.values(), default=0.0)
        if part_top <= 0 or top <= 0:
            continue
        for candidate in part.candidates:
            chunk = candidate.hit.chunk_id
            lifted = options.sub_question_weight * part_scores[chunk] * top / part_top
            scores[chunk] = max(scores.get(chunk, 0.0), lifted)
            offered.setdefault(chunk, candidate)
    return listed({c: offered[c].hit for c in offered}, scores, options, limit, per_section)


def listed(
    hits: Mapping[int, Hit],
    scores: Mapping[int, float],
    options: RankingOptions,
    limit: int | None = None,
    per_section: bool = True,
) -> list[Hit]:
    """The hits (by chunk id) best first by their final `scores`, files spread and, with
    `per_section`, one hit per prose section; the first `limit`, each carrying its score."""
    order = sorted(hits)  # best first below; ties: the lower chunk id, as the store orders
    order.sort(key=scores.__getitem__, reverse=True)  # a stable sort, also reversed
    ranked = [(scores[chunk], hits[chunk]) for chunk in order]
    ranked = spread_files(ranked, options.file_decay)
    if per_section:
        ranked = one_per_section(ranked, limit)
    return [hit.model_copy(update={"score": score}) for score, hit in ranked[:limit]]


def scored(
    offer: Offer, options: RankingOptions, links: LinkSource | None = None
) -> dict[int, float]:
    """Each candidate's final score: the sides fused, the question's evidence applied, then
    files linked to the best ones lifted (`links`, see rank). A new dict, the caller's."""
    before = offer.latest(
        dataclasses.replace(options, neighbour_weight=0.0),
        lambda: _evidence_applied(offer, options),
    )
    if options.neighbour_weight and links is not None:
        return lift_neighbours(offer, before, links, options.neighbour_weight)
    return dict(before)


def _evidence_applied(offer: Offer, options: RankingOptions) -> dict[int, float]:
    """The sides fused and the question's evidence applied: every step but the links'."""
    weights = confident_weights(
        offer, side_weights(options, offer.profile), options.confidence_power
    )
    scores = fused(offer, options, weights)
    for per_document, weight in _document_evidence(offer, options):
        lifted = _best_chunks(offer, scores) if options.lift_best_chunk else None
        _add_documents(offer.candidates, scores, per_document, weight, lifted)
    return adjusted(offer, scores, options)


def fused(offer: Offer, options: RankingOptions, weights: Mapping[Side, float]) -> dict[int, float]:
    """Each candidate's fused score by the configured fusion."""
    if options.fusion is Fusion.RRF:
        return reciprocal_rank(offer.candidates, weights, options.rrf_k)
    scaled = {side: offer.scaled(side, options.scaling) for side in weights}
    return convex(offer.chunk_ids, scaled, weights)


def _document_evidence(
    offer: Offer, options: RankingOptions
) -> list[tuple[Mapping[int, float], float]]:
    """Each document-level signal that is on: its 0-1 score per document id, its weight."""
    evidence: list[tuple[Mapping[int, float], float]] = []
    for side, weight in (
        (Side.DOCUMENT, options.document_weight),
        (Side.FILE, file_weight(offer, options)),
    ):
        if weight:  # a document side offers each document by one chunk
            evidence.append((offer.documents_scaled(side, options.scaling), weight))
    for side, weight in (
        (Side.VECTOR, options.file_vector_weight),
        (Side.KEYWORD, options.file_keyword_weight),
    ):
        if weight:
            evidence.append((offer.file_evidence(side), weight))
    return evidence


def file_weight(offer: Offer, options: RankingOptions) -> float:
    """The file side's weight for this question (RankingOptions.file_confidence_power)."""
    power = options.file_confidence_power
    if not options.file_weight or not power:
        return options.file_weight
    chunk_sides = [offer.confidence(side) for side in (Side.VECTOR, Side.KEYWORD)]
    offered = [c for c in chunk_sides if c > 0]
    reference = sum(offered) / len(offered) if offered else 1.0
    ratio = offer.confidence(Side.FILE) / reference
    return float(options.file_weight * ratio**power)


def adjusted(offer: Offer, scores: dict[int, float], options: RankingOptions) -> dict[int, float]:
    """The fused scores with the question's evidence applied (see RankingOptions)."""
    if not scores or not _adjusts(options):
        return scores
    profile = offer.profile
    unit = max(scores.values()) or 1.0
    result = dict(scores)
    # each step over the chunks it changes, in this order: boosts add, factors multiply
    for chunk in offer.defining if options.definition_boost else ():
        result[chunk] += unit * options.definition_boost
    for candidate in offer.candidates if options.name_boost else ():
        hit = candidate.hit
        result[hit.chunk_id] += unit * options.name_boost * name_match(profile, hit.path)
    if options.secondary_factor != 1.0 and not profile.asks_about_tests:
        for candidate in offer.candidates:
            if is_secondary(candidate.hit.path):
                result[candidate.hit.chunk_id] *= options.secondary_factor
    for chunk in _lowered_prose(offer, options):
        result[chunk] *= options.prose_factor
    if options.coherence_boost:
        _lift_coherent_files(offer.candidates, result, unit * options.coherence_boost)
    return result


def _adjusts(options: RankingOptions) -> bool:
    return bool(
        options.definition_boost
        or options.name_boost
        or options.coherence_boost
        or options.secondary_factor != 1.0
        or options.prose_factor != 1.0
    )


def _lowered_prose(offer: Offer, options: RankingOptions) -> frozenset[int]:
    """The prose chunks `prose_factor` lowers: all of them when the question asks about code
    and the candidates hold code as well (among prose alone, lowering it all would change
    nothing but the boosts' weight); none otherwise."""
    if options.prose_factor == 1.0 or not offer.profile.asks_about_code:
        return frozenset()
    return offer.prose if len(offer.prose) < len(offer.candidates) else frozenset()


def _add_documents(
    candidates: Sequence[Candidate],
    scores: dict[int, float],
    per_document: Mapping[int, float],
    weight: float,
    lifted: frozenset[int] | None = None,
) -> None:
    """Every chunk (of `lifted`, when given) of a scored document gains weight x its
    document's 0-1 score."""
    for candidate in candidates:
        hit = candidate.hit
        if lifted is None or hit.chunk_id in lifted:
            scores[hit.chunk_id] += weight * per_document.get(hit.document_id, 0.0)


def _best_chunks(offer: Offer, scores: dict[int, float]) -> frozenset[int]:
    """Each code file's best-scoring candidate chunk (ties: the lower chunk id), and every
    chunk of prose: a page's sections are answers of their own, as in selection.py."""
    best: dict[int, tuple[tuple[float, int], int]] = {}
    for candidate in offer.candidates:
        hit = candidate.hit
        if hit.chunk_id in offer.prose:
            continue
        key = (scores[hit.chunk_id], -hit.chunk_id)
        if hit.document_id not in best or key > best[hit.document_id][0]:
            best[hit.document_id] = (key, hit.chunk_id)
    return offer.prose | frozenset(chunk for _key, chunk in best.values())


def _lift_coherent_files(
    candidates: Sequence[Candidate], scores: dict[int, float], boost: float
) -> None:
    """Every chunk of a file gains `boost` times its file's summed scores over the best
    file's: a file with several good chunks is about the question as a whole."""
    per_file: dict[int, float] = defaultdict(float)
    for candidate in candidates:
        per_file[candidate.hit.document_id] += max(scores[candidate.hit.chunk_id], 0.0)
    best = max(per_file.values(), default=0.0)
    if best <= 0:
        return
    for candidate in candidates:
        hit = candidate.hit
        scores[hit.chunk_id] += boost * per_file[hit.document_id] / best
