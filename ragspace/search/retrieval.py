"""Search a set of DocSets: vector, keyword (full-text) or hybrid (both, fused into one ranking)."""

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ragspace.embedding.embedders import Embedder
from ragspace.errors import VectorsPendingError
from ragspace.models import Hit, RetrievalMode, ScopedQuery
from ragspace.ranking.candidates import Candidate, Side
from ragspace.ranking.options import RankingOptions, fusion_only
from ragspace.ranking.ranker import rank
from ragspace.ranking.selection import hit_is_prose
from ragspace.search.keyword_ranking import for_candidates, keyword_only_ranking
from ragspace.settings import EXACT_SEARCH_MAX_CHUNKS, HNSW_EF_SEARCH, RETRIEVAL_CANDIDATES
from ragspace.store import SearchRequest, Store
from ragspace.text.terms import covers

MAX_KEYWORD_TERMS = 32
# identifiers (snake_case, dotted.names, kebab-case flags) or plain words
_TERM = re.compile(r"\w[\w.\-]*\w|\w", re.UNICODE)


@dataclass(frozen=True)
class RetrievalOptions:
    """Tuning of one search; the defaults come from settings."""

    mode: RetrievalMode = RetrievalMode.HYBRID
    candidates: int = RETRIEVAL_CANDIDATES
    ranking: RankingOptions = field(default_factory=RankingOptions)
    # a search with only its keyword side (keyword mode; hybrid before the vectors are in)
    keyword_ranking: RankingOptions = field(default_factory=keyword_only_ranking)
    ef_search: int = HNSW_EF_SEARCH
    exact_max_chunks: int = EXACT_SEARCH_MAX_CHUNKS  # exact vector ranking up to this many


def keyword_terms(text: str) -> list[str]:
    """The distinct words and identifiers of a query; chunks matching any of them compete."""
    terms: list[str] = []
    for term in _TERM.findall(text):
        term = term.strip(".-")
        if term and term.lower() not in terms:
            terms.append(term.lower())
    return terms[:MAX_KEYWORD_TERMS]


def _uses_vector(mode: RetrievalMode) -> bool:
    """True when a search in this mode has a vector side (hybrid or vector)."""
    return mode in (RetrievalMode.HYBRID, RetrievalMode.VECTOR)


