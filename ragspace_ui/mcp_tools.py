"""MCP tools (and the public HTTP API): thin wrappers over RagspaceService for assistants.

Gradio turns each function registered here with `gr.api` into an MCP tool named after the
function; the docstring is the tool's description and its Args the parameters' descriptions.
Results are JSON text, which every MCP client passes to the assistant as it is.
"""

import json
from collections.abc import Callable
from typing import Any

import gradio as gr
from gradio.events import api as gradio_api

from ragspace.access import AUTH_HEADER, Credentials
from ragspace.answering.citations import cite_hit, version_data
from ragspace.errors import AuthenticationError
from ragspace.models import Answer, Citation, DocSet, Document, Hit, Passage, SyncReport
from ragspace.services import RagspaceService
from ragspace_ui.errors import user_errors
from ragspace_ui.sources_panel import github_request, web_request

READ_TOOLS = ("list_docsets", "search", "ask", "list_documents", "read_document")
CHANGE_TOOLS = (
    "create_docset",
    "add_github_source",
    "add_website_source",
    "resync_source",
    "remove_documents",
)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1)


def citation_data(citation: Citation, source: Hit | Passage) -> dict[str, Any]:
    """One cited passage as structured data: where it is, a link, a snippet and its score."""
    return {
        "number": citation.number,
        "docset": source.docset_name,
        "title": source.title,
        "path": citation.path,
        "start_line": citation.start_line,
        "end_line": citation.end_line,
        "label": citation.label,
        "url": citation.url,
        "context": citation.context,
        "snippet": citation.snippet,
        "score": round(source.score, 6),
        "focus_start_line": citation.focus_start_line,
        "focus_end_line": citation.focus_end_line,
        **version_data(citation),
    }


def search_data(hits: list[Hit]) -> list[dict[str, Any]]:
    """Search results, numbered from 1 in rank order."""
    return [citation_data(cite_hit(hit, n), hit) for n, hit in enumerate(hits, start=1)]


def answer_data(answer: Answer) -> dict[str, Any]:
    """An answer with the citations it rests on (and any notes, e.g. no LLM configured)."""
    passages = {p.number: p for p in answer.passages}
    return {
        "answer": answer.text,
        "citations": [
            citation_data(c, passages[c.number])
            | {"verification": c.verification, "quote": c.quote}
            for c in answer.citations
        ],
        "notes": answer.notes,
    }


