"""What fetching a source reports: previews, skipped items, sync reports, refs."""

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragspace.models.docsets import SourceKind


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
