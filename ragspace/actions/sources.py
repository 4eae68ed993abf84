"""Source actions: uploads and folders, GitHub and web sources, re-syncs and their schedule."""

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ragspace.actions.read_only import changes
from ragspace.actions.validation import valid_interval, valid_location
from ragspace.errors import ConfigError, ValidationError
from ragspace.models import (
    DocSet,
    Document,
    EmbeddingStatus,
    FetchOptions,
    FolderOptions,
    IncomingFile,
    NewDocument,
    SkippedItem,
    Source,
    SourceKind,
    SourcePreview,
    SyncReport,
)
from ragspace.sources.fetcher import FetchResult
from ragspace.sources.files import (
    ArchiveLimits,
    TextBudget,
    classify_bytes,
    error_document,
    read_upload,
)
from ragspace.sources.filters import FileFilter
from ragspace.sources.folder import FolderListing, read_folder, select_files
from ragspace.sources.path_limits import as_upload_errors
from ragspace.sources.push_events import Delivery, DuplicateDeliveryError, PushEvent, push_matches
from ragspace.sources.sync import SourceSyncer, store_fetched
from ragspace.store import DeliveryLog, Store, SyncSchedule


class SourceActions:
    """What a front end adds to a DocSet, and how it is kept up to date."""

    def __init__(
        self,
        store: Store,
        syncer: SourceSyncer | None,
        schedule: SyncSchedule,
        deliveries: DeliveryLog,
        limits: ArchiveLimits,
        max_upload_bytes: int,
        on_new_work: Callable[[], None],
        read_only: bool = False,
    ) -> None:
        self.read_only = read_only
        self._store = store
        self._syncer = syncer
        self._schedule = schedule
        self._deliveries = deliveries
        self._limits = limits
        self._max_upload_bytes = max_upload_bytes
        self._on_new_work = on_new_work

    def all(self, docset_name: str) -> list[Source]:
        """The sources of a DocSet with their last sync state."""
        return self._store.sources.of_docset(self._store.docsets.named(docset_name).id)

    # uploads and folders

    @changes("add files")
    def add_files(self, docset_name: str, files: Sequence[IncomingFile]) -> list[Document]:
        """Store the readable uploaded files as documents, queued for embedding; the stored
        documents come first, then one unstored `error` document (id 0) per file skipped,
        with why (empty, binary, too large...): a skipped file is reported, not kept as a
        failed document the DocSet counts (issue 67).

        Files are read one at a time, each only if its size fits what is left of the
        upload's text budget; a path too long to store becomes an error document."""
        if not files:
            raise ValidationError("Choose at least one file to upload.")
        docset = self._store.docsets.named(docset_name)
        budget = TextBudget(self._limits.max_upload_text_bytes)  # for all files
        documents = as_upload_errors(
            [
                document
                for f in files
                for document in read_upload(f, self._max_upload_bytes, self._limits, budget)
            ]
        )
        readable = [d for d in documents if not d.error_message]
        skipped = [_skipped(docset, d) for d in documents if d.error_message]
        if not readable:
            return skipped
        location = ", ".join(f.name for f in files)[:500]
        source = self._store.sources.create(docset.id, SourceKind.UPLOAD, location)
        with self._removed_on_failure(source):
            ids = self._store.documents.upsert(docset.id, source.id, readable)
        self._on_new_work()
        return [self._store.documents.get(document_id) for document_id in ids] + skipped

    def preview_folder(self, path: Path, options: FolderOptions | None = None) -> SourcePreview:
        """A dry run of a local folder: files indexed, and every skip with its reason."""
        listing = read_folder(path, self._folder_filter(options or FolderOptions()))
        documents, skipped = classify_folder(listing, self._max_upload_bytes, self._limits)
        return folder_preview(listing.name, documents, skipped)

    @changes("add folders")
    def add_folder(
        self, docset_name: str, path: Path, options: FolderOptions | None = None
    ) -> SyncReport:
        """Index a local folder or checkout (.gitignore and filters respected) as one source."""
        options = options or FolderOptions()
        docset = self._store.docsets.named(docset_name)
        listing = read_folder(path, self._folder_filter(options))
        return self._store_folder(docset, listing, options)

    @changes("add folders")
    def add_uploaded_folder(
        self,
        docset_name: str,
        name: str,
        files: Sequence[IncomingFile],
        options: FolderOptions | None = None,
    ) -> SyncReport:
        """Index a folder uploaded from a browser (paths relative to it) like a local folder."""
        if not files:
            raise ValidationError("Choose a folder with at least one file.")
        options = options or FolderOptions()
        docset = self._store.docsets.named(docset_name)
        listing = select_files(name, files, self._folder_filter(options))
        return self._store_folder(docset, listing, options)

    def _folder_filter(self, options: FolderOptions) -> FileFilter:
        return FileFilter(options.include, options.exclude, self._max_upload_bytes)

    def _store_folder(
        self, docset: DocSet, listing: FolderListing, options: FolderOptions
    ) -> SyncReport:
        documents, skipped = classify_folder(listing, self._max_upload_bytes, self._limits)
        if not documents:
            raise ValidationError(
                f"Folder {listing.name!r} has no text files to index ({len(skipped)} skipped)."
            )
        source = self._store.sources.create(docset.id, SourceKind.UPLOAD, listing.name, options)
        state = {"skipped": [item.model_dump() for item in skipped]}
        read = FetchResult(documents, [], skipped, state, resolved=listing.name)
        with self._removed_on_failure(source):  # no source row without its documents
            report = store_fetched(self._store, source, read)
        self._on_new_work()
        return report

    @contextmanager
    def _removed_on_failure(self, source: Source) -> Iterator[None]:
        try:
            yield
        except BaseException:
            self._store.sources.remove(source.id)
            raise

    # GitHub and web

    @changes("add sources")
    def preview(
        self,
        kind: SourceKind,
        location: str,
        options: FetchOptions | None = None,
    ) -> SourcePreview:
        """A dry run of a GitHub or web source: what would be ingested and what is skipped."""
        return self._sources().preview(kind, valid_location(location), options)

    @changes("add sources")
    def add(
        self,
        docset_name: str,
        kind: SourceKind,
        location: str,
        options: FetchOptions | None = None,
        resync_every: timedelta | None = None,
    ) -> SyncReport:
        """Record a GitHub or web source and sync it; a failure is kept on the source.

        With `resync_every`, the workers re-sync it on that interval from now on.
        """
        if kind is SourceKind.UPLOAD:
            raise ValidationError("Uploaded files are added with add_files, not as a source.")
        every = valid_interval(resync_every)
        docset = self._store.docsets.named(docset_name)
        syncer = self._sources()
        location = valid_location(location)
        fetch_options = syncer.check(kind, location, options)  # refused, not stored
        source = self._store.sources.create(docset.id, kind, location, fetch_options)
        if every is not None:
            source = self._schedule.set_interval(source.id, every)
        report = syncer.sync(source)
        self._on_new_work()
        return report

    @changes("re-sync sources")
    def resync(self, source_id: int) -> SyncReport:
        """Fetch a source again: only what changed is re-embedded, what vanished is removed."""
        report = self._sources().sync(self._store.sources.get(source_id))
        self._on_new_work()
        return report

    @changes("change re-sync schedules")
    def set_resync_interval(self, source_id: int, every: timedelta | None) -> Source:
        """Re-sync a GitHub or web source every `every` from now on (None: not scheduled)."""
        return self._schedule.set_interval(source_id, valid_interval(every))

    @changes("re-sync sources")  # read-only is read-only for every caller, webhooks too
    def github_push(self, push: PushEvent, delivery: Delivery | None = None) -> list[int]:
        """Queue a re-sync of every GitHub source that follows the pushed ref; their ids.

        A `delivery` seen within a day (by id or by body) raises DuplicateDeliveryError.
        """
        if delivery is not None and not self._deliveries.first_time(delivery.id, delivery.digest):
            raise DuplicateDeliveryError(f"Delivery {delivery.id} was handled already.")
        matching = [s.id for s in self._schedule.github_sources() if push_matches(s, push)]
        queued = self._schedule.make_due(matching) if matching else []
        if queued:
            self._on_new_work()
        return queued

    def _sources(self) -> SourceSyncer:
        if self._syncer is None:
            raise ConfigError("GitHub and web sources are not configured in this process.")
        return self._syncer


