"""How a search hit or a cited passage is shown, the same way by every front end.

`ragspace search --json`, the MCP tools (and the app's HTTP API, the same functions) and the
Chat tab's Sources panel build their hits here: one set of field names and one meaning of
`score`, the cosine similarity the relevance floor judges; the ranking's own score, which
orders the hits, is `rank_score`. Answers (`ragspace ask --json`, MCP `ask`) are shown by
`answer_view`: the text without the sources list an extractive answer ends with, since the
citations are the sources.
"""

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from ragspace.actions.hit_reasons import why
from ragspace.answering.answer import without_sources
from ragspace.answering.citations import cite, hit_passage, version_data
from ragspace.links import citation_link, view_url
from ragspace.models import Answer, Citation, Hit, Passage, Verification

SCORE = (
    "Cosine similarity of the question and the passage under the embedding model, 0 to 1 "
    "(higher is closer in meaning; with the bundled model about 0.5 and up is close, 0.3 "
    "loosely related): what the relevance floor judges. Null while the chunk waits for its "
    "vector. The hits are in the ranking's order (rank_score), which also weighs exact "
    "words, so score need not fall from one hit to the next."
)
RANK_SCORE = (
    "The ranking's own score, which orders the hits (higher first). Hybrid search adds each "
    "side's score scaled to 0-1 over its candidates, weighed, and lifts (a defined symbol the "
    "question names, the document's and the file's own match) in fractions of the best "
    "score, so its scale depends on the question and the settings: compare it between hits "
    "of one result only."
)
HIDDEN = (
    "True for a hit below the relevance floor (no evidence for the question), returned only "
    "when the search asked to see what the floor hid (show_hidden); false otherwise."
)
DIGITS = 4  # scores are rounded alike everywhere, so front ends show the same figures


class Location(BaseModel):
    """Where a hit or cited passage lives: DocSet, path, lines, links, version."""

    model_config = ConfigDict(frozen=True)

    number: int = Field(description="1-based position in this result, best first; [n].")
    docset: str = Field(description="The DocSet the document belongs to.")
    title: str
    path: str = Field(description="The document's path, as read_document takes it.")
    start_line: int = Field(description="First line of the passage, 1-based.")
    end_line: int = Field(description="Last line of the passage, inclusive.")
    focus_start_line: int = Field(description="First of the lines that match best.")
    focus_end_line: int = Field(description="Last of the lines that match best.")
    url: str | None = Field(description="Those lines at their origin (GitHub: the commit).")
    view_url: str | None = Field(description="Those lines in the app's viewer.")
    ref: str | None = Field(description="The GitHub ref of the lines (None: unversioned).")
    resolved_sha: str | None = Field(description="The commit the ref resolved to.")
    indexed_at: str | None = Field(description="When that version was indexed.")

    @property
    def version(self) -> str:
        """`v3.0 @ 1a2b3c4d5e6f`, or '' for lines without versions."""
        return f"{self.ref} @ {(self.resolved_sha or '?')[:12]}" if self.ref else ""


class HitView(Location):
    """A search hit (or an answer's cited passage) as every front end shows it."""

    label: str = Field(description="`path (lines a-b)`, pages for PDFs, cells for notebooks.")
    context: str = Field(description="The heading path or enclosing symbol.")
    snippet: str = Field(description="The passage from its best-matching lines on, cut.")
    score: float | None = Field(description=SCORE)
    rank_score: float = Field(description=RANK_SCORE)
    why: str = Field(description="Why it was returned: symbols or words matched, closeness.")
    hidden: bool = Field(description=HIDDEN)


class CitationView(Location):
    """An answer's citation: where it points and whether its quote was found there."""

    verification: Verification | None = Field(
        description="verified, paraphrased, unsupported, or null: cited without a quote."
    )
    quote: str = Field(description="The answer's quote backing the citation, shortened.")


