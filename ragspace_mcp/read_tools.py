"""The MCP tools that read: list DocSets and documents, search, ask, read, watch ingestion.

Each tool is a plain function of the actions and the tool's parameters, importable and
testable alone; `mcp_tools.register_mcp_tools` binds them to the app's actions and login.
Gradio turns each into an MCP tool named after the function; the docstring is the tool's
description and its Args the parameters' descriptions (one line each: Gradio reads one line
per parameter). Results are JSON text (`results`). No Gradio here: a tool that links to the
app's viewer takes `app_url`, which the web endpoint fills from the request (`mcp_tools.bind`)
and `ragspace mcp` from the settings.
"""

from collections.abc import Callable
from typing import TypeVar

from ragspace.actions import Actions
from ragspace.actions.expansion import UNITS, Unit
from ragspace.errors import ValidationError
from ragspace.models import SEARCH_LIMIT, SearchQuery
from ragspace.settings import LOCAL_RELEVANCE_FLOOR_CODE, LOCAL_RELEVANCE_FLOOR_PROSE
from ragspace_mcp.results import (
    answer_data,
    docset_data,
    document_data,
    expanded_data,
    progress_data,
    search_data,
    text_data,
    to_json,
)
from ragspace_mcp.symbol_tools import SYMBOL

# The one wording of the relevance floor in the tools' descriptions (values from settings)
RELEVANCE_FLOOR = (
    "Hits below the relevance floor (the score under which `ask` treats a passage as no "
    f"evidence; {LOCAL_RELEVANCE_FLOOR_PROSE:.2f} for prose and {LOCAL_RELEVANCE_FLOOR_CODE:.2f} "
    "for code with the bundled model, unless the server sets others) are not returned "
    "unless show_hidden asks for them"
)
ASK_LIMIT = 20  # passages an answer may draw on

Tool = TypeVar("Tool", bound=Callable[..., str])


def with_relevance_floor(tool: Tool) -> Tool:
    """Put RELEVANCE_FLOOR where a tool's docstring says {relevance_floor}."""
    tool.__doc__ = (tool.__doc__ or "").replace("{relevance_floor}", RELEVANCE_FLOOR)
    return tool


def list_docsets(actions: Actions) -> str:
    """List the DocSets (named collections of docs and code): call it first, for the names.

    Use the names with the `search` and `ask` tools. A DocSet with "searchable": false is
    being re-embedded and is skipped until that finishes.

    Returns:
        JSON list of DocSets: name, description, documents, chunks, searchable, notice,
        updated_at, sources (id, kind, location, last_synced_at, error) and refs (the
        GitHub versions indexed, each a value for the `ref` of search and ask, with
        resolved_sha and indexed_at).
    """
    return to_json([docset_data(actions, d) for d in actions.docsets.all()])


@with_relevance_floor
def search(
    actions: Actions,
    query: str,
    docsets: list[str] | None = None,
    k: int = SEARCH_LIMIT,
    max_tokens: int | None = None,
    ref: str | None = None,
    expand: str | None = None,
    show_hidden: bool = False,
    app_url: str | None = None,
) -> str:
    """Find the passages (code or docs) most relevant to a query: to read the sources yourself.

    For a written answer with citations use ask instead.

    Hybrid search: meaning (embeddings) and exact words (identifiers, error codes) fused,
    best first. Each hit's score is the cosine similarity of query and passage under the
    embedding model, from 0 to 1 (higher is closer in meaning; with the bundled model
    about 0.5 and up is close, 0.3 loosely related); the order is the ranking's
    (rank_score, comparable within one result only), which also weighs exact words, so
    scores need not fall monotonically. {relevance_floor}, so fewer than k (or none) is a
    real answer. Cite hits by their url (exact lines, GitHub links pinned to the commit);
    read_document with path, start_line and end_line reads more.

    Args:
        query: What to look for: a question, a concept, or identifiers such as function names.
        docsets: Names of DocSets to search (see list_docsets; one name is fine); omitted: all.
        k: At most this many hits, 1 to 50 (default 8).
        max_tokens: Cap on all snippets' tokens; whole hits cut from the end (omitted: none).
        ref: Only this version (GitHub branch, tag or commit) of a versioned DocSet;
            omitted: every version, each result says its ref.
        expand: "definition" (code) or "section" (docs): whole definitions or sections
            around the hits, grouped per file, instead of cut snippets; omitted: snippets.
        show_hidden: true: also return the hits below the relevance floor, marked hidden.

    Returns:
        JSON object: hits (best first: number, docset, title, path, start_line, end_line,
        focus_start_line, focus_end_line, url, view_url: the lines in the app's viewer,
        ref, resolved_sha, indexed_at, label, context, snippet, score, rank_score, why:
        the symbol or words that matched, hidden: below the relevance floor), tokens (of
        the snippets returned), truncated (true when max_tokens cut hits) and dropped_hits.
        With expand: files (docset, title, path, units: unit, label, start_line, end_line,
        url, hits, why, score, hidden, text), tokens, truncated and dropped_units.
    """
    unit = expansion_unit(expand)
    asked = SearchQuery(
        question=query,
        docsets=tuple(docsets or ()),
        limit=int(k),
        ref=ref or None,
        show_hidden=bool(show_hidden),
    )
    hits = actions.search.hits(asked)
    budget = None if max_tokens is None else int(max_tokens)
    if unit is None:
        return to_json(search_data(hits, budget, app_url, query))
    ranks = {hit.chunk_id: n for n, hit in enumerate(hits, start=1)}
    expanded = actions.search.expand(hits, unit)
    return to_json(expanded_data(expanded, ranks, budget, app_url, query))


