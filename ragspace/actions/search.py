"""Search actions: the best chunks for a query, with or without the relevance floor."""

from collections.abc import Sequence

from ragspace.actions.expansion import ExpandedHit, HitExpansion, Unit
from ragspace.actions.scope import SearchScope
from ragspace.actions.validation import valid_query
from ragspace.models import Hit, RetrievalMode
from ragspace.search.retrieval import RelevanceFloor, Retriever

MAX_K = 50


class SearchActions:
    """Ranked passages within the DocSets a caller selects."""

    def __init__(
        self,
        retriever: Retriever,
        scope: SearchScope,
        floor: RelevanceFloor,
        expansion: HitExpansion | None = None,
    ) -> None:
        self._retriever = retriever
        self._scope = scope
        self._floor = floor
        self._expansion = expansion

    def expand(self, hits: Sequence[Hit], unit: Unit) -> list[ExpandedHit]:
        """The whole sections (docs) or definitions (code) around hits, each once."""
        if self._expansion is None:
            raise RuntimeError("SearchActions was built without a HitExpansion")
        return self._expansion.expand(hits, unit)

    @property
    def default_mode(self) -> RetrievalMode:
        """The configured retrieval mode."""
        return self._retriever.options.mode

    def hits(
        self,
        query: str,
        docset_names: Sequence[str] | None = None,
        k: int = 8,
        mode: RetrievalMode | None = None,
        ref: str | None = None,
    ) -> list[Hit]:
        """The k best chunks for the query within the selected DocSets (all if None).

        With `ref`, only documents indexed at that GitHub ref are searched; a ref that is
        not indexed is an error naming those that are.
        """
        return self._search(query, docset_names, k, mode, ref, measured=False)

    def relevant_hits(
        self,
        query: str,
        docset_names: Sequence[str] | None = None,
        k: int = 8,
        ref: str | None = None,
    ) -> list[Hit]:
        """`hits` without those below the relevance floor, each with its similarity.

        Every hit gets its cosine similarity to the query (hybrid search measures it only
        for the vector side's candidates); the floor that lets `ask` refuse a question then
        judges each hit, so an assistant never sees passages too far from the query.
        """
        query = valid_query(query)
        hits = self._search(query, docset_names, k, None, ref, measured=True)
        return [hit for hit in hits if self._floor.admits(hit, query)]

    def _search(
        self,
        query: str,
        docset_names: Sequence[str] | None,
        k: int,
        mode: RetrievalMode | None,
        ref: str | None,
        measured: bool,
    ) -> list[Hit]:
        query = valid_query(query)
        docsets = self._scope.searchable(docset_names)
        ref = self._scope.checked_ref(docsets, ref, named=bool(docset_names))
        docset_ids = [d.id for d in docsets]
        if not docset_ids:
            return []
        k = max(1, min(k, MAX_K))
        return self._retriever.search(query, docset_ids, k, mode, ref=ref, measured=measured)
