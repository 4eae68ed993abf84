"""The app's ranking with the tried signals among its own, each where it applied when it was
the app's: what bench/quality_pool.py ranks a grid point of TriedOptions with."""

from collections.abc import Sequence

from bench.experiments.tried_signals.code_file_cards import code_file_cards
from bench.experiments.tried_signals.code_file_names import code_file_names
from bench.experiments.tried_signals.file_coherence import file_coherence
from bench.experiments.tried_signals.files_best_chunks import files_best_chunks
from bench.experiments.tried_signals.options import TriedOptions
from bench.experiments.tried_signals.sub_questions import sub_question_scores
from bench.experiments.tried_signals.tests_lowered import tests_lowered
from bench.experiments.tried_signals.weighted_fusion import weighted_fusion
from bench.experiments.tried_signals.whole_documents import whole_documents
from ragspace.models import Hit
from ragspace.ranking.offer import Offer
from ragspace.ranking.ranker import Signals, ordered, scored, selected
from ragspace.ranking.signals.defined_symbols import defined_symbols
from ragspace.ranking.signals.documents_spread import documents_spread
from ragspace.ranking.signals.file_cards import file_cards
from ragspace.ranking.signals.file_names import file_names
from ragspace.ranking.signals.linked_files import LinkSource, linked_files
from ragspace.ranking.signals.prose_for_code import prose_for_code

TRIED: Signals[TriedOptions] = Signals(
    fusion=weighted_fusion,
    files=(whole_documents, file_cards, code_file_cards, files_best_chunks),
    question=(
        defined_symbols,
        file_names,
        code_file_names,
        tests_lowered,
        prose_for_code,
        file_coherence,
    ),
    links=linked_files,
    spread=documents_spread,
)


def rank_offer(
    offer: Offer,
    options: TriedOptions,
    limit: int | None = None,
    per_section: bool = True,
    parts: Sequence[Offer] = (),
    links: LinkSource | None = None,
) -> list[Hit]:
    """ranker.rank_offer under TRIED: the sub-questions' Offers (`parts`) compete too, and
    the files are spread before one hit per section is kept."""
    scores = scored(offer, options, links, TRIED)
    hits = {c.hit.chunk_id: c.hit for c in offer.candidates}

    def part_scores(part: Offer) -> dict[int, float]:
        return scored(part, options, None, TRIED)

    sub_question_scores(scores, hits, parts, options, part_scores)
    return selected(TRIED.spread(offer, ordered(hits, scores), options), limit, per_section)
