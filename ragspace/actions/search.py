"""Search actions: the best chunks for a query, judged by the relevance floor."""

from collections.abc import Sequence
from dataclasses import replace

from ragspace.actions.expansion import ExpandedHit, HitExpansion, Unit
from ragspace.actions.scope import SearchScope
from ragspace.actions.symbol_hits import symbol_hits
from ragspace.actions.symbols import SymbolActions
from ragspace.models import MAX_SEARCH_LIMIT, SEARCH_LIMIT, Hit, RetrievalMode, SearchQuery
from ragspace.search.retrieval import RelevanceFloor, Retriever


class SearchActions:
    """Ranked passages within the DocSets a caller selects."""

    def __init__(
        self,
        retriever: Retriever,
        scope: SearchScope,
        floor: RelevanceFloor,
        expansion: HitExpansion | None = None,
        symbols: SymbolActions | None = None,
    ) -> None:
        self._retriever = retriever
        self._scope = scope
        self._floor = floor
        self._expansion = expansion
        self._symbols = symbols

    def expand(self, hits: Sequence[Hit], unit: Unit) -> list[ExpandedHit]:
        """The whole sections (docs) or definitions (code) around hits, each once."""
        if self._expansion is None:
            raise RuntimeError("SearchActions was built without a HitExpansion")
        return self._expansion.expand(hits, unit)

    @property
    def default_mode(self) -> RetrievalMode:
        """The configured retrieval mode."""
        return self._retriever.options.mode

    def hits(self, query: SearchQuery) -> list[Hit]:
        """The query's best chunks (at most its `limit`, 1 to 50), each with its cosine
        similarity to the question (None: no vector yet); what every front end's search
        returns.

        The relevance floor that lets `ask` refuse a question judges each hit: those it
        finds no evidence are left out, or kept and marked `hidden` when the query asks to
        see them (`show_hidden`); a query with `floor` off gets the ranking as it is (for
        evaluation: similarities only where the vector side measured them). A navigation
        question ("what calls X", "where is X defined") gets the chunks at the places the
        symbol table gives, as `ask` answers it (symbol_hits.py). With
        a ref, only documents indexed at that GitHub ref are searched; a ref that is not
        indexed is an error naming those that are.
        """
        limit = max(1, min(query.limit or SEARCH_LIMIT, MAX_SEARCH_LIMIT))
        scoped, docsets = self._scope.scoped(replace(query, limit=limit))
        if not scoped.docset_ids:
            return []
        if self._symbols is not None and query.floor:
            places = symbol_hits(self._symbols, self._retriever, scoped, docsets, limit)
            if places is not None:
                return places
        # the floor judges similarities: measured for every hit, the keyword side's too
        found = self._retriever.search(scoped, limit, measured=query.floor)
        if not query.floor:
            return found
        question = scoped.query.question
        judged = [
            hit if self._floor.admits(hit, question) else hit.model_copy(update={"hidden": True})
            for hit in found
        ]
        return judged if query.show_hidden else [hit for hit in judged if not hit.hidden]
