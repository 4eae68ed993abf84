"""Actions: what a front end can ask RAGSpace to do, one small class per concern.

The web UI, the MCP tools and the CLI are thin adapters over the same actions with the
same typed inputs and outputs (the domain models of `ragspace.models`). Like
docs-mcp-server's one-tool-per-action classes, but grouped by concern, the Python way:
each concern is a class holding only the collaborators it needs, with one method per user
intent (`actions.docsets.create(...)`, `actions.search.hits(query)`, `actions.answers.ask(query)`;
a search or a question is one `SearchQuery` every front end builds).

    docsets     DocsetActions      list, create, rename, describe, choose reranking, delete
    sources     SourceActions      uploads and folders, GitHub and web sources, re-syncs
    documents   DocumentActions    list, ingestion status, read, remove, re-embed
    search      SearchActions      ranked hits, judged by the relevance floor
    answers     AnswerActions      streamed or whole answers with verified citations
    symbols     SymbolActions      definitions, references, repository map (symbol table)
    evaluation  EvaluationActions  a question set scored against a DocSet

No action builds its collaborators: `ragspace.runtime.build_actions` wires them all.
Changes go through `read_only.changes`, the one place read-only mode is enforced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importing the package stays light: the CLI's `--help` loads no models
    from ragspace.actions.answers import AnswerActions
    from ragspace.actions.docsets import DocsetActions
    from ragspace.actions.documents import DocumentActions
    from ragspace.actions.evaluation import EvaluationActions
    from ragspace.actions.search import SearchActions
    from ragspace.actions.sources import SourceActions
    from ragspace.actions.symbols import SymbolActions


@dataclass(frozen=True)
class AppMode:
    """How this instance runs, as the UI shows it: which models, which limits."""

    embedding_model: str
    local_embeddings: bool  # the bundled model, no API key
    llm_answers: bool  # a chat model writes answers; else answers are extractive
    max_upload_bytes: int
    chat_model: str = ""  # which model writes them, and where: `gpt-4o-mini at api.openai.com`


@dataclass(frozen=True)
class Actions:
    """Every action of one RAGSpace instance, by concern; what front ends are given."""

    docsets: DocsetActions
    sources: SourceActions
    documents: DocumentActions
    search: SearchActions
    answers: AnswerActions
    evaluation: EvaluationActions
    symbols: SymbolActions
    mode: AppMode
    read_only: bool = False
