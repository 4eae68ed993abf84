"""A question as every front end asks it, and the same question bound to its DocSets."""

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ragspace.models.answers import Message
from ragspace.models.search import RetrievalMode

SEARCH_LIMIT = 8  # hits a search returns unless asked for another number
MAX_SEARCH_LIMIT = 50


@dataclass(frozen=True, kw_only=True)
class SearchQuery:
    """One search or question, built by a front end and carried down to the retriever.

    `limit` is what the caller gets: at most this many hits (search) or passages (an
    answer). How deep the retriever ranks to get them (the reranker's candidates, each
    search side's candidates) is the retrieval's business, not the caller's.
    """

    question: str
    docsets: tuple[str, ...] = ()  # DocSet names; empty: every searchable DocSet
    mode: RetrievalMode | None = None  # None: the configured mode
    limit: int | None = None  # None: SEARCH_LIMIT hits, or the configured passages
    ref: str | None = None  # only this version of a versioned DocSet
    # the relevance floor: hits it judges no evidence are left out of a search...
    floor: bool = True
    # ...or returned marked `hidden`, to see what it hid (search only)
    show_hidden: bool = False
    rerank: bool = True  # an answer's passages reordered by the chat model, when there is one
    history: tuple[Message, ...] = ()  # earlier turns of a conversation (answers)
    max_tokens: int | None = None  # an answer's passages within this many tokens

    def within(self, docset_ids: Iterable[int]) -> "ScopedQuery":
        """The query bound to the DocSets it searches (the actions check them first)."""
        return ScopedQuery(query=self, docset_ids=tuple(docset_ids))


@dataclass(frozen=True, kw_only=True)
class ScopedQuery:
    """A SearchQuery with its DocSets resolved to ids: what the retriever and the answer
    pipeline take."""

    query: SearchQuery
    docset_ids: tuple[int, ...]

    def asking(self, question: str) -> "ScopedQuery":
        """The same search for another wording of the question (a standalone rewrite)."""
        return replace(self, query=replace(self.query, question=question))
