"""Answer actions: a streamed or whole answer with verified citations."""

from collections.abc import Iterator
from dataclasses import replace

from ragspace.actions.scope import SearchScope
from ragspace.actions.symbols import SymbolActions
from ragspace.answering.answer import NOTHING_FOUND, AnswerPipeline
from ragspace.answering.follow_up import standalone
from ragspace.models import Answer, AnswerUpdate, DocSet, SearchQuery
from ragspace.models.answers import note_above

SYMBOL_ANSWER_PLACES = 10  # places a symbol-table answer lists unless the query's limit says


class AnswerActions:
    """Questions answered from the DocSets a caller selects."""

    def __init__(
        self, pipeline: AnswerPipeline, scope: SearchScope, symbols: SymbolActions | None = None
    ) -> None:
        self._pipeline = pipeline
        self._scope = scope
        self._symbols = symbols

    def ask(self, query: SearchQuery) -> Iterator[AnswerUpdate]:
        """A streamed answer with verified citations; the last update carries the Answer.

        Reranked when the query asks, a chat model is configured and every DocSet searched
        keeps reranking on (a DocSet whose evaluation showed it hurting can turn it off).
        "Where is X defined" and "what calls X" are answered from the symbol table when it
        knows X. Without a chat model, a follow-up is made standalone first (follow_up.py).
        """
        asked = query.question
        if query.history and self._pipeline.chat is None:
            query = replace(query, question=standalone(asked, query.history))
        updates = self._updates(query)
        if query.question == asked:
            return updates
        return _noted(updates, f"Read as: {query.question}")

    def _updates(self, query: SearchQuery) -> Iterator[AnswerUpdate]:
        scoped, docsets = self._scope.scoped(query)
        if self._symbols is not None:
            limit = query.limit or SYMBOL_ANSWER_PLACES
            found = self._symbols.answer(scoped.query.question, docsets, scoped.query.ref, limit)
            if found is not None:
                return iter([AnswerUpdate(text=found.text, done=True, answer=found)])
        rerank = query.rerank and all(d.rerank for d in docsets)
        updates = self._pipeline.stream(replace(scoped, query=replace(scoped.query, rerank=rerank)))
        return self._explained(updates, docsets, selected=bool(query.docsets))

    def _explained(
        self, updates: Iterator[AnswerUpdate], docsets: list[DocSet], selected: bool
    ) -> Iterator[AnswerUpdate]:
        """The updates, a "nothing found" one saying why (no DocSets, still embedding...)."""
        for update in updates:
            if update.answer is not None and update.text == NOTHING_FOUND:
                text = self._scope.nothing_found(docsets, selected)
                answer = update.answer.model_copy(update={"text": text})
                update = update.model_copy(update={"text": text, "answer": answer})
            yield update

    def answer(self, query: SearchQuery) -> Answer:
        """The final answer of `ask`, without streaming."""
        *_, last = self.ask(query)
        assert last.answer is not None
        return last.answer


def _noted(updates: Iterator[AnswerUpdate], note: str) -> Iterator[AnswerUpdate]:
    """The updates with a note above each text (and first in the answer's notes)."""
    for update in updates:
        answer = update.answer.noted(note) if update.answer is not None else None
        yield update.model_copy(update={"text": note_above(update.text, note), "answer": answer})