def classify_folder(
    listing: FolderListing, max_upload_bytes: int, limits: ArchiveLimits
) -> tuple[list[NewDocument], list[SkippedItem]]:
    """A folder's files as documents to index, and every skip with its reason, by path."""
    documents: list[NewDocument] = []
    skipped = list(listing.skipped)
    # a folder is one upload: its files share the upload's text budget, like a zip's
    budget = TextBudget(limits.max_upload_text_bytes)
    for file in listing.files:  # one file in memory at a time, read only within the budget
        found = _classified(file, max_upload_bytes, limits, budget)
        if isinstance(found, SkippedItem):
            skipped.append(found)
        else:
            documents.append(found)
    return documents, sorted(skipped, key=lambda item: item.path)


def _classified(
    file: IncomingFile, max_upload_bytes: int, limits: ArchiveLimits, budget: TextBudget
) -> NewDocument | SkippedItem:
    if file.size > max_upload_bytes:
        return SkippedItem(path=file.name, reason=f"larger than {max_upload_bytes:,} bytes")
    if not budget.take(file.size):  # judged by its size: the file is not read
        return error_document(file.name, b"", budget.refusal(file.name))
    data = file.read(max_upload_bytes)
    if isinstance(data, str):
        return SkippedItem(path=file.name, reason=data)
    budget.take(max(0, len(data) - file.size))  # it grew since it was listed
    return classify_bytes(file.name, data, max_upload_bytes, in_tree=True, limits=limits)


def folder_preview(
    name: str, documents: Sequence[NewDocument], skipped: Sequence[SkippedItem]
) -> SourcePreview:
    """What indexing a folder would store, as a source preview."""
    return SourcePreview(
        kind=SourceKind.UPLOAD,
        location=name,
        items=[d.path for d in documents],
        skipped=list(skipped),
        total_bytes=sum(len(d.content.encode()) for d in documents),
        estimated_chunks=sum(max(1, len(d.content) // 1000) for d in documents),
    )


def _skipped(docset: DocSet, document: NewDocument) -> Document:
    """An upload that is not stored, as the document it would have been, with its reason."""
    now = datetime.now(UTC)
    return Document(
        id=0,
        docset_id=docset.id,
        docset_name=docset.name,
        source_id=None,
        path=document.path,
        title=document.title,
        language=document.language,
        content_hash=document.content_hash,
        embedding_status=EmbeddingStatus.ERROR,
        error_message=document.error_message,
        chunk_count=0,
        created_at=now,
        updated_at=now,
    )