def expansion_unit(expand: str | None) -> Unit | None:
    """The unit an `expand` value names ("sections", "function", "class" are understood)."""
    value = (expand or "").strip().lower().rstrip("s")
    if not value or value in ("none", "chunk", "snippet"):
        return None
    if value in ("section", "heading", "doc", "page"):
        return "section"
    if value in ("definition", "def", "function", "method", "clas", "symbol", "code"):
        return "definition"
    raise ValidationError(
        f"expand is {' or '.join(map(repr, UNITS))} (or omitted), not {expand!r}."
    )


def ask(
    actions: Actions,
    question: str,
    docsets: list[str] | None = None,
    k: int = 6,
    max_tokens: int | None = None,
    ref: str | None = None,
    app_url: str | None = None,
) -> str:
    """Answer a question from the DocSets with numbered citations [n]: for a written answer.

    To see the passages themselves use search.

    Without a chat model configured on the server the answer is extractive (the best
    sentences of the passages, verbatim, each cited). Every [n] in the answer matches an
    entry of "citations", which says where the passage is (no passage text: read it with
    read_document). "verification" says whether the quote backing it was found in the
    cited lines ("verified"), only nearly ("paraphrased"), not ("unsupported"), or null
    when the passage is cited as a source without a quote.

    Args:
        question: The question, in natural language.
        docsets: Names of the DocSets to use (see list_docsets; one name is fine); omitted: all.
        k: At most this many passages to answer from and cite, 1 to 20 (default 6).
        max_tokens: Cap on the tokens of the passages used; whole ones cut (omitted: none).
        ref: Only this version (GitHub branch, tag or commit) of a versioned DocSet.

    Returns:
        JSON object: answer (text with [n] markers), citations (number, docset, title,
        path, start_line, end_line, focus_start_line and focus_end_line: the lines the url
        points at, url, view_url: the lines in the app's viewer, verification, quote: at
        most 160 characters), notes, truncated
        (true when max_tokens dropped passages) and dropped_passages.
    """
    asked = SearchQuery(
        question=question,
        docsets=tuple(docsets or ()),
        limit=max(1, min(int(k), ASK_LIMIT)),
        ref=ref or None,
        max_tokens=None if max_tokens is None else max(0, int(max_tokens)),
    )
    return to_json(answer_data(actions.answers.answer(asked), app_url))


def list_documents(actions: Actions, docset: str) -> str:
    """List a DocSet's documents and their ingestion state: to browse what it holds.

    Args:
        docset: Name of the DocSet (see list_docsets).

    Returns:
        JSON list of documents: path, title, language, status, chunks, error and updated_at.
    """
    return to_json([document_data(d) for d in actions.documents.all(docset)])


def read_document(
    actions: Actions,
    docset: str,
    path: str,
    start_line: int = 1,
    end_line: int | None = None,
    ref: str | None = None,
) -> str:
    """Read a document's lines: after search or ask, for a cited range or more context.

    Args:
        docset: Name of the DocSet (see list_docsets).
        path: The document's path, as given by search, ask or list_documents.
        start_line: First line to return, 1-based (default 1).
        end_line: Last line to return, inclusive; omitted: to the end of the document.
            At most 1,000 lines and 50,000 characters come back at once; "continuation"
            then says which lines to read next (null when the range was returned whole).
        ref: The version (as search and ask give it) when the path is at several refs.

    Returns:
        JSON object: docset, path, title, language, start_line, end_line, total_lines,
        text and continuation.
    """
    read = actions.documents.read(
        docset, path, int(start_line), None if end_line is None else int(end_line), ref or None
    )
    return to_json(text_data(read))


def job_status(
    actions: Actions,
    docset: str = "",
    source_id: int | None = None,
) -> str:
    """Ingestion progress of a source, a DocSet, or everything: poll it after a change.

    Adding or syncing a source fetches its files at once; embedding them runs in the
    background. Poll (every few seconds) until "done" is true; documents in "error" are
    finished too, with the reason in list_documents.

    Args:
        docset: Name of a DocSet (see list_docsets); empty: every DocSet.
        source_id: A source's id (from add_*_source or list_docsets); omitted: whole DocSet.

    Returns:
        JSON object: done (true when no document is pending or processing), documents
        (total, pending, processing, done, error) and chunks (embedded, total: the total
        grows while pending documents are chunked).
    """
    progress = actions.documents.ingestion_status(
        docset or None, None if source_id is None else int(source_id)
    )
    return to_json(progress_data(progress))


# the code navigation tools (symbol table) read too: listed and bound with these
READ = (list_docsets, search, ask, list_documents, read_document, job_status, *SYMBOL)
