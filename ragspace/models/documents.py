"""Documents, their chunks and their embedding progress."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ragspace.models.syncs import SkippedItem, redaction_skips


class EmbeddingStatus(StrEnum):
    """Where a document stands in the ingestion pipeline."""

    PENDING = "pending"
    PROCESSING = "processing"
    DONE = "done"
    ERROR = "error"


class VectorTier(StrEnum):
    """How far a document's current content is searchable (documents.vector_tier)."""

    KEYWORDS = "keywords"  # its chunks are in, found by keywords; vectors still to come
    QUALITY = "quality"  # its chunks have the DocSet model's vectors (local MiniLM or OpenAI)


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
    vector_tier: VectorTier | None = None
    size_bytes: int = 0  # of the file (a PDF's, a page's), else of the stored text
    text_bytes: int = 0  # of the stored text: what the ETA estimates its chunks from
    ref: str = ""  # the GitHub branch, tag or commit it was synced at ('' for other sources)
    # lines of its text replaced because they looked like secrets: [(line, reason), ...]
    redacted_lines: list[tuple[int, str]] = Field(default_factory=list)

    @property
    def redactions(self) -> "list[SkippedItem]":
        """Its redacted lines as entries of a skip list, as a source's sync reports them."""
        return redaction_skips(self.path, self.redacted_lines)


def tier_counts(documents: Sequence[Document]) -> dict[str, int]:
    """Documents searchable by keywords (chunks in) and those with their vectors too."""
    keywords = sum(d.vector_tier is not None for d in documents)
    vectors = sum(d.vector_tier is VectorTier.QUALITY for d in documents)
    return {"documents": len(documents), "keywords": keywords, "vectors": vectors}


class IngestionProgress(BaseModel):
    """How far the ingestion of some documents (a source, a DocSet, everything) has got."""

    model_config = ConfigDict(frozen=True)

    pending: int = 0
    processing: int = 0
    done: int = 0
    error: int = 0
    # chunks with vectors: all of finished documents, the recorded part of running ones
    chunks_embedded: int = 0
    # chunks known so far (a pending document's count is unknown until it is chunked)
    chunks_total: int = 0

    @property
    def documents(self) -> int:
        """Documents counted, in any state."""
        return self.pending + self.processing + self.done + self.error

    @property
    def finished(self) -> bool:
        """No document waits or runs (done or in error)."""
        return self.pending == 0 and self.processing == 0


def ingestion_progress(documents: Sequence[Document]) -> IngestionProgress:
    """Documents per state and chunks embedded of the known total (the status tab's counts)."""
    counts = {status: 0 for status in EmbeddingStatus}
    embedded = total = 0
    for d in documents:
        counts[d.embedding_status] += 1
        if d.embedding_status is EmbeddingStatus.DONE:
            embedded += d.chunk_count
            total += d.chunk_count
        elif d.embedding_status is EmbeddingStatus.PROCESSING:
            embedded += d.chunks_embedded
            total += d.chunks_total
    return IngestionProgress(
        pending=counts[EmbeddingStatus.PENDING],
        processing=counts[EmbeddingStatus.PROCESSING],
        done=counts[EmbeddingStatus.DONE],
        error=counts[EmbeddingStatus.ERROR],
        chunks_embedded=embedded,
        chunks_total=total,
    )


def tier_text(documents: Sequence[Document]) -> str:
    """How much is searchable, e.g. `keywords 120/120, vectors 40/120`."""
    counts = tier_counts(documents)
    total = counts["documents"]
    return f"keywords {counts['keywords']}/{total}, vectors {counts['vectors']}/{total}"


class DocumentText(BaseModel):
    """A range of a document's stored text (1-based inclusive lines) and its metadata."""

    model_config = ConfigDict(frozen=True)

    document: Document
    start_line: int
    end_line: int
    total_lines: int
    text: str
    # PDFs: [first line, page number] of each page with text, in order
    page_lines: list[list[int]] = Field(default_factory=list)
    # whether the original file is stored (the viewer links to it)
    has_original: bool = False
    # "Showing lines a-b of N; read lines c-d next." when the range was capped, else None
    continuation: str | None = None

    def page_at(self, line: int) -> int | None:
        """The PDF page a line of the document's text comes from (None: not a PDF)."""
        page = None
        for first, number in self.page_lines:
            if first > line:
                break
            page = number
        return page


@dataclass(frozen=True)
class OriginalFile:
    """A stored original file: its media type and bytes."""

    media_type: str
    content: bytes


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


class IncomingFile(Protocol):
    """A file to add: its name, its size, and its bytes read only when its turn comes."""

    @property
    def name(self) -> str:
        """Its path as shown and stored."""

    @property
    def size(self) -> int:
        """Its size in bytes, known before it is read."""

    def read(self, max_bytes: int) -> bytes | str:
        """Its bytes (at most `max_bytes` + 1), or why they cannot be read."""

    def renamed(self, name: str) -> "IncomingFile":
        """The same file under another name."""


@dataclass(frozen=True)
class UploadedFile:
    """A file whose bytes are in memory already (an API call, a test, a small upload)."""

    name: str
    data: bytes

    @property
    def size(self) -> int:
        """Its size in bytes."""
        return len(self.data)

    def read(self, max_bytes: int) -> bytes | str:
        """Its bytes, or why not: over `max_bytes` (callers check the size first)."""
        return self.data if len(self.data) <= max_bytes else f"larger than {max_bytes:,} bytes"

    def renamed(self, name: str) -> "UploadedFile":
        """The same bytes under another name."""
        return UploadedFile(name, self.data)


@dataclass(frozen=True)
class NewDocument:
    """A document to add or update; unchanged content keeps its chunks."""

    path: str
    title: str
    language: str
    content: str
    content_hash: str
    error_message: str | None = None
    # document-level facts (commit, blob sha, URL, page map); the `cite` dict goes on every chunk
    metadata: dict[str, Any] = field(default_factory=dict)
    # the file itself, kept only when the viewer links to it (an uploaded PDF at `#page=N`)
    original: OriginalFile | None = None


@dataclass(frozen=True)
class StoredDocument:
    """What a source already holds at one path, to decide what a re-sync must fetch."""

    id: int
    path: str
    content_hash: str
    embedding_status: str
    metadata: dict[str, Any]
