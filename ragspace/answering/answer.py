"""Answers: retrieve, optionally rerank, assemble passages, then extract or generate."""

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from ragspace.answering.citations import (
    cite,
    passage_label,
    passage_url,
    version_text,
)
from ragspace.answering.context import ContextBuilder
from ragspace.answering.focus import Lead, lead
from ragspace.answering.generated import generated_answer
from ragspace.answering.llm import ChatModel
from ragspace.answering.prompts import (
    ANSWER_SYSTEM,
    ANSWER_USER,
    REWRITE_SYSTEM,
    REWRITE_USER,
    passage_block,
    repo_map_block,
)
from ragspace.answering.rerank import Reranker
from ragspace.errors import LLMError
from ragspace.models import (
    Answer,
    AnswerUpdate,
    Citation,
    Hit,
    Message,
    Passage,
    RetrievalMode,
    ScopedQuery,
)
from ragspace.search.retrieval import RelevanceFloor, Retriever, relevant
from ragspace.settings.area import default_of
from ragspace.settings.retrieval import RetrievalSettings
from ragspace.symbols.questions import is_architecture_question
from ragspace.text.markdown_text import escape_markdown
from ragspace.text.tokens import leading_within

log = logging.getLogger(__name__)

NOTHING_FOUND = (
    "Nothing in the selected DocSets answers this, so I cannot answer it from them. "
    "Check that their documents have finished embedding, or rephrase the question."
)
MAP_INTRO = (
    "How the code is organised, from the repository map: its files with their main "
    "definitions, the most referenced first (`ragspace map` shows more)."
)
HISTORY_TURNS = 6
LEAD_PASSAGES = 3  # passages an extractive answer quotes a sentence of
# an extractive answer ends with its sources listed under this heading (for readers)
SOURCES_HEADING = "**Sources**\n\n"


def without_sources(text: str) -> str:
    """An answer's text without the sources list an extractive answer ends with (callers
    that return the citations as data need it only once)."""
    head, _, _ = text.partition("\n\n" + SOURCES_HEADING)
    return head


# The DocSets' repository map for a prompt (at a ref), '' when they have none.
RepoMapSource = Callable[[Sequence[int], str | None], str]


@dataclass(frozen=True)
class AnswerOptions:
    """How many passages an answer uses and when a hit counts as relevant."""

    passages: int = 6
    min_similarity: float = default_of(RetrievalSettings, "min_similarity")
    rerank_candidates: int = default_of(RetrievalSettings, "rerank_candidates")
    # no hit this close (cosine) to the question: nothing answers it (0: never refuse)
    relevance_floor: RelevanceFloor = field(default_factory=RelevanceFloor)


def fenced(text: str, language: str) -> str:
    """A markdown code block that no backticks inside the text can close early."""
    fence = "```"
    while fence in text:
        fence += "`"
    info = "" if language in {"text", "markdown", "rst", ""} else language
    return f"{fence}{info}\n{text}\n{fence}"


def extractive_answer(question: str, passages: list[Passage]) -> Answer:
    """An answer without a language model: the best sentences or lines of the top passages,
    verbatim with their [n], then the sources (each passage is shown once, in its citation)."""
    if not passages:
        return Answer(text=NOTHING_FOUND)
    citations = [cite(p, question) for p in passages]
    leads = _leads(question, passages)
    if leads:
        quoted, of = dict(leads), {p.number: p for p in passages}
        citations = [
            _quoted(c, quoted[c.number], of[c.number]) if c.number in quoted else c
            for c in citations
        ]
        parts = [_lead_markdown(best, of[number]) for number, best in leads]
    else:
        parts = ["No single sentence of the passages matches the question; see the sources:"]
    parts.append(
        SOURCES_HEADING
        + "\n".join(source_line(c, p) for c, p in zip(citations, passages, strict=True))
    )
    return Answer(text="\n\n".join(parts), citations=citations, passages=passages)


def map_answer(question: str, repo_map: str, passages: list[Passage]) -> Answer:
    """An architecture question answered without a model: the repository map (files and
    their main definitions, the most referenced first), then what the passages say."""
    parts = [MAP_INTRO, fenced(repo_map, "text")]
    if not passages:
        return Answer(text="\n\n".join(parts))
    found = extractive_answer(question, passages)
    return found.model_copy(update={"text": "\n\n".join([*parts, found.text])})


