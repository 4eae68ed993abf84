"""Search a set of DocSets: vector, keyword (full-text) or hybrid (both, fused by RRF)."""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ragspace.embeddings import Embedder
from ragspace.models import Hit
from ragspace.store import SearchRequest, Store

MAX_KEYWORD_TERMS = 32
# identifiers (snake_case, dotted.names, kebab-case flags) or plain words
_TERM = re.compile(r"\w[\w.\-]*\w|\w", re.UNICODE)


class RetrievalMode(StrEnum):
    """Which search runs."""

    HYBRID = "hybrid"
    VECTOR = "vector"
    KEYWORD = "keyword"


@dataclass(frozen=True)
class RetrievalOptions:
    """Tuning of one search; the defaults come from settings."""

    mode: RetrievalMode = RetrievalMode.HYBRID
    candidates: int = 50
    rrf_k: int = 60
    ef_search: int = 400


def keyword_terms(text: str) -> list[str]:
    """The distinct words and identifiers of a query; chunks matching any of them compete."""
    terms: list[str] = []
    for term in _TERM.findall(text):
        term = term.strip(".-")
        if term and term.lower() not in terms:
            terms.append(term.lower())
    return terms[:MAX_KEYWORD_TERMS]


class Retriever:
    """Runs searches against the store with the configured embedder."""

    def __init__(self, store: Store, embedder: Embedder, options: RetrievalOptions) -> None:
        self._store = store
        self._embedder = embedder
        self.options = options

    def search(
        self,
        query: str,
        docset_ids: Sequence[int],
        k: int,
        mode: RetrievalMode | None = None,
    ) -> list[Hit]:
        """The k best chunks; in hybrid mode each side contributes `candidates` to the fusion."""
        mode = mode or self.options.mode
        use_vector = mode in (RetrievalMode.HYBRID, RetrievalMode.VECTOR)
        use_keywords = mode in (RetrievalMode.HYBRID, RetrievalMode.KEYWORD)
        request = SearchRequest(
            docset_ids=docset_ids,
            dimensions=self._embedder.dimensions,
            k=k,
            query_vector=self._embedder.embed([query])[0] if use_vector else None,
            keyword_terms=keyword_terms(query) if use_keywords else (),
            candidates=max(k, self.options.candidates),
            rrf_k=self.options.rrf_k,
            ef_search=max(k, self.options.ef_search),
        )
        return self._store.search(request)


def relevant(hits: Sequence[Hit], min_similarity: float) -> list[Hit]:
    """Hits that matched a keyword or are semantically close enough to count as evidence."""
    return [
        hit
        for hit in hits
        if hit.keyword_rank is not None
        or (hit.vector_similarity is not None and hit.vector_similarity >= min_similarity)
    ]