class AnswerView(BaseModel):
    """An answer as `ask` returns it: the text and where each citation points."""

    model_config = ConfigDict(frozen=True)

    answer: str = Field(description="The answer with [n] markers (no sources list).")
    citations: list[CitationView]
    notes: list[str]
    truncated: bool = Field(description="True when max_tokens dropped passages.")
    dropped_passages: int


QUOTE_CHARS = 160  # an ask citation's quote: enough to recognise, never a second snippet


def rounded(value: float | None) -> float | None:
    """A score as every front end shows it."""
    return None if value is None else round(value, DIGITS)


def similarity_score(similarity: float | None) -> float | None:
    """`score`: the cosine similarity on 0-1, rounded (None: not measured)."""
    return rounded(None if similarity is None else min(1.0, max(0.0, similarity)))


def location(citation: Citation, docset: str, title: str, app_url: str | None = None) -> Location:
    """Where a cited passage lives; `view_url` needs the app's address."""
    viewer = view_url(app_url, citation_link(docset, citation)) if app_url else None
    return Location(
        number=citation.number,
        docset=docset,
        title=title,
        path=citation.path,
        start_line=citation.start_line,
        end_line=citation.end_line,
        focus_start_line=citation.focus_start_line,
        focus_end_line=citation.focus_end_line,
        url=citation.url,
        view_url=viewer,
        **version_data(citation),
    )


def hit_view(hit: Hit, number: int, question: str, app_url: str | None = None) -> HitView:
    """Hit `number` of a search for `question`."""
    passage = hit_passage(hit, number)
    return _view(cite(passage), passage, question, app_url, hit.hidden)


def hit_views(hits: Sequence[Hit], question: str, app_url: str | None = None) -> list[HitView]:
    """A search's hits numbered from 1 in rank order."""
    return [hit_view(hit, number, question, app_url) for number, hit in enumerate(hits, 1)]


def cited_view(
    citation: Citation, passage: Passage, question: str, app_url: str | None = None
) -> HitView:
    """An answer's cited passage shown as a hit (the Sources panel): its citation's
    focused snippet, the passage's best chunk's scores."""
    return _view(citation, passage, question, app_url)


def _view(
    citation: Citation,
    passage: Passage,
    question: str,
    app_url: str | None,
    hidden: bool = False,
) -> HitView:
    return HitView(
        **location(citation, passage.docset_name, passage.title, app_url).model_dump(),
        label=citation.label,
        context=citation.context,
        snippet=citation.snippet,
        score=similarity_score(passage.similarity),
        rank_score=round(passage.score, DIGITS),
        why=why(question, passage.content, passage.metadata, passage.similarity),
        hidden=hidden,
    )


def source_views(answer: Answer, question: str, app_url: str | None = None) -> list[HitView]:
    """The cited passages of an answer, in citation order."""
    passages = {p.number: p for p in answer.passages}
    return [
        cited_view(c, passages[c.number], question, app_url)
        for c in answer.citations
        if c.number in passages
    ]


def short_quote(quote: str) -> str:
    """A quote cut to QUOTE_CHARS at a space, marked with an ellipsis (code keeps its lines)."""
    if len(quote) <= QUOTE_CHARS:
        return quote
    cut = quote.rfind(" ", 0, QUOTE_CHARS)
    return quote[: cut if cut > QUOTE_CHARS // 2 else QUOTE_CHARS].rstrip() + " …"


def answer_view(answer: Answer, app_url: str | None = None) -> AnswerView:
    """A lean answer: its text and where each citation points; passage text is not repeated."""
    passages = {p.number: p for p in answer.passages}
    citations = []
    for c in answer.citations:
        passage = passages[c.number]
        place = location(c, passage.docset_name, passage.title, app_url)
        citations.append(
            CitationView(
                **place.model_dump(), verification=c.verification, quote=short_quote(c.quote)
            )
        )
    return AnswerView(
        answer=without_sources(answer.text),
        citations=citations,
        notes=answer.notes,
        truncated=answer.dropped_passages > 0,
        dropped_passages=answer.dropped_passages,
    )