def _quoted(citation: Citation, best: Lead, passage: Passage) -> Citation:
    """The citation verified by its lead quote and focused on the quoted lines; a snippet
    the quote holds whole is dropped, so a short passage is not shown twice (the answer
    already quotes all of it)."""
    body = " ".join(citation.snippet.removeprefix("…\n").removesuffix("\n…").split())
    snippet = "" if body in " ".join(best.text.split()) else citation.snippet
    lines = (best.start_line, best.end_line)
    update: dict[str, object] = {
        "verification": "verified",
        "quote": best.text,
        "snippet": snippet,
        "focus_start_line": lines[0],
        "focus_end_line": lines[1],
        "url": passage_url(passage, lines),
    }
    return citation.model_copy(update=update)


def _leads(question: str, passages: Sequence[Passage]) -> list[tuple[int, Lead]]:
    """(passage number, lead) of the best sentences or lines of the top passages."""
    found: list[tuple[int, Lead]] = []
    for passage in passages[:LEAD_PASSAGES]:
        best = lead(passage, question)
        if best is not None and all(best.text != other.text for _, other in found):
            found.append((passage.number, best))
    return found


def _lead_markdown(best: Lead, passage: Passage) -> str:
    """A lead as the answer shows it: a sentence with its [n], or the code lines as a block
    under the definition they are in."""
    number = passage.number
    if not best.code:
        return f"{best.text} [{number}]"
    symbol = passage.metadata.get("symbol")
    where = f"In `{symbol}` [{number}]:" if symbol else f"[{number}]"
    return f"{where}\n{fenced(best.text, str(passage.metadata.get('language', '')))}"


def source_line(citation: Citation, passage: Passage) -> str:
    label = escape_markdown(citation.label)  # `__init__.py` must not turn bold
    where = f"[{label}]({citation.url})" if citation.url else label
    context = f" · {escape_markdown(citation.context)}" if citation.context else ""
    docset = escape_markdown(passage.docset_name)
    version = f" · ref `{version_text(citation)}`" if citation.ref else ""
    return f"- [{citation.number}] {where}{context} · DocSet *{docset}*{version}"


def format_passages(passages: Sequence[Passage]) -> str:
    """Passages delimited as data for the prompt; a passage cannot close its own tag."""
    return "\n\n".join(passage_block(p.number, _versioned_label(p), p.content) for p in passages)


def _versioned_label(passage: Passage) -> str:
    """The label, with the ref when the passage is from one (two refs may share a path)."""
    label = passage_label(passage)
    return f"{label} at ref {passage.ref}" if passage.ref else label


