"""The one shape of a source fetcher: a dry run, and what changed since the last sync."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from ragspace.models import NewDocument, SkippedItem, SourceKind, SourcePreview, StoredDocument

OptionsT = TypeVar("OptionsT", contravariant=True)


@dataclass(frozen=True)
class PreviousSync:
    """What a source holds from its last sync: its documents by path and its sync state."""

    documents: Mapping[str, StoredDocument] = field(default_factory=dict)
    state: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FetchResult:
    """What a fetch found; the store keeps `documents` and `unchanged_paths`, drops the rest."""

    documents: list[NewDocument]  # new or changed since the last sync (unreadable ones too)
    unchanged_paths: list[str]  # stored documents that are still current
    skipped: list[SkippedItem]  # left out, each with its reason
    state: dict[str, Any]  # the source's sync state from now on
    resolved: str = ""  # what the location resolved to: a commit SHA, the final start URL
    ref: str = ""  # the GitHub ref its documents are a version of ('' for unversioned sources)


class Fetcher(Protocol[OptionsT]):
    """Fetches the sources of some kinds (GitHub: repositories and single files).

    A new source type is a fetcher of its kind (and its options type in
    `models.OPTIONS_OF_KIND`), handed to `SourceSyncer` by `runtime.build_syncer`."""

    @property
    def kinds(self) -> tuple[SourceKind, ...]:
        """The kinds of source this fetcher fetches."""
        ...

    def check(self, kind: SourceKind, location: str, options: OptionsT) -> None:
        """Refuse (SourceError, ValidationError) a location or options it could never fetch,
        before the source is stored: its form only, nothing is fetched."""
        ...

    def preview(self, kind: SourceKind, location: str, options: OptionsT) -> SourcePreview:
        """What a sync would index and skip, with a size estimate; nothing is stored."""
        ...

    def fetch(
        self, kind: SourceKind, location: str, options: OptionsT, previous: PreviousSync
    ) -> FetchResult:
        """New and changed documents, unchanged paths and skips, compared with `previous`."""
        ...
