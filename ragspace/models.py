"""Domain nouns shared by the actions and every front end."""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any, Literal, TypedDict

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, field_validator


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
    # when files were last uploaded or a source last synced; None before any content
    last_synced_at: datetime | None = None
    # set while a whole-DocSet re-embed moves it to another model
    target_embedding_model: str | None = None
    # whether answers over it are reranked by the chat model (when one is configured), and
    # the evaluation the choice rests on (None: the default, never evaluated)
    rerank: bool = True
    rerank_evidence: str | None = None


# glob patterns; stored options may hold null for "none", which the fetchers always read so
Globs = Annotated[list[str], BeforeValidator(lambda value: [] if value is None else value)]


class GithubOptions(BaseModel):
    """What to fetch of a GitHub repository or file: its ref and path filters.

    No token: the GitHub token is the process's setting (`GITHUB_TOKEN`, or the CLI's
    `--token` for one command), never an option, so it is never stored with a source.
    """

    model_config = ConfigDict(frozen=True)

    ref: str | None = None  # branch, tag or commit; None: the default branch (or the URL's)
    include: Globs = Field(default_factory=list)  # empty keeps every path
    exclude: Globs = Field(default_factory=list)


class WebOptions(BaseModel):
    """How far a crawl goes; the crawler clamps depth (0-10) and pages (its configured cap)."""

    model_config = ConfigDict(frozen=True)

    depth: int = 2  # links followed from the start page
    max_pages: int = 50
    path_prefix: str | None = None  # only URLs under this path; None: the whole site


class FolderOptions(BaseModel):
    """The filters a folder (local or uploaded from a browser) was read with."""

    model_config = ConfigDict(frozen=True)

    include: Globs = Field(default_factory=list)
    exclude: Globs = Field(default_factory=list)
    # stored as `"folder": true`: what tells a folder's source from an upload's
    folder: Literal[True] = True


SourceOptions = GithubOptions | WebOptions | FolderOptions


def source_options(kind: SourceKind, stored: dict[str, Any]) -> SourceOptions | None:
    """A source's stored options as their type (None: a plain upload has none).

    Keys a type does not know (from older versions) are ignored.
    """
    if kind in (SourceKind.GITHUB_REPO, SourceKind.GITHUB_FILE):
        return GithubOptions.model_validate(stored)
    if kind is SourceKind.WEB:
        return WebOptions.model_validate(stored)
    return FolderOptions.model_validate(stored) if stored.get("folder") else None


def stored_options(options: SourceOptions | None) -> dict[str, Any]:
    """Options as the JSON stored with a source: unset values are left out, as before."""
    return {} if options is None else options.model_dump(mode="json", exclude_none=True)


class Source(BaseModel):
    """Where documents of a DocSet are fetched from."""

    model_config = ConfigDict(frozen=True)

    id: int
    docset_id: int
    kind: SourceKind
    location: str
    options: SourceOptions | None = None
    created_at: datetime
    sync_state: dict[str, Any] = Field(default_factory=dict)
    error_message: str | None = None
    last_synced_at: datetime | None = None
    # scheduled re-sync: None is off; `next_sync_at` is when a worker runs it next
    resync_interval: timedelta | None = None
    next_sync_at: datetime | None = None

    @field_validator("options", mode="before")
    @classmethod
    def _typed_options(cls, value: Any, info: ValidationInfo) -> Any:
        """Stored JSON (a row's `options`) becomes the options type of the source's kind."""
        kind = info.data.get("kind")
        if isinstance(value, dict) and isinstance(kind, SourceKind):
            return source_options(kind, value)
        return value

    @property
    def github_options(self) -> GithubOptions:
        """The options of a GitHub source (defaults for any other kind)."""
        return self.options if isinstance(self.options, GithubOptions) else GithubOptions()

    @property
    def web_options(self) -> WebOptions:
        """The options of a web source (defaults for any other kind)."""
        return self.options if isinstance(self.options, WebOptions) else WebOptions()

    @property
    def is_folder(self) -> bool:
        """An upload source made from a folder (local or from a browser)."""
        return isinstance(self.options, FolderOptions)