class AnswerPipeline:
    """Turns a question into a streamed, cited answer."""

    def __init__(
        self,
        retriever: Retriever,
        context: ContextBuilder,
        options: AnswerOptions,
        chat: ChatModel | None = None,
        reranker: Reranker | None = None,
        repo_map: RepoMapSource | None = None,
    ) -> None:
        self._retriever = retriever
        self._context = context
        self._options = options
        self._chat = chat
        self._reranker = reranker
        self._repo_map = repo_map

    @property
    def chat(self) -> ChatModel | None:
        """The chat model answers are written with, if any."""
        return self._chat

    @property
    def relevance_floor(self) -> RelevanceFloor:
        """When a hit counts as evidence for a question (also what search returns to agents)."""
        return self._options.relevance_floor

    @property
    def can_rerank(self) -> bool:
        """True when a reranker is configured."""
        return self._reranker is not None

    def reranked_search(self, scoped: ScopedQuery) -> list[Hit]:
        """The query's `limit` best hybrid hits after the reranker orders
        `rerank_candidates` of them."""
        limit = scoped.query.limit or self._options.passages
        hybrid = replace(scoped.query, mode=RetrievalMode.HYBRID)
        depth = max(limit, self._options.rerank_candidates)
        hits = self._retriever.search(replace(scoped, query=hybrid), depth)
        if self._reranker is not None:
            hits = self._reranker.rerank(scoped.query.question, hits)
        return hits[:limit]

    def stream(self, scoped: ScopedQuery) -> Iterator[AnswerUpdate]:
        """Partial answers as they are written, then one final update with citations.

        The query's rerank, limit (passages) and max_tokens shape the passages; with a
        history and a chat model, the question is searched as a standalone rewrite."""
        question, history = scoped.query.question, scoped.query.history
        passages, dropped = self.budgeted_passages(
            scoped.asking(self._standalone(question, history))
        )
        overview = (
            "" if self._chat else self._overview(question, scoped.docset_ids, scoped.query.ref)
        )
        if overview:
            answer = map_answer(question, overview, passages)
            yield AnswerUpdate(text=answer.text, done=True, answer=answer)
            return
        if not passages:
            answer = Answer(text=NOTHING_FOUND, dropped_passages=dropped)
            yield AnswerUpdate(text=NOTHING_FOUND, done=True, answer=answer)
            return
        if self._chat is None:
            answer = extractive_answer(question, passages)
            updates: Iterator[AnswerUpdate] = iter(
                [AnswerUpdate(text=answer.text, done=True, answer=answer)]
            )
        else:
            repo_map = self._map(question, scoped.docset_ids, scoped.query.ref)
            updates = self._generate(question, passages, history, repo_map)
        for update in updates:
            if update.answer is not None and dropped:
                answer = update.answer.model_copy(update={"dropped_passages": dropped})
                update = update.model_copy(update={"answer": answer})
            yield update

    def budgeted_passages(self, scoped: ScopedQuery) -> tuple[list[Passage], int]:
        """Relevant passages for the query (at most its `limit`, within its `max_tokens`),
        reranked when it asks and a reranker is configured, and how many the token budget
        left out.

        The budget keeps the leading (best) passages whose text fits, whole.
        """
        query = scoped.query
        rerank = query.rerank and self._reranker is not None
        wanted = query.limit or self._options.passages
        depth = max(wanted, self._options.rerank_candidates) if rerank else wanted
        found = self._retriever.search(scoped, depth)
        if self._options.relevance_floor.refuses(found, query.question):
            return [], 0
        hits = relevant(found, self._options.min_similarity)
        if rerank and self._reranker is not None:
            hits = self._reranker.rerank(query.question, hits)
        passages = self._context.passages(hits[:wanted], widen=self._chat is not None)
        if query.max_tokens is None:
            return passages, 0
        kept, _ = leading_within([p.content for p in passages], query.max_tokens)
        return passages[:kept], len(passages) - kept

    def _standalone(self, question: str, history: Sequence[Message]) -> str:
        if self._chat is None or not history:
            return question
        turns = "\n".join(f"{m['role']}: {m['content'][:1000]}" for m in history[-HISTORY_TURNS:])
        messages: list[Message] = [
            {"role": "system", "content": REWRITE_SYSTEM},
            {"role": "user", "content": REWRITE_USER.format(history=turns, question=question)},
        ]
        try:
            rewritten = self._chat.complete(messages, timeout=15).strip()
        except LLMError as exc:
            log.warning("Query rewriting failed, searching the question as asked: %s", exc)
            return question
        return rewritten or question

    def _overview(self, question: str, docset_ids: Sequence[int], ref: str | None) -> str:
        """The repository map for an architecture question ('' for any other question, or
        DocSets with no code)."""
        if self._repo_map is None or not is_architecture_question(question):
            return ""
        return self._repo_map(docset_ids, ref)

    def _map(self, question: str, docset_ids: Sequence[int], ref: str | None) -> str:
        """The repository map as a prompt's context for an architecture question."""
        text = self._overview(question, docset_ids, ref)
        return repo_map_block(text) if text else ""

    def _generate(
        self, question: str, passages: list[Passage], history: Sequence[Message], map_text: str
    ) -> Iterator[AnswerUpdate]:
        assert self._chat is not None
        messages: list[Message] = [
            {"role": "system", "content": ANSWER_SYSTEM},
            *history[-HISTORY_TURNS:],
            {
                "role": "user",
                "content": map_text
                + ANSWER_USER.format(passages=format_passages(passages), question=question),
            },
        ]
        return generated_answer(self._chat, messages, question, passages, extractive_answer)