def docset_data(service: RagspaceService, docset: DocSet) -> dict[str, Any]:
    """A DocSet with its counts, whether it can be searched now, and its sources."""
    return {
        "name": docset.name,
        "description": docset.description,
        "documents": docset.document_count,
        "chunks": docset.chunk_count,
        "searchable": not service.needs_reembedding(docset),
        "notice": service.embedding_notice(docset),
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
            for s in service.list_sources(docset.name)
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
        "note": "Embedding runs in the background; call list_docsets to watch the counts.",
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


def read_tools(service: RagspaceService, gate: Gate) -> list[Callable[..., str]]:
    """list_docsets, search, ask, list_documents and read_document."""

    def list_docsets(request: gr.Request | None = None) -> str:
        """List the DocSets (named collections of documentation and code) this RAGSpace can search.

        Use the names with the `search` and `ask` tools. A DocSet with "searchable": false is
        being re-embedded and is skipped until that finishes.

        Returns:
            JSON list of DocSets: name, description, documents, chunks, searchable, notice,
            updated_at and sources (id, kind, location, last_synced_at, error).
        """
        gate.check(request)
        return _json([docset_data(service, d) for d in service.list_docsets()])

    def search(
        query: str,
        docsets: list[str] | None = None,
        k: int = 8,
        ref: str | None = None,
        request: gr.Request | None = None,
    ) -> str:
        """Search the DocSets for the passages (code or documentation) most relevant to a query.

        Hybrid search: meaning (embeddings) and exact words (identifiers, error codes) fused.
        Cite results by their url, which points at the exact lines (GitHub links are pinned to
        the commit).

        Args:
            query: What to look for: a question, a concept, or identifiers such as function names.
            docsets: Names of DocSets to search (see list_docsets); empty or omitted: all.
            k: How many passages to return, 1 to 50 (default 8).
            ref: Only this version (GitHub branch, tag or commit) of a versioned DocSet;
                omitted: every version, each result says its ref.

        Returns:
            JSON list of passages, best first: number, docset, title, path, start_line,
            end_line, label, url, context (heading path or symbol), snippet and score.
        """
        gate.check(request)
        return _json(search_data(service.search(query, docsets or None, int(k), ref=ref or None)))

    def ask(
        question: str,
        docsets: list[str] | None = None,
        ref: str | None = None,
        request: gr.Request | None = None,
    ) -> str:
        """Answer a question from the DocSets, with numbered citations [n] of the passages used.

        Without a chat model configured on the server the answer is extractive (the best
        sentences of the passages, verbatim, each cited). Every [n] in the answer matches an
        entry of "citations"; "verification" says whether the quote backing it was found in
        the cited lines ("verified"), only nearly ("paraphrased"), or not ("unsupported").

        Args:
            question: The question, in natural language.
            docsets: Names of the DocSets to use (see list_docsets); empty or omitted uses all.
            ref: Only this version (GitHub branch, tag or commit) of a versioned DocSet.

        Returns:
            JSON object: answer (text with [n] markers), citations (number, docset, title,
            path, start_line, end_line, label, url, context, snippet, score, focus_start_line,
            focus_end_line: the best-matching lines the url points at, verification, quote)
            and notes.
        """
        gate.check(request)
        return _json(answer_data(service.answer(question, docsets or None, ref=ref or None)))

    def list_documents(docset: str, request: gr.Request | None = None) -> str:
        """List the documents of a DocSet with their ingestion state.

        Args:
            docset: Name of the DocSet (see list_docsets).

        Returns:
            JSON list of documents: path, title, language, status, chunks, error and updated_at.
        """
        gate.check(request)
        return _json([document_data(d) for d in service.list_documents(docset)])

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
            ref: The version (as search and ask give it) when the path is at several refs.

        Returns:
            JSON object: docset, path, title, language, start_line, end_line, total_lines, text.
        """
        gate.check(request)
        read = service.read_document(
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
            }
        )

    return [list_docsets, search, ask, list_documents, read_document]


def change_tools(service: RagspaceService, gate: Gate) -> list[Callable[..., str]]:
    """create_docset, add_github_source, add_website_source, resync_source, remove_documents."""

    def create_docset(name: str, description: str = "", request: gr.Request | None = None) -> str:
        """Create an empty DocSet (a named collection) to add GitHub or website sources to.

        Args:
            name: The DocSet's name, e.g. "fastapi-docs" (unique, at most 100 characters).
            description: What the DocSet contains, shown to people and assistants.

        Returns:
            JSON object of the new DocSet.
        """
        gate.check(request)
        return _json(docset_data(service, service.create_docset(name, description)))

    def add_github_source(
        docset: str,
        location: str,
        ref: str = "",
        include: str = "",
        exclude: str = "",
        request: gr.Request | None = None,
    ) -> str:
        """Add a GitHub repository (or one file) to a DocSet and fetch it.

        Embedding continues in the background; list_docsets shows the counts grow.

        Args:
            docset: Name of an existing DocSet (create_docset makes one).
            location: "owner/repo", "https://github.com/owner/repo" or ".../blob/<ref>/<path>".
            ref: Branch, tag or commit; empty means the default branch.
            include: Glob patterns to keep, comma-separated (e.g. "docs/**, *.py"); empty keeps all.
            exclude: Glob patterns to leave out, comma-separated (e.g. "tests/**").

        Returns:
            JSON object: source_id (for resync_source), resolved commit, and counts of new,
            unchanged, removed, skipped and unreadable files.
        """
        gate.check(request)
        report = service.add_source(docset, *github_request(location, ref, include, exclude))
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
            JSON object: source_id (for resync_source) and counts of new, unchanged, removed,
            skipped and unreadable pages.
        """
        gate.check(request)
        report = service.add_source(docset, *web_request(url, depth, max_pages, path_prefix))
        return _json(report_data(report))

    def resync_source(source_id: int, request: gr.Request | None = None) -> str:
        """Fetch a GitHub or website source again; only what changed is re-embedded.

        Args:
            source_id: The source's id, from list_docsets or the add_*_source result.

        Returns:
            JSON object with counts of new, unchanged, removed, skipped and unreadable items.
        """
        gate.check(request)
        return _json(report_data(service.resync_source(int(source_id))))

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
        return _json({"removed": service.remove_documents(docset, list(paths))})

    return [create_docset, add_github_source, add_website_source, resync_source, remove_documents]


def register_mcp_tools(service: RagspaceService, credentials: Credentials | None) -> list[str]:
    """Register the tools in the current Blocks; change tools only when not read-only.

    Called inside `gr.Blocks` before any UI event, so the tools keep their plain API names.
    `queue=False`: Gradio runs such MCP calls in-process; queued ones loop back through its
    HTTP client, which its own login page (RAGSPACE_AUTH) would turn away.
    """
    gate = Gate(credentials)
    tools = read_tools(service, gate)
    if not service.read_only:
        tools += change_tools(service, gate)
    for tool in tools:
        gradio_api(user_errors(tool), api_name=tool.__name__, queue=False)
    return [tool.__name__ for tool in tools]
