"""MCP tools (and the public HTTP API): thin wrappers over Actions for assistants.

Gradio turns each function registered here with `gr.api` into an MCP tool named after the
function; the docstring is the tool's description and its Args the parameters' descriptions
(one line each: Gradio reads one line per parameter). Results are JSON text, which every MCP
client passes to the assistant as it is. Annotations and server instructions: mcp_server.py.
"""

import json
from collections.abc import Callable
from typing import Any

import gradio as gr
from gradio.events import api as gradio_api
from gradio.route_utils import get_root_url
from gradio.utils import get_function_description
from starlette.requests import Request as StarletteRequest

from ragspace.access import AUTH_HEADER, Credentials
from ragspace.actions import Actions
from ragspace.answering.answer import without_sources
from ragspace.answering.citations import cite_hit, version_data
from ragspace.errors import AuthenticationError
from ragspace.links import citation_link, view_url
from ragspace.models import (
    Answer,
    AnswerBudget,
    Citation,
    DocSet,
    Document,
    Hit,
    IngestionProgress,
    SyncReport,
)
from ragspace.tokens import count_tokens, leading_within
from ragspace_ui.errors import user_errors
from ragspace_ui.sources_panel import github_request, web_request

READ_TOOLS = ("list_docsets", "search", "ask", "list_documents", "read_document", "job_status")
CHANGE_TOOLS = (
    "create_docset",
    "add_github_source",
    "add_website_source",
    "sync_source",
    "remove_documents",
)
QUOTE_CHARS = 160  # an ask citation's quote: enough to recognise, never a second snippet


def app_url_of(request: gr.Request | None) -> str | None:
    """The address the caller reached the app at (behind a proxy: the forwarded one)."""
    # a gr.Request wraps Starlette's; MCP's direct calls hand Starlette's over as it is
    raw = getattr(request, "request", None) or request
    if not isinstance(raw, StarletteRequest):
        return None
    return get_root_url(raw, raw.url.path, None)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1)


def location_data(
    citation: Citation, docset: str, title: str, app_url: str | None = None
) -> dict[str, Any]:
    """Where a cited passage lives: DocSet, path, lines, the best-matching lines, a link to
    its origin and, with the app's address, one that opens the lines in the app's viewer."""
    viewer = {"view_url": view_url(app_url, citation_link(docset, citation))} if app_url else {}
    return {
        "number": citation.number,
        "docset": docset,
        "title": title,
        "path": citation.path,
        "start_line": citation.start_line,
        "end_line": citation.end_line,
        "focus_start_line": citation.focus_start_line,
        "focus_end_line": citation.focus_end_line,
        "url": citation.url,
        **viewer,
        **version_data(citation),
    }


def score(hit: Hit) -> float | None:
    """The hit's cosine similarity to the query, on 0-1 (None: it has no vector yet)."""
    if hit.vector_similarity is None:
        return None
    return round(min(1.0, max(0.0, hit.vector_similarity)), 4)


def search_data(
    hits: list[Hit], max_tokens: int | None, app_url: str | None = None
) -> dict[str, Any]:
    """Search results numbered from 1 in rank order, cut (whole hits) to a token budget."""
    found = [
        location_data(citation, hit.docset_name, hit.title, app_url)
        | {"context": citation.context, "snippet": citation.snippet, "score": score(hit)}
        for hit, citation in ((hit, cite_hit(hit, n)) for n, hit in enumerate(hits, start=1))
    ]
    snippets = [entry["snippet"] for entry in found]
    if max_tokens is None:
        kept, tokens = len(found), sum(map(count_tokens, snippets))
    else:
        kept, tokens = leading_within(snippets, max(0, max_tokens))
    return {
        "hits": found[:kept],
        "tokens": tokens,
        "truncated": kept < len(found),
        "dropped_hits": len(found) - kept,
    }


