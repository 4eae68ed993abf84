"""What the MCP tools (and the public HTTP API) return: domain models shaped as JSON data.

No Gradio here: `ragspace mcp` serves the same tools without the web app.
"""

import json
from typing import Any

from ragspace.actions import Actions
from ragspace.actions.expansion import ExpandedHit
from ragspace.actions.hit_reasons import why_hit
from ragspace.actions.hit_view import (
    answer_view,
    hit_views,
    location,
    similarity_score,
)
from ragspace.answering.citations import cite_hit
from ragspace.models import (
    Answer,
    Citation,
    DocSet,
    Document,
    DocumentText,
    Hit,
    IngestionProgress,
    SyncReport,
)
from ragspace.text.tokens import count_tokens, leading_within


def to_json(value: Any) -> str:
    """A tool's result: JSON text, which every MCP client passes to the assistant as it is."""
    return json.dumps(value, ensure_ascii=False, indent=1)


def location_data(
    citation: Citation, docset: str, title: str, app_url: str | None = None
) -> dict[str, Any]:
    """Where a cited passage lives (`hit_view.location`), as JSON."""
    return location(citation, docset, title, app_url).model_dump(mode="json")


def search_data(
    hits: list[Hit], max_tokens: int | None, app_url: str | None = None, query: str = ""
) -> dict[str, Any]:
    """Search results as every front end shows them (`hit_view`), numbered from 1 in rank
    order, cut (whole hits) to a token budget."""
    found = [view.model_dump(mode="json") for view in hit_views(hits, query, app_url)]
    kept, tokens = _within(found, "snippet", max_tokens)
    return {
        "hits": found[:kept],
        "tokens": tokens,
        "truncated": kept < len(found),
        "dropped_hits": len(found) - kept,
    }


def _within(entries: list[dict[str, Any]], key: str, max_tokens: int | None) -> tuple[int, int]:
    """How many leading entries fit the budget, and their tokens (all of them without one)."""
    texts = [entry[key] for entry in entries]
    if max_tokens is None:
        return len(texts), sum(map(count_tokens, texts))
    return leading_within(texts, max(0, max_tokens))


def expanded_data(
    expanded: list[ExpandedHit],
    ranks: dict[int, int],
    max_tokens: int | None,
    app_url: str | None = None,
    query: str = "",
) -> dict[str, Any]:
    """Whole sections and definitions, best first, cut (whole units) to the token budget,
    then grouped per file (files in the order of their best unit)."""
    units: list[dict[str, Any]] = []
    for entry in expanded:
        whole = entry.hit.model_copy(
            update={"start_line": entry.start_line, "end_line": entry.end_line}
        )
        citation = cite_hit(whole, ranks[entry.hit.chunk_id])
        units.append(
            {
                "file": (entry.hit.docset_name, entry.hit.path, entry.hit.ref),
                "head": location_data(citation, entry.hit.docset_name, entry.hit.title, app_url),
                "unit": entry.unit,
                "label": entry.label,
                "start_line": entry.start_line,
                "end_line": entry.end_line,
                "url": citation.url,
                "hits": [ranks[h.chunk_id] for h in entry.hits],
                "why": why_hit(query, entry.hit),
                "score": similarity_score(entry.hit.vector_similarity),
                "hidden": entry.hit.hidden,
                "text": entry.text,
                "continuation": entry.continuation,
            }
        )
    kept, tokens = _within(units, "text", max_tokens)
    files: dict[tuple[str, str, str | None], dict[str, Any]] = {}
    for unit in units[:kept]:
        head = unit.pop("head")
        group = files.setdefault(
            unit.pop("file"),
            {k: head[k] for k in ("docset", "title", "path") if k in head}
            | {k: v for k, v in head.items() if k in ("ref", "resolved_sha")}
            | {"units": []},
        )
        group["units"].append(unit)
    return {
        "files": list(files.values()),
        "tokens": tokens,
        "truncated": kept < len(units),
        "dropped_units": len(units) - kept,
    }


def answer_data(answer: Answer, app_url: str | None = None) -> dict[str, Any]:
    """A lean answer (`hit_view.answer_view`): its text and where each citation points."""
    return answer_view(answer, app_url).model_dump(mode="json")


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


def text_data(read: DocumentText) -> dict[str, Any]:
    """A range of a document's lines as read_document returns it."""
    return {
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
