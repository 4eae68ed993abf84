"""Fetch a source, keep what did not change, store the rest and drop what disappeared."""

from collections.abc import Sequence
from typing import Any

from ragspace.errors import SourceError, ValidationError
from ragspace.models import (
    OPTIONS_OF_KIND,
    FetchOptions,
    SkippedItem,
    Source,
    SourceKind,
    SourcePreview,
    SyncReport,
    skip_counts,
)
from ragspace.sources.fetcher import Fetcher, FetchResult, PreviousSync
from ragspace.sources.path_limits import storable
from ragspace.sources.secret_scan import redacted_skips
from ragspace.store import Store


def options_for(kind: SourceKind, options: FetchOptions | None) -> FetchOptions:
    """The options a fetched source's kind takes: the defaults for None; another kind's refused."""
    if kind not in OPTIONS_OF_KIND:
        raise ValidationError(f"Sources of kind {kind.value} are not fetched: add their files.")
    expected = OPTIONS_OF_KIND[kind]
    if options is None:
        return expected()
    if not isinstance(options, expected):
        raise ValidationError(
            f"A {kind.value} source takes {expected.__name__}, not {type(options).__name__}."
        )
    return options


def store_fetched(store: Store, source: Source, fetched: FetchResult) -> SyncReport:
    """Apply a fetch to its source in one transaction (fetched sources and folders alike).

    A document whose path is too long to store is a skip, never the failure of its siblings."""
    documents, unstorable = storable(fetched.documents)
    skipped = [*fetched.skipped, *unstorable]
    state = {**fetched.state, "skipped_counts": skip_counts(skipped)}
    if unstorable and "skipped" in state:
        state["skipped"] = [*state["skipped"], *(item.model_dump() for item in unstorable)]
    applied = store.sources.apply_sync(
        source.docset_id,
        source.id,
        documents,
        fetched.unchanged_paths,
        state,
        fetched.ref,  # a GitHub source is one version of its repository
    )
    current = len(fetched.unchanged_paths) + len(documents)
    return SyncReport(
        source_id=source.id,
        resolved=fetched.resolved,
        changed=applied.changed_paths,
        unchanged=current - len(applied.changed_paths),
        removed=applied.removed_paths,
        errors=[
            SkippedItem(path=d.path, reason=d.error_message or "")
            for d in documents
            if d.error_message
        ],
        skipped=[
            *skipped,
            *(item for d in documents for item in redacted_skips(d.path, d.metadata)),
        ],
    )


class SourceSyncer:
    """Previews and syncs fetched sources (GitHub, web, ...) into a DocSet, all or nothing;
    each kind by the fetcher that names it in its `kinds`."""

    def __init__(self, store: Store, fetchers: Sequence[Fetcher[Any]]) -> None:
        self._store = store
        self._fetchers = {kind: fetcher for fetcher in fetchers for kind in fetcher.kinds}

    def check(self, kind: SourceKind, location: str, options: FetchOptions | None) -> FetchOptions:
        """The source's options, once its fetcher has checked the location's form and them."""
        options = options_for(kind, options)
        self._fetcher(kind).check(kind, location, options)
        return options

    def preview(
        self, kind: SourceKind, location: str, options: FetchOptions | None
    ) -> SourcePreview:
        """A dry run: files or pages after filters, skipped ones with reasons, size estimate."""
        if kind not in OPTIONS_OF_KIND:
            raise ValidationError(f"Sources of kind {kind.value} cannot be previewed.")
        return self._fetcher(kind).preview(kind, location, options_for(kind, options))

    def sync(self, source: Source) -> SyncReport:
        """Fetch the source and apply changes; on failure the DocSet is left as it was."""
        try:
            return self._sync(source)
        except SourceError as exc:
            self._store.sources.record_error(source.id, str(exc))
            raise

    def _sync(self, source: Source) -> SyncReport:
        return store_fetched(self._store, source, self._fetch(source))

    def _fetch(self, source: Source) -> FetchResult:
        if source.kind not in OPTIONS_OF_KIND:
            raise ValidationError("Uploaded files are re-synced by uploading them again.")
        previous = PreviousSync(self._store.sources.documents(source.id), source.sync_state)
        options = source.options or OPTIONS_OF_KIND[source.kind]()
        return self._fetcher(source.kind).fetch(source.kind, source.location, options, previous)

    def _fetcher(self, kind: SourceKind) -> Fetcher[Any]:
        if kind not in self._fetchers:
            raise SourceError(f"{kind.value} sources are not configured in this process.")
        return self._fetchers[kind]
