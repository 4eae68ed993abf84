"""What a ranking is tuned by: the fusion's parameters and one field per signal (signals/).

Every default is what bench/quality_pool.py chose under leave-one-set-out over the shared
sets (docs/benchmarks.md, "Retrieval quality"); the fusion's are settings, written once in
RetrievalSettings and read from there (settings.area.default_of). Signals that did not
survive the protocol live in bench/experiments/tried_signals/, where the protocol keeps
scoring them.
"""

import dataclasses
from dataclasses import dataclass
from typing import Any, TypeVar

from ragspace.models import Fusion
from ragspace.settings.area import default_of
from ragspace.settings.retrieval import RetrievalSettings

_FUSION = Fusion(default_of(RetrievalSettings, "fusion"))


@dataclass(frozen=True)
class RankingOptions:
    """How the sides' candidates are fused and which evidence lifts or lowers a chunk.

    The boosts are fractions of the best score once the files are lifted, so they mean the
    same whatever the fusion's scale; a signal's value in `OFF` turns it off.
    """

    fusion: Fusion = _FUSION
    # of a hit's score, in convex fusion (the full-text side: the rest)
    vector_share: float = default_of(RetrievalSettings, "vector_share")
    rrf_k: int = default_of(RetrievalSettings, "rrf_k")
    # of the full-text ranking in RRF (the vectors': 1)
    keyword_weight: float = default_of(RetrievalSettings, "keyword_weight")
    # how each side's scores are mapped onto 0-1 before convex fusion (fusion.SCALINGS)
    scaling: str = "min_max"
    # each document's card (Side.FILE: path, headings, definitions), scaled like the sides,
    # added to its chunks times this (signals/file_cards.py); 0: off (and the store does
    # not score cards)
    file_weight: float = 0.5
    # the document-level lifts reach only a code file's best chunk (by the score so far),
    # not every chunk: the file rises as one entry and leaves room for other files (every
    # section of a prose document may answer: all its chunks rise)
    lift_best_chunk: bool = True
    # the file side's weight times its confidence over the chunk sides' (fusion.confidence)
    # to this power: cards that single out a file count more, cards that match many files
    # alike less; 0: a fixed weight
    file_confidence_power: float = 2.0
    definition_boost: float = 2.0  # a chunk defining a symbol the question names
    # the boost times (1 / the candidate files defining the name) to this power; 0: every
    # definition alike (signals/defined_symbols.py)
    definition_specificity: float = 1.0
    # the boost of a definition only the text patterns read, in a language a grammar
    # parses, times this; 1: as any other
    text_definition_factor: float = 0.0
    # only each file's best defining chunk keeps its boost: overloads count once
    definition_once_per_file: bool = True
    # times the share of the file's name words the question uses (signals/file_names.py);
    # off in hybrid search, on in the keyword-only ranking (search/keyword_ranking.py)
    name_boost: float = 0.0
    # prose (docs pages) beside code, for a question about code (QueryProfile.asks_about_code);
    # off in hybrid search (round 4's protocol left it out of its joint grid for its size and
    # did not add it on top), on in the keyword-only ranking
    prose_factor: float = 1.0
    # each further section of a docs page listed counts 1 - (1 - page_decay) x (the second
    # page's best score / the best page's) ** page_spread_power times less: pages that
    # compete share the list (signals/documents_spread.py); 1: off
    page_decay: float = 0.7
    page_spread_power: float = 8.0
    # the same for each further chunk of a code file listed, by the files' competition, for a
    # question that names no code symbol; off in hybrid search, on in the keyword-only
    # ranking (search/keyword_ranking.py)
    file_decay: float = 1.0
    file_spread_power: float = 0.0
    # files the symbol table links to the best files (one uses what the other defines) lift
    # their best chunk by this times the best score (signals/linked_files.py); 0: off, and
    # the store is not asked for the links (one more query a hybrid search)
    neighbour_weight: float = 0.2

    @classmethod
    def from_settings(cls, retrieval: RetrievalSettings) -> "RankingOptions":
        """The fusion as configured (RAGSPACE_FUSION, _VECTOR_SHARE, _RRF_K, _KEYWORD_WEIGHT),
        every signal at its default."""
        return cls(
            fusion=Fusion(retrieval.fusion),
            vector_share=retrieval.vector_share,
            rrf_k=retrieval.rrf_k,
            keyword_weight=retrieval.keyword_weight,
        )


# Each signal's value that turns it off: what is left ranks by fusion alone.
OFF: dict[str, Any] = {
    "file_weight": 0.0,
    "lift_best_chunk": False,
    "file_confidence_power": 0.0,
    "definition_boost": 0.0,
    "definition_specificity": 0.0,
    "text_definition_factor": 1.0,
    "definition_once_per_file": False,
    "name_boost": 0.0,
    "prose_factor": 1.0,
    "page_decay": 1.0,
    "page_spread_power": 0.0,
    "file_decay": 1.0,
    "file_spread_power": 0.0,
    "neighbour_weight": 0.0,
}

OptionsT = TypeVar("OptionsT", bound=RankingOptions)


def fusion_only(options: OptionsT) -> OptionsT:
    """The options with every signal beyond fusion off: one side alone (vector or keyword
    mode) is shown as that side ranks it."""
    return dataclasses.replace(options, **OFF)