class Retriever:
    """Runs searches against the store with the configured embedder."""

    def __init__(self, store: Store, embedder: Embedder, options: RetrievalOptions) -> None:
        self._store = store
        self._embedder = embedder
        self.options = options

    def search(self, scoped: ScopedQuery, depth: int, measured: bool = False) -> list[Hit]:
        """The `depth` best chunks for the query's question in its DocSets (in its mode, at
        its ref), at most one per prose section; each side offers `candidates` (at least
        `depth`).

        With a ref, only chunks of documents synced at that GitHub ref compete. With
        `measured`, every hit with a vector carries its similarity (`with_similarity`),
        measured with the query vector the search already embedded.
        """
        query, docset_ids = scoped.query, scoped.docset_ids
        question, mode = query.question, query.mode
        request = self._request(question, docset_ids, depth, mode, query.ref, embed=False)
        # the query is embedded while the keyword side already searches
        vector = functools.cache(lambda: self._embedder.embed([question])[0])
        uses_vector = _uses_vector(mode or self.options.mode)
        hits = self._ranked(question, request, depth, embed=vector if uses_vector else None)
        if not hits and uses_vector and not request.keyword_terms:
            self._refuse_unembedded(docset_ids)
        return (
            self.with_similarity(question, hits, vector() if uses_vector else None)
            if measured
            else hits
        )

    def _refuse_unembedded(self, docset_ids: Sequence[int]) -> None:
        """Vector search found nothing: say so when chunks are still waiting for vectors
        (found by keywords meanwhile) rather than answer with nothing."""
        waiting = self._store.chunks.without_vectors(docset_ids)
        if waiting:
            raise VectorsPendingError(
                f"Vector search found nothing: {waiting:,} chunk(s) of the selected DocSets "
                "have no vectors yet (they are still being embedded). Keyword and hybrid "
                "search already find them; vector search will once the Embedding status tab "
                "(or `ragspace status`) shows every document done."
            )

    def candidates(
        self,
        query: str,
        docset_ids: Sequence[int],
        depth: int,
        mode: RetrievalMode | None = None,
        ref: str | None = None,
    ) -> list[Candidate]:
        """What each side offers (at most `depth` chunks a side), before ranking."""
        return self._store.chunks.search(self._request(query, docset_ids, depth, mode, ref))

    def with_similarity(
        self, query: str, hits: Sequence[Hit], vector: npt.NDArray[np.float32] | None = None
    ) -> list[Hit]:
        """The hits, each with its cosine similarity to the query where it has a vector.

        Hybrid search measures similarity only for the vector side's candidates; a hit the
        keyword side alone brought in gets it here (one lookup, and one query embedding
        unless the query's `vector` is given).
        """
        missing = [hit.chunk_id for hit in hits if hit.vector_similarity is None]
        if not missing:
            return list(hits)
        if vector is None:
            vector = self._embedder.embed([query])[0]
        measured = self._store.chunks.similarities(missing, vector, self._embedder.dimensions)
        return [
            hit.model_copy(update={"vector_similarity": measured[hit.chunk_id]})
            if hit.chunk_id in measured
            else hit
            for hit in hits
        ]

    def fused(
        self,
        query: str,
        docset_ids: Sequence[int],
        k: int,
        mode: RetrievalMode | None = None,
    ) -> list[Hit]:
        """The k best chunks as fusion ranks them, several per section allowed (for comparison)."""
        request = self._request(query, docset_ids, k, mode)
        return self._ranked(query, request, k, per_section=False)

    def _ranked(
        self,
        query: str,
        request: SearchRequest,
        depth: int,
        per_section: bool = True,
        embed: Callable[[], npt.NDArray[np.float32]] | None = None,
    ) -> list[Hit]:
        """Rank the request's candidates; with `embed` the request has no vector yet and
        `embed` gives it (called once the keyword side runs)."""
        uses_vector = embed is not None or request.query_vector is not None
        candidates = self._store.chunks.search(request, embed)
        # a hybrid search whose vector side offered nothing (no vectors embedded yet) is a
        # keyword-only search, ranked as one
        offered = uses_vector and any(Side.VECTOR in c.evidence for c in candidates)
        ranking = self._ranking(bool(request.keyword_terms), offered)
        if ranking is self.options.keyword_ranking:
            ranking = for_candidates(ranking, candidates)
        return rank(candidates, ranking, query, depth, per_section, self._store.symbol_links)

    def _ranking(self, uses_keywords: bool, uses_vectors: bool = True) -> RankingOptions:
        """Hybrid search ranks with every signal; the keyword side alone with every signal
        that needs no vector (keyword_ranking.py); the vector side alone as it ranks
        (fusion_only)."""
        if uses_keywords and uses_vectors:
            return self.options.ranking
        if uses_keywords:
            return self.options.keyword_ranking
        return fusion_only(self.options.ranking)

    def _request(
        self,
        query: str,
        docset_ids: Sequence[int],
        depth: int,
        mode: RetrievalMode | None,
        ref: str | None = None,
        embed: bool = True,
    ) -> SearchRequest:
        """The search for `query`; with `embed` False, without its vector (the caller gives
        the store a way to embed it later)."""
        mode = mode or self.options.mode
        use_vector = embed and _uses_vector(mode)
        use_keywords = mode in (RetrievalMode.HYBRID, RetrievalMode.KEYWORD)
        # the file side only when the ranking reads it, or the keyword-only ranking a hybrid
        # search falls back to before its vectors are in
        rankings = [self._ranking(use_keywords, _uses_vector(mode))]
        if use_keywords:
            rankings.append(self.options.keyword_ranking)
        return SearchRequest(
            docset_ids=docset_ids,
            dimensions=self._embedder.dimensions,
            query_vector=self._embedder.embed([query])[0] if use_vector else None,
            keyword_terms=keyword_terms(query) if use_keywords else (),
            candidates=max(depth, self.options.candidates),
            files=use_keywords and any(r.file_weight > 0 for r in rankings),
            ef_search=max(depth, self.options.ef_search),
            exact_max_chunks=self.options.exact_max_chunks,
            ref=ref,
        )


@dataclass(frozen=True)
class RelevanceFloor:
    """When some hit is evidence enough for a question to be answerable.

    A hit is evidence when its cosine similarity reaches its kind's floor, or when it holds
    every term of the question (a hit still waiting for its vector: only then). A question
    meets prose at higher cosines than code (on-topic code questions score as low as
    off-topic questions against prose), so prose and code hits have their own floors; a
    short or mixed chunk that names everything asked is evidence whatever its cosine.
    """

    prose: float = 0.0
    code: float = 0.0

    def admits(self, hit: Hit, question: str) -> bool:
        """The hit is close enough to the question to count as an answer's evidence."""
        if hit.vector_similarity is None:  # waiting for its vector: only its words can tell
            return covers(hit.content, question)
        floor = self.prose if hit_is_prose(hit) else self.code
        return hit.vector_similarity >= floor or covers(hit.content, question)

    def refuses(self, hits: Sequence[Hit], question: str) -> bool:
        """No hit is evidence (keyword-only hits carry no similarity: never refused)."""
        similar = [h for h in hits if h.vector_similarity is not None]
        return bool(similar) and not any(self.admits(h, question) for h in similar)


def relevant(hits: Sequence[Hit], min_similarity: float) -> list[Hit]:
    """Hits that matched a keyword or are semantically close enough to count as evidence."""
    return [
        hit
        for hit in hits
        if hit.keyword_rank is not None
        or (hit.vector_similarity is not None and hit.vector_similarity >= min_similarity)
    ]