def interval_text(every: timedelta | None) -> str:
    """A re-sync interval as people write it: `6h`, `1d`, `90m`; `off` for None."""
    if every is None:
        return "off"
    minutes = int(every.total_seconds() // 60)
    for unit, size in (("w", 7 * 24 * 60), ("d", 24 * 60), ("h", 60)):
        if minutes % size == 0:
            return f"{minutes // size}{unit}"
    return f"{minutes}m"


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
    size_bytes: int = 0  # of the stored text
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


class Hit(BaseModel):
    """A chunk returned by search, with where it lives and how well it matched."""

    model_config = ConfigDict(frozen=True)

    chunk_id: int
    document_id: int
    docset_name: str
    path: str
    title: str
    ordinal: int
    content: str
    start_line: int
    end_line: int
    metadata: dict[str, Any] = Field(default_factory=dict)
    score: float
    vector_similarity: float | None = None
    keyword_rank: int | None = None
    # which version of its source the chunk is from (GitHub: the ref, the commit it resolved
    # to at the last sync, and when that was; uploads and web pages have no ref)
    ref: str | None = None
    resolved_sha: str | None = None
    indexed_at: datetime | None = None


class Passage(BaseModel):
    """Adjacent retrieved chunks of one document merged into a numbered passage."""

    model_config = ConfigDict(frozen=True)

    number: int
    document_id: int
    docset_name: str
    path: str
    title: str
    start_line: int
    end_line: int
    content: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    score: float
    # first line of the best-matching chunk, where a snippet starts (0: the passage start)
    focus_line: int = 0
    # last line of the best-matching chunk (0: the passage end)
    focus_end_line: int = 0
    ref: str | None = None
    resolved_sha: str | None = None
    indexed_at: datetime | None = None


# whether an answer's quote for a citation was found in the cited lines
Verification = Literal["verified", "paraphrased", "unsupported"]
VERIFICATIONS: tuple[Verification, ...] = ("verified", "paraphrased", "unsupported")


class Citation(BaseModel):
    """A numbered reference from an answer to the exact lines it rests on."""

    model_config = ConfigDict(frozen=True)

    number: int
    label: str
    path: str
    start_line: int
    end_line: int
    url: str | None = None
    context: str = ""
    snippet: str = ""
    # the lines inside start_line..end_line that match best (the quote, or the question's terms)
    focus_start_line: int = 0
    focus_end_line: int = 0
    # whether the answer's quote for this citation was found in the cited lines
    verification: Verification | None = None
    quote: str = ""
    # the DocSet and version of the cited lines (see Hit)
    docset: str = ""
    ref: str | None = None
    resolved_sha: str | None = None
    indexed_at: datetime | None = None


class Answer(BaseModel):
    """An answer with the citations it rests on."""

    model_config = ConfigDict(frozen=True)

    text: str
    citations: list[Citation] = Field(default_factory=list)
    passages: list[Passage] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    # passages left out to keep within a token budget (AnswerBudget.max_tokens)
    dropped_passages: int = 0


@dataclass(frozen=True)
class AnswerBudget:
    """Limits on what an answer draws on: at most `passages`, their text within max_tokens."""

    passages: int | None = None
    max_tokens: int | None = None


class AnswerUpdate(BaseModel):
    """A step of a streamed answer; the last one has `done` and the final `answer`."""

    model_config = ConfigDict(frozen=True)

    text: str
    done: bool
    answer: Answer | None = None


class RefInfo(BaseModel):
    """One indexed version of a DocSet: a ref, the commit it resolved to and when."""

    model_config = ConfigDict(frozen=True)

    ref: str
    resolved_sha: str
    indexed_at: datetime | None
    locations: list[str] = Field(default_factory=list)  # the sources synced at this ref


class SkippedItem(BaseModel):
    """A file or page left out of a source, and why."""

    model_config = ConfigDict(frozen=True)

    path: str
    reason: str


def redaction_skips(path: str, lines: Sequence[Sequence[Any]]) -> list[SkippedItem]:
    """Redacted lines of a document ([line, reason] pairs) as skips named `path#Lline`."""
    return [SkippedItem(path=f"{path}#L{line}", reason=str(reason)) for line, reason in lines]


class SourcePreview(BaseModel):
    """A dry run: what a source would ingest, what it skips, and a size estimate."""

    model_config = ConfigDict(frozen=True)

    kind: SourceKind
    location: str
    resolved: str = ""  # commit SHA for GitHub, final start URL for the web
    items: list[str] = Field(default_factory=list)
    skipped: list[SkippedItem] = Field(default_factory=list)
    total_bytes: int = 0
    estimated_chunks: int = 0

    @property
    def skipped_counts(self) -> dict[str, int]:
        """How many items were skipped for each reason."""
        return skip_counts(self.skipped)


def skip_counts(skipped: Sequence[SkippedItem]) -> dict[str, int]:
    """How many items were skipped for each reason, in the order the reasons first appear."""
    return dict(Counter(item.reason for item in skipped))


class SyncReport(BaseModel):
    """The outcome of adding or re-syncing a source."""

    model_config = ConfigDict(frozen=True)

    source_id: int
    resolved: str = ""
    changed: list[str] = Field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = Field(default_factory=list)
    errors: list[SkippedItem] = Field(default_factory=list)
    skipped: list[SkippedItem] = Field(default_factory=list)


class RetrievalMode(StrEnum):
    """Which search runs."""

    HYBRID = "hybrid"
    VECTOR = "vector"
    KEYWORD = "keyword"


class Fusion(StrEnum):
    """How hybrid search combines its rankings into one."""

    # share * each side's score scaled to 0-1 over its candidates, summed
    CONVEX = "convex"
    # weight / (k + rank), summed: reciprocal rank fusion
    RRF = "rrf"


class Message(TypedDict):
    """One chat message."""

    role: str
    content: str


# Boundary types between sources/ and store/: plain dataclasses, built in bulk.


@dataclass(frozen=True)
class UploadedFile:
    """A file as received from a browser upload, a folder or the command line."""

    name: str
    data: bytes


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