def short_quote(quote: str) -> str:
    """A quote cut to QUOTE_CHARS at a space, marked with an ellipsis (code keeps its lines)."""
    if len(quote) <= QUOTE_CHARS:
        return quote
    cut = quote.rfind(" ", 0, QUOTE_CHARS)
    return quote[: cut if cut > QUOTE_CHARS // 2 else QUOTE_CHARS].rstrip() + " …"


def answer_data(answer: Answer, app_url: str | None = None) -> dict[str, Any]:
    """A lean answer: its text and where each citation points; passage text is not repeated."""
    passages = {p.number: p for p in answer.passages}
    citations = []
    for c in answer.citations:
        passage = passages[c.number]
        citations.append(
            location_data(c, passage.docset_name, passage.title, app_url)
            | {"verification": c.verification, "quote": short_quote(c.quote)}
        )
    return {
        "answer": without_sources(answer.text),
        "citations": citations,
        "notes": answer.notes,
        "truncated": answer.dropped_passages > 0,
        "dropped_passages": answer.dropped_passages,
    }


def progress_data(progress: IngestionProgress) -> dict[str, Any]:
    """Ingestion progress as job_status returns it."""
    return {
        "done": progress.finished,
        "documents": {
            "total": progress.documents,
            "pending": progress.pending,
            "processing": progress.processing,
            "done": progress.done,
            "error": progress.error,
        },
        "chunks": {"embedded": progress.chunks_embedded, "total": progress.chunks_total},
    }


def docset_data(actions: Actions, docset: DocSet) -> dict[str, Any]:
    """A DocSet with its counts, whether it can be searched now, its sources and refs."""
    return {
        "name": docset.name,
        "description": docset.description,
        "documents": docset.document_count,
        "chunks": docset.chunk_count,
        "searchable": not actions.docsets.needs_reembedding(docset),
        "notice": actions.docsets.embedding_notice(docset),
        "updated_at": docset.updated_at.isoformat(timespec="seconds"),
        "sources": [
            {
                "id": s.id,
                "kind": s.kind.value,
                "location": s.location,
                "last_synced_at": s.last_synced_at.isoformat(timespec="seconds")
                if s.last_synced_at
                else None,
                "error": s.error_message,
            }
            for s in actions.sources.all(docset.name)
        ],
        "refs": [
            {
                "ref": r.ref,
                "resolved_sha": r.resolved_sha,
                "indexed_at": r.indexed_at.isoformat(timespec="seconds") if r.indexed_at else None,
            }
            for r in actions.docsets.refs(docset.name)
        ],
    }


def document_data(document: Document) -> dict[str, Any]:
    """A document's listing entry for the tools."""
    return {
        "path": document.path,
        "title": document.title,
        "language": document.language,
        "status": document.embedding_status.value,
        "chunks": document.chunk_count,
        "error": document.error_message,
        "updated_at": document.updated_at.isoformat(),
    }


def report_data(report: SyncReport) -> dict[str, Any]:
    """What adding or re-syncing a source changed; embedding continues in the background."""
    return {
        "source_id": report.source_id,
        "resolved": report.resolved,
        "new_or_changed": len(report.changed),
        "unchanged": report.unchanged,
        "removed": len(report.removed),
        "skipped": len(report.skipped),
        "errors": [{"path": e.path, "reason": e.reason} for e in report.errors[:50]],
        "note": "Embedding runs in the background: poll job_status with this source_id until "
        "done is true.",
    }


class Gate:
    """Lets a caller in when the app is open, logged in (cookie) or sends valid credentials."""

    def __init__(self, credentials: Credentials | None) -> None:
        self._credentials = credentials

    def check(self, request: gr.Request | None) -> None:
        """Raise AuthenticationError unless the caller may use the tools."""
        if self._credentials is None:
            return
        if request is not None and (
            getattr(request, "username", None)
            or self._credentials.verify_header(request.headers.get(AUTH_HEADER))
        ):
            return
        raise AuthenticationError(
            f"This RAGSpace requires a login: send the HTTP header '{AUTH_HEADER}: "
            "user:password' with an account from RAGSPACE_AUTH."
        )


def read_tools(actions: Actions, gate: Gate) -> list[Callable[..., str]]:
    """list_docsets, search, ask, list_documents and read_document."""

    def list_docsets(request: gr.Request | None = None) -> str:
        """List the DocSets (named collections of documentation and code) this RAGSpace can search.

        Use the names with the `search` and `ask` tools. A DocSet with "searchable": false is
        being re-embedded and is skipped until that finishes.

        Returns:
            JSON list of DocSets: name, description, documents, chunks, searchable, notice,
            updated_at, sources (id, kind, location, last_synced_at, error) and refs (the
            GitHub versions indexed, each a value for the `ref` of search and ask, with
            resolved_sha and indexed_at).
        """
        gate.check(request)
        return _json([docset_data(actions, d) for d in actions.docsets.all()])

    def search(
        query: str,
        docsets: list[str] | None = None,
        k: int = 8,
        max_tokens: int | None = None,
        ref: str | None = None,
        request: gr.Request | None = None,
    ) -> str:
        """Search the DocSets for the passages (code or documentation) most relevant to a query.

        Hybrid search: meaning (embeddings) and exact words (identifiers, error codes) fused,
        best first. Each hit's score is the cosine similarity of query and passage under the
        embedding model, from 0 to 1 (higher is closer in meaning; with the bundled model
        about 0.5 and up is close, 0.3 loosely related); the order also weighs exact words,
        so scores need not fall monotonically. Hits below the relevance floor (the score
        under which `ask` treats a passage as no evidence; 0.40 for prose and 0.24 for code
        with the bundled model, unless the server sets others) are not returned, so fewer
        than k (or none) is a real answer. Cite hits by their url (exact lines, GitHub links
        pinned to the commit); read_document with path, start_line and end_line reads more.

        Args:
            query: What to look for: a question, a concept, or identifiers such as function names.
            docsets: Names of DocSets to search (see list_docsets); empty or omitted: all.
            k: At most this many hits, 1 to 50 (default 8).
            max_tokens: Cap on all snippets' tokens; whole hits cut from the end (omitted: none).
            ref: Only this version (GitHub branch, tag or commit) of a versioned DocSet;
                omitted: every version, each result says its ref.

        Returns:
            JSON object: hits (best first: number, docset, title, path, start_line, end_line,
            focus_start_line, focus_end_line, url, view_url: the lines in the app's viewer,
            context, snippet, score), tokens (of the snippets returned), truncated (true when
            max_tokens cut hits) and dropped_hits.
        """
        gate.check(request)
        hits = actions.search.relevant_hits(query, docsets or None, int(k), ref=ref or None)
        budget = None if max_tokens is None else int(max_tokens)
        return _json(search_data(hits, budget, app_url_of(request)))

    def ask(
        question: str,
        docsets: list[str] | None = None,
        k: int = 6,
        max_tokens: int | None = None,
        ref: str | None = None,
        request: gr.Request | None = None,
    ) -> str:
        """Answer a question from the DocSets, with numbered citations [n] of the passages used.

        Without a chat model configured on the server the answer is extractive (the best
        sentences of the passages, verbatim, each cited). Every [n] in the answer matches an
        entry of "citations", which says where the passage is (no passage text: read it with
        read_document). "verification" says whether the quote backing it was found in the
        cited lines ("verified"), only nearly ("paraphrased"), not ("unsupported"), or null
        when the passage is cited as a source without a quote.

        Args:
            question: The question, in natural language.
            docsets: Names of the DocSets to use (see list_docsets); empty or omitted uses all.
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
        gate.check(request)
        budget = AnswerBudget(
            passages=max(1, min(int(k), 20)),
            max_tokens=None if max_tokens is None else max(0, int(max_tokens)),
        )
        answer = actions.answers.answer(question, docsets or None, ref=ref or None, budget=budget)
        return _json(answer_data(answer, app_url_of(request)))

    def job_status(
        docset: str = "", source_id: int | None = None, request: gr.Request | None = None
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
        gate.check(request)
        progress = actions.documents.ingestion_status(
            docset or None, None if source_id is None else int(source_id)
        )
        return _json(progress_data(progress))

    def list_documents(docset: str, request: gr.Request | None = None) -> str:
        """List the documents of a DocSet with their ingestion state.

        Args:
            docset: Name of the DocSet (see list_docsets).

        Returns:
            JSON list of documents: path, title, language, status, chunks, error and updated_at.
        """
        gate.check(request)
        return _json([document_data(d) for d in actions.documents.all(docset)])

    def read_document(
        docset: str,
        path: str,
        start_line: int = 1,
        end_line: int | None = None,
        ref: str | None = None,
        request: gr.Request | None = None,
    ) -> str:
        """Read a document of a DocSet, whole or a line range, e.g. around a cited passage.

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
        gate.check(request)
        read = actions.documents.read(
            docset, path, int(start_line), None if end_line is None else int(end_line), ref or None
        )
        return _json(
            {
                "docset": read.document.docset_name,
                "path": read.document.path,
                "title": read.document.title,
                "language": read.document.language,
                "start_line": read.start_line,
                "end_line": read.end_line,
                "total_lines": read.total_lines,
                "text": read.text,
                "continuation": read.continuation,
            }
        )

    return [list_docsets, search, ask, list_documents, read_document, job_status]


def change_tools(actions: Actions, gate: Gate) -> list[Callable[..., str]]:
    """create_docset, add_github_source, add_website_source, sync_source, remove_documents."""

    def create_docset(name: str, description: str = "", request: gr.Request | None = None) -> str:
        """Create an empty DocSet (a named collection) to add GitHub or website sources to.

        Args:
            name: The DocSet's name, e.g. "fastapi-docs" (unique, at most 100 characters).
            description: What the DocSet contains, shown to people and assistants.

        Returns:
            JSON object of the new DocSet.
        """
        gate.check(request)
        return _json(docset_data(actions, actions.docsets.create(name, description)))

    def add_github_source(
        docset: str,
        location: str,
        ref: str = "",
        include: str = "",
        exclude: str = "",
        request: gr.Request | None = None,
    ) -> str:
        """Add a GitHub repository (or one file) to a DocSet and fetch it.

        Embedding continues in the background: poll job_status with the source_id.

        Args:
            docset: Name of an existing DocSet (create_docset makes one).
            location: "owner/repo", "https://github.com/owner/repo" or ".../blob/<ref>/<path>".
            ref: Branch, tag or commit; empty means the default branch.
            include: Glob patterns to keep, comma-separated (e.g. "docs/**, *.py"); empty keeps all.
            exclude: Glob patterns to leave out, comma-separated (e.g. "tests/**").

        Returns:
            JSON object: source_id (for job_status and sync_source), resolved commit, and
            counts of new, unchanged, removed, skipped and unreadable files.
        """
        gate.check(request)
        report = actions.sources.add(docset, *github_request(location, ref, include, exclude))
        return _json(report_data(report))

    def add_website_source(
        docset: str,
        url: str,
        depth: int = 2,
        max_pages: int = 50,
        path_prefix: str = "",
        request: gr.Request | None = None,
    ) -> str:
        """Crawl a documentation website into a DocSet; embedding follows in the background.

        Args:
            docset: Name of an existing DocSet (create_docset makes one).
            url: The start page, e.g. "https://docs.example.com/".
            depth: How many links deep to follow from the start page (default 2).
            max_pages: Most pages to fetch (default 50).
            path_prefix: Only follow pages whose path starts with this, e.g. "/docs/".

        Returns:
            JSON object: source_id (for job_status and sync_source) and counts of new,
            unchanged, removed, skipped and unreadable pages.
        """
        gate.check(request)
        report = actions.sources.add(docset, *web_request(url, depth, max_pages, path_prefix))
        return _json(report_data(report))

    def sync_source(source_id: int, request: gr.Request | None = None) -> str:
        """Fetch a GitHub or website source again; only what changed is re-embedded.

        Fetching happens in this call; embedding the changes runs in the background: poll
        job_status with the source_id until done is true. Files gone upstream are removed.

        Args:
            source_id: The source's id, from list_docsets or the add_*_source result.

        Returns:
            JSON object: source_id (for job_status), resolved commit, counts of new, unchanged,
            removed, skipped and unreadable items, and progress (as job_status returns it).
        """
        gate.check(request)
        report = actions.sources.resync(int(source_id))
        progress = actions.documents.ingestion_status(source_id=report.source_id)
        return _json(report_data(report) | {"progress": progress_data(progress)})

    def remove_documents(docset: str, paths: list[str], request: gr.Request | None = None) -> str:
        """Remove documents from a DocSet; their chunks leave search at once. Cannot be undone.

        Args:
            docset: Name of the DocSet (see list_docsets).
            paths: The documents' paths, as given by list_documents, search or ask.

        Returns:
            JSON object: removed (the paths removed). A path the DocSet does not hold is an
            error naming it (the others are still removed).
        """
        gate.check(request)
        return _json({"removed": actions.documents.remove(docset, list(paths))})

    return [create_docset, add_github_source, add_website_source, sync_source, remove_documents]


def register_mcp_tools(actions: Actions, credentials: Credentials | None) -> list[str]:
    """Register the tools in the current Blocks; change tools only when not read-only.

    Called inside `gr.Blocks` before any UI event, so the tools keep their plain API names.
    `queue=False`: Gradio runs such MCP calls in-process; queued ones loop back through its
    HTTP client, which its own login page (RAGSPACE_AUTH) would turn away.
    """
    gate = Gate(credentials)
    tools = read_tools(actions, gate)
    if not actions.read_only:
        tools += change_tools(actions, gate)
    for tool in tools:
        gradio_api(
            user_errors(tool),
            api_name=tool.__name__,
            api_description=tool_description(tool),
            queue=False,
        )
    return [tool.__name__ for tool in tools]


def tool_description(tool: Callable[..., str]) -> str:
    """The docstring's text and its Returns section, wrapped lines joined by spaces.

    Gradio joins the lines of a Returns section with ", ", so a line ending in a comma
    became ",," in the description; the parameters' descriptions still come from Args.
    """
    description, _, returns = get_function_description(tool)
    return f"{description} Returns: {' '.join(returns)}" if returns else description
