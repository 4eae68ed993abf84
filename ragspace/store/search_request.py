"""What a search asks of the store: DocSets, the query's vector and terms, and the tuning."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragspace.models import Fusion
from ragspace.settings import EXACT_SEARCH_MAX_CHUNKS, HNSW_EF_SEARCH


@dataclass(frozen=True)
class SearchRequest:
    """What to search for and where; a missing vector or keyword query skips that side."""

    docset_ids: Sequence[int]
    dimensions: int
    k: int
    query_vector: np.ndarray[Any, np.dtype[np.float32]] | None = None
    keyword_terms: Sequence[str] = ()
    candidates: int = 50
    fusion: Fusion = Fusion.CONVEX
    # convex fusion: the vector side's share of a hit's score; the full-text side has the rest
    vector_share: float = 0.5
    rrf_k: int = 10
    # the full-text ranking's weight in RRF; the quality vectors' ranking weighs 1
    keyword_weight: float = 1.25
    ef_search: int = HNSW_EF_SEARCH
    # a selection of at most this many chunks is ranked by exact distance (vector_plan.py)
    exact_max_chunks: int = EXACT_SEARCH_MAX_CHUNKS
    # the query's fast-tier (static) vector: ranks chunks that have no quality vector yet
    fast_vector: np.ndarray[Any, np.dtype[np.float32]] | None = None
    # rank every chunk by its fast vector (evaluating the fast tier), not only fast-only ones
    fast_everywhere: bool = False
    # the fast ranking's weight in the fusion, against the quality vectors' (convex: its share
    # is this times the vector share; RRF: the quality and keyword rankings weigh 1)
    fast_weight: float = 1.0
    # only chunks of documents synced at this ref (a GitHub branch, tag or commit); None: all
    ref: str | None = None
