"""Answer actions: a streamed or whole answer with verified citations."""

from collections.abc import Iterator, Sequence

from ragspace.actions.scope import SearchScope
from ragspace.actions.symbols import SymbolActions
from ragspace.actions.validation import valid_query
from ragspace.answering.answer import AnswerPipeline
from ragspace.models import Answer, AnswerBudget, AnswerUpdate, Message, RetrievalMode


class AnswerActions:
    """Questions answered from the DocSets a caller selects."""

    def __init__(
        self, pipeline: AnswerPipeline, scope: SearchScope, symbols: SymbolActions | None = None
    ) -> None:
        self._pipeline = pipeline
        self._scope = scope
        self._symbols = symbols

    def ask(
        self,
        question: str,
        docset_names: Sequence[str] | None = None,
        history: Sequence[Message] = (),
        mode: RetrievalMode | None = None,
        rerank: bool = True,
        ref: str | None = None,
        budget: AnswerBudget | None = None,
    ) -> Iterator[AnswerUpdate]:
        """A streamed answer with verified citations; the last update carries the Answer.

        Reranked when asked, a chat model is configured and every DocSet searched keeps
        reranking on (a DocSet whose evaluation showed it hurting can turn it off). "Where is
        X defined" and "what calls X" are answered from the symbol table when it knows X.
        """
        question = valid_query(question)
        docsets = self._scope.searchable(docset_names)
        ref = self._scope.checked_ref(docsets, ref, named=bool(docset_names))
        if self._symbols is not None:
            limit = budget.passages if budget and budget.passages else 10
            found = self._symbols.answer(question, docsets, ref, limit)
            if found is not None:
                return iter([AnswerUpdate(text=found.text, done=True, answer=found)])
        docset_ids = [d.id for d in docsets]
        rerank = rerank and all(d.rerank for d in docsets)
        return self._pipeline.stream(question, docset_ids, history, mode, rerank, ref, budget)

    def answer(
        self,
        question: str,
        docset_names: Sequence[str] | None = None,
        history: Sequence[Message] = (),
        mode: RetrievalMode | None = None,
        rerank: bool = True,
        ref: str | None = None,
        budget: AnswerBudget | None = None,
    ) -> Answer:
        """The final answer of `ask`, without streaming."""
        *_, last = self.ask(question, docset_names, history, mode, rerank, ref, budget)
        assert last.answer is not None
        return last.answer
