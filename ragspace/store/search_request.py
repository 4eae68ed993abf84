"""What a search asks of the store: DocSets, the query's vector and terms, and the tuning."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragspace.settings import EXACT_SEARCH_MAX_CHUNKS, HNSW_EF_SEARCH, RETRIEVAL_CANDIDATES


@dataclass(frozen=True)
class SearchRequest:
    """What to search for and where; a missing vector or keyword query skips that side."""

    docset_ids: Sequence[int]
    dimensions: int
    query_vector: np.ndarray[Any, np.dtype[np.float32]] | None = None
    keyword_terms: Sequence[str] = ()
    candidates: int = RETRIEVAL_CANDIDATES
    # the keyword side also scores each document's card (path, headings, definitions)
    files: bool = False
    ef_search: int = HNSW_EF_SEARCH
    # a selection of at most this many chunks is ranked by exact distance (vector_plan.py)
    exact_max_chunks: int = EXACT_SEARCH_MAX_CHUNKS
    # only chunks of documents synced at this ref (a GitHub branch, tag or commit); None: all
    ref: str | None = None
