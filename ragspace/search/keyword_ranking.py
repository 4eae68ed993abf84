"""The ranking of a search that has only its keyword side: keyword mode, and a hybrid search
of DocSets whose vectors are not embedded yet (between "keywords 230/230" and "vectors
230/230", the first minutes after adding a repository).

Its side alone (`fusion_only`) was all such a search got. These are the ranking's signals
that need no vector, at the values bench/experiments/keyword_ranking.py chose under
leave-one-set-out over semble-dev's 15 repositories (each a set; docs-dev's two sites as
guards): the file cards, a file whose name the question uses, a file with several matching
chunks, tests and examples lowered, each further chunk of a listed file counted less, and
files the symbol table links to the best ones (issue 68; docs/benchmarks.md).
"""

import dataclasses

from ragspace.ranking.ranker import RankingOptions


def keyword_only_ranking(hybrid: RankingOptions | None = None) -> RankingOptions:
    """The options for a search without a vector side, from the hybrid ones (their fusion
    settings kept: with one side, only its scaling matters)."""
    return dataclasses.replace(
        hybrid or RankingOptions(),
        file_weight=0.5,
        lift_best_chunk=True,
        file_confidence_power=2.0,
        definition_boost=0.0,
        name_boost=0.5,
        coherence_boost=0.2,
        secondary_factor=0.3,
        file_decay=0.5,
        neighbour_weight=0.3,
        document_weight=0.0,
        sub_question_weight=0.0,
    )
