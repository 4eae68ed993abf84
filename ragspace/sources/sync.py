"""Fetch a source, keep what did not change, store the rest and drop what disappeared."""

from ragspace.errors import SourceError, ValidationError
from ragspace.models import (
    GithubOptions,
    SkippedItem,
    Source,
    SourceKind,
    SourcePreview,
    SyncReport,
    WebOptions,
    skip_counts,
)
from ragspace.sources.fetcher import Fetcher, FetchResult, PreviousSync
from ragspace.sources.secret_scan import redacted_skips
from ragspace.store import Store

# the options of the sources that are fetched (uploads and folders are not)
FetchOptions = GithubOptions | WebOptions


def options_for(kind: SourceKind, options: FetchOptions | None) -> FetchOptions:
    """The options a GitHub or web source takes: the defaults for None; another kind's refused."""
    expected: type[FetchOptions] = WebOptions if kind is SourceKind.WEB else GithubOptions
    if options is None:
        return expected()
    if not isinstance(options, expected):
        raise ValidationError(
            f"A {kind.value} source takes {expected.__name__}, not {type(options).__name__}."
        )
    return options


def store_fetched(store: Store, source: Source, fetched: FetchResult) -> SyncReport:
    """Apply a fetch to its source in one transaction (fetched sources and folders alike)."""
    state = {**fetched.state, "skipped_counts": skip_counts(fetched.skipped)}
    applied = store.sources.apply_sync(
        source.docset_id,
        source.id,
        fetched.documents,
        fetched.unchanged_paths,
        state,
        fetched.ref,  # a GitHub source is one version of its repository
    )
    current = len(fetched.unchanged_paths) + len(fetched.documents)
    return SyncReport(
        source_id=source.id,
        resolved=fetched.resolved,
        changed=applied.changed_paths,
        unchanged=current - len(applied.changed_paths),
        removed=applied.removed_paths,
        errors=[
            SkippedItem(path=d.path, reason=d.error_message or "")
            for d in fetched.documents
            if d.error_message
        ],
        skipped=[
            *fetched.skipped,
            *(item for d in fetched.documents for item in redacted_skips(d.path, d.metadata)),
        ],
    )


class SourceSyncer:
    """Previews and syncs GitHub and web sources into a DocSet, all or nothing."""

    def __init__(
        self, store: Store, github: Fetcher[GithubOptions], web: Fetcher[WebOptions] | None
    ) -> None:
        self._store = store
        self._github = github
        self._web = web

    def preview(
        self, kind: SourceKind, location: str, options: FetchOptions | None
    ) -> SourcePreview:
        """A dry run: files or pages after filters, skipped ones with reasons, size estimate."""
        if kind is SourceKind.UPLOAD:
            raise ValidationError(f"Sources of kind {kind.value} cannot be previewed.")
        options = options_for(kind, options)
        if isinstance(options, WebOptions):
            return self._web_fetcher().preview(kind, location, options)
        return self._github.preview(kind, location, options)

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
        previous = PreviousSync(self._store.sources.documents(source.id), source.sync_state)
        if source.kind is SourceKind.WEB:
            return self._web_fetcher().fetch(
                source.kind, source.location, source.web_options, previous
            )
        if source.kind in (SourceKind.GITHUB_REPO, SourceKind.GITHUB_FILE):
            return self._github.fetch(source.kind, source.location, source.github_options, previous)
        raise ValidationError("Uploaded files are re-synced by uploading them again.")

    def _web_fetcher(self) -> Fetcher[WebOptions]:
        if self._web is None:
            raise SourceError("Web sources are not configured.")
        return self._web
