"""Domain nouns shared by the service layer and every front end."""

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class EmbeddingStatus(StrEnum):
    """Where a document stands in the ingestion pipeline."""

    PENDING = "pending"
    PROCESSING = "processing"
    DONE = "done"
    ERROR = "error"


class SourceKind(StrEnum):
    """Where a document came from."""

    UPLOAD = "upload"
    GITHUB_REPO = "github_repo"
    GITHUB_FILE = "github_file"
    WEB = "web"


class DocSet(BaseModel):
    """A named collection of documents searched together."""

    model_config = ConfigDict(frozen=True)

    id: int
    name: str
    description: str
    embedding_model: str
    embedding_dimensions: int
    created_at: datetime
    updated_at: datetime
    document_count: int = 0
    chunk_count: int = 0
    # set while a whole-DocSet re-embed moves it to another model
    target_embedding_model: str | None = None


class Source(BaseModel):
    """Where documents of a DocSet are fetched from."""

    model_config = ConfigDict(frozen=True)

    id: int
    docset_id: int
    kind: SourceKind
    location: str
    options: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime


class Document(BaseModel):
    """One file or page of a DocSet and its ingestion state."""

    model_config = ConfigDict(frozen=True)

    id: int
    docset_id: int
    docset_name: str
    source_id: int | None
    path: str
    title: str
    language: str
    content_hash: str
    embedding_status: EmbeddingStatus
    error_message: str | None
    chunk_count: int
    created_at: datetime
    updated_at: datetime
    chunks_embedded: int = 0
    chunks_total: int = 0
    started_at: datetime | None = None
    finished_at: datetime | None = None


class ChunkDraft(BaseModel):
    """A chunk before embedding: exact text, exact 1-based inclusive line range."""

    model_config = ConfigDict(frozen=True)

    ordinal: int
    content: str
    start_line: int
    end_line: int
    header: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def embedding_text(self) -> str:
        """What is sent to the embedder: the context header, then the exact content."""
        return f"{self.header}\n\n{self.content}" if self.header else self.content


class Hit(BaseModel):
    """A chunk returned by search, with where it lives and how well it matched."""

    model_config = ConfigDict(frozen=True)

    chunk_id: int
    document_id: int
    docset_name: str
    path: str
    title: str
    content: str
    start_line: int
    end_line: int
    metadata: dict[str, Any] = Field(default_factory=dict)
    score: float


class Citation(BaseModel):
    """A numbered reference from an answer to the exact lines it rests on."""

    model_config = ConfigDict(frozen=True)

    number: int
    label: str
    path: str
    start_line: int
    end_line: int
    url: str | None = None
    snippet: str = ""


class Answer(BaseModel):
    """An answer with the citations it rests on."""

    model_config = ConfigDict(frozen=True)

    text: str
    citations: list[Citation] = Field(default_factory=list)
    hits: list[Hit] = Field(default_factory=list)
