"""DocSets and their sources: what a user creates and fills."""

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, field_validator


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


# the options of the sources a fetcher fetches, and each fetched kind's options type: a new
# source type adds its kind above, its options type here, and a fetcher (sources/fetcher.py)
FetchOptions = GithubOptions | WebOptions
OPTIONS_OF_KIND: dict[SourceKind, type[FetchOptions]] = {
    SourceKind.GITHUB_REPO: GithubOptions,
    SourceKind.GITHUB_FILE: GithubOptions,
    SourceKind.WEB: WebOptions,
}
SourceOptions = FetchOptions | FolderOptions


def source_options(kind: SourceKind, stored: dict[str, Any]) -> SourceOptions | None:
    """A source's stored options as their type (None: a plain upload has none).

    Keys a type does not know (from older versions) are ignored.
    """
    if kind in OPTIONS_OF_KIND:
        return OPTIONS_OF_KIND[kind].model_validate(stored)
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

    @property
    def kind_label(self) -> str:
        """Its kind as tables show it: `folder` for a folder's upload, else the kind."""
        return "folder" if self.is_folder else self.kind.value


def interval_text(every: timedelta | None) -> str:
    """A re-sync interval as people write it: `6h`, `1d`, `90m`; `off` for None."""
    if every is None:
        return "off"
    minutes = int(every.total_seconds() // 60)
    for unit, size in (("w", 7 * 24 * 60), ("d", 24 * 60), ("h", 60)):
        if minutes % size == 0:
            return f"{minutes // size}{unit}"
    return f"{minutes}m"
