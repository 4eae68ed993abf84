"""The tried signals' options beside the app's: RankingOptions with one more field each, off
by default (the app's ranking)."""

import dataclasses
from dataclasses import dataclass
from typing import Any

from ragspace.ranking import options as app_options
from ragspace.ranking import ranker
from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions


@dataclass(frozen=True)
class TriedOptions(RankingOptions):
    """The app's options and the tried signals' (each one's default turns it off)."""

    # whole documents' BM25 (the document side: document_side.py), scaled like the sides,
    # added to each of their chunks times this (whole_documents.py)
    document_weight: float = 0.0
    # each document's TOP_CHUNKS best candidate chunks on the vector (keyword) side,
    # averaged and scaled 0-1 over the documents, added times this (files_best_chunks.py)
    file_vector_weight: float = 0.0
    file_keyword_weight: float = 0.0
    # the vector share for a question naming code symbols (None: vector_share)
    symbol_vector_share: float | None = None
    # each side's weight times its confidence (fusion.confidence) to this power
    confidence_power: float = 0.0
    coherence_boost: float = 0.0  # times the file's summed scores over the best file's
    # the file names' lift reaches code files alone, not docs pages (code_file_names.py)
    names_of_code_only: bool = False
    # the cards' lift reaches code files alone, not docs pages (code_file_cards.py)
    cards_of_code_only: bool = False
    secondary_factor: float = 1.0  # tests, examples, generated code (unless asked about)
    sub_question_weight: float = 0.0  # a chunk's best score for a sub-question


# The signals' values that turn them off, the app's too (the fusion's own parameters,
# symbol_vector_share and confidence_power, stay as they are: fusion_only keeps the fusion)
OFF: dict[str, Any] = {
    **app_options.OFF,
    "document_weight": 0.0,
    "file_vector_weight": 0.0,
    "file_keyword_weight": 0.0,
    "coherence_boost": 0.0,
    "names_of_code_only": False,
    "cards_of_code_only": False,
    "secondary_factor": 1.0,
    "sub_question_weight": 0.0,
}

# The order RankingOptions held these fields in when the tried signals were the app's: the
# protocol lists a grid point's fields, and crosses a grid's axes, in this order (so its
# tables and choices read as they did); a field not named here comes last.
FIELD_ORDER = (
    "fusion",
    "vector_share",
    "rrf_k",
    "keyword_weight",
    "scaling",
    "document_weight",
    "file_weight",
    "lift_best_chunk",
    "file_confidence_power",
    "cards_of_code_only",
    "file_vector_weight",
    "file_keyword_weight",
    "symbol_vector_share",
    "confidence_power",
    "definition_boost",
    "definition_specificity",
    "text_definition_factor",
    "definition_once_per_file",
    "names_of_code_only",
    "name_boost",
    "coherence_boost",
    "secondary_factor",
    "prose_factor",
    "file_decay",
    "file_spread_power",
    "page_decay",
    "page_spread_power",
    "sub_question_weight",
    "neighbour_weight",
)


def tried(options: RankingOptions) -> TriedOptions:
    """The options as TriedOptions (the app's, every tried signal off, when they are the
    app's RankingOptions)."""
    if isinstance(options, TriedOptions):
        return options
    return TriedOptions(**{f.name: getattr(options, f.name) for f in dataclasses.fields(options)})


def fusion_only(options: TriedOptions) -> TriedOptions:
    """The options with every signal beyond fusion off, the tried ones too."""
    return dataclasses.replace(options, **OFF)


def canonical(options: TriedOptions, offer: Offer | None = None) -> TriedOptions:
    """ranker.canonical, with lifting only files' best chunks kept while any document-level
    signal (the cards or a tried one) is on."""
    document_level = (
        options.document_weight,
        options.file_weight,
        options.file_vector_weight,
        options.file_keyword_weight,
    )
    best_chunk = options.lift_best_chunk and any(document_level)
    app = ranker.canonical(options, offer)
    code_cards = options.cards_of_code_only and bool(app.file_weight)
    if offer is not None and not offer.prose:
        code_cards = False
    code_names = (
        options.names_of_code_only and bool(app.name_boost) and bool(offer is None or offer.prose)
    )
    return dataclasses.replace(
        app,
        lift_best_chunk=best_chunk,
        cards_of_code_only=code_cards,
        names_of_code_only=code_names,
    )


def fields_in_order(point: Any) -> list[dataclasses.Field[Any]]:
    """A dataclass's fields in FIELD_ORDER (others last, in their own order)."""
    known = {name: index for index, name in enumerate(FIELD_ORDER)}
    fields = dataclasses.fields(point)
    return sorted(fields, key=lambda f: known.get(f.name, len(known)))
