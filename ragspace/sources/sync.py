"""Fetch a source, keep what did not change, store the rest and drop what disappeared."""

import dataclasses
import math
from typing import Any, Protocol

from ragspace.errors import SourceError, ValidationError
from ragspace.models import (
    GithubOptions,
    NewDocument,
    SkippedItem,
    Source,
    SourceKind,
    SourcePreview,
    StoredDocument,
    SyncReport,
    WebOptions,
)
from ragspace.sources.classify import BINARY
from ragspace.sources.files import classify_bytes
from ragspace.sources.filters import FileFilter
from ragspace.sources.github import GithubClient, RepoListing, parse_location
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


class WebSource(Protocol):
    """What the syncer needs from the web crawler (see `ragspace.sources.web`)."""

    def preview(self, location: str, options: WebOptions) -> SourcePreview:
        """Pages that a crawl would fetch, without storing anything."""
        ...

    def crawl(
        self, location: str, options: WebOptions, stored: dict[str, StoredDocument]
    ) -> tuple[list[NewDocument], list[str], list[SkippedItem], dict[str, Any]]:
        """Changed pages, unchanged page paths, skipped pages and the sync state."""
        ...


class SourceSyncer:
    """Previews and syncs GitHub and web sources into a DocSet, all or nothing."""

    def __init__(
        self,
        store: Store,
        github: GithubClient,
        web: WebSource | None,
        max_file_bytes: int,
        chunk_chars: int = 1000,
    ) -> None:
        self._store = store
        self._github = github
        self._web = web
        self._max_file_bytes = max_file_bytes
        self._chunk_chars = chunk_chars

    def preview(
        self, kind: SourceKind, location: str, options: FetchOptions | None
    ) -> SourcePreview:
        """A dry run: files or pages after filters, skipped ones with reasons, size estimate."""
        if kind is SourceKind.UPLOAD:
            raise ValidationError(f"Sources of kind {kind.value} cannot be previewed.")
        options = options_for(kind, options)
        if isinstance(options, WebOptions):
            return self._web_source().preview(location, options)
        if kind is SourceKind.GITHUB_FILE:
            listing, _ = self._github.get_file(parse_location(location, options.ref))
        else:
            listing = self._github.list_repository(
                parse_location(location, options.ref), self._filter(options)
            )
        total = sum(f.size for f in listing.files)
        return SourcePreview(
            kind=kind,
            location=location,
            resolved=listing.commit,
            items=[f.path for f in listing.files],
            skipped=listing.skipped,
            total_bytes=total,
            estimated_chunks=sum(math.ceil(f.size / self._chunk_chars) for f in listing.files),
        )

    def sync(self, source: Source) -> SyncReport:
        """Fetch the source and apply changes; on failure the DocSet is left as it was."""
        try:
            return self._sync(source)
        except SourceError as exc:
            self._store.record_source_error(source.id, str(exc))
            raise

    def _sync(self, source: Source) -> SyncReport:
        stored = self._store.source_documents(source.id)
        if source.kind is SourceKind.WEB:
            documents, kept, skipped, state = self._web_source().crawl(
                source.location, source.web_options, stored
            )
        elif source.kind in (SourceKind.GITHUB_REPO, SourceKind.GITHUB_FILE):
            documents, kept, skipped, state = self._github_documents(source, stored)
        else:
            raise ValidationError("Uploaded files are re-synced by uploading them again.")
        state["skipped_counts"] = _counts(skipped)
        # a GitHub source is one version of its repository: its documents carry the ref
        ref = str(state.get("ref") or "") if source.kind is not SourceKind.WEB else ""
        result = self._store.apply_sync(source.docset_id, source.id, documents, kept, state, ref)
        return SyncReport(
            source_id=source.id,
            resolved=str(state.get("commit") or state.get("start_url") or ""),
            changed=result.changed_paths,
            unchanged=len(kept) + len(documents) - len(result.changed_paths),
            removed=result.removed_paths,
            errors=[
                SkippedItem(path=d.path, reason=d.error_message or "")
                for d in documents
                if d.error_message
            ],
            skipped=skipped,
        )

    def _github_documents(
        self, source: Source, stored: dict[str, StoredDocument]
    ) -> tuple[list[NewDocument], list[str], list[SkippedItem], dict[str, Any]]:
        options = source.github_options
        location = parse_location(source.location, options.ref)
        if source.kind is SourceKind.GITHUB_FILE:
            listing, data = self._github.get_file(location)
            contents = {listing.files[0].path: data}
            changed = listing.files
        else:
            listing = self._github.list_repository(location, self._filter(options))
            changed = [f for f in listing.files if _needs_fetch(stored, listing, f.path, f.sha)]
        # blobs skipped by content last time are skipped again without downloading them
        known: dict[str, str] = source.sync_state.get("binary_blobs", {})
        reasons: dict[str, str] = source.sync_state.get("skip_reasons", {})
        unread = {f.path: f.sha for f in changed if known.get(f.path) == f.sha}
        changed = [f for f in changed if f.path not in unread]
        if source.kind is SourceKind.GITHUB_REPO:
            contents = self._github.download(listing, [f.path for f in changed])
        documents: list[NewDocument] = []
        for file in changed:
            found = self._github_document(listing, file.path, file.sha, contents[file.path])
            if isinstance(found, SkippedItem):
                unread[file.path] = file.sha
                reasons[file.path] = found.reason
            else:
                documents.append(found)
        reasons = {path: reasons.get(path, BINARY) for path in unread}
        skipped = listing.skipped + [SkippedItem(path=p, reason=r) for p, r in reasons.items()]
        fetched = {f.path for f in changed} | set(unread)
        kept = [_doc_path(listing, f.path) for f in listing.files if f.path not in fetched]
        state = {
            "commit": listing.commit,
            "ref": listing.ref,
            "files": len(listing.files),
            "binary_blobs": unread,
            "skip_reasons": reasons,
        }
        return documents, kept, skipped, state

    def _github_document(
        self, listing: RepoListing, path: str, blob_sha: str, data: bytes
    ) -> NewDocument | SkippedItem:
        found = classify_bytes(
            _doc_path(listing, path),
            data,
            self._max_file_bytes,
            cite=listing.cite(path),
            in_tree=True,
        )
        if isinstance(found, SkippedItem):
            return SkippedItem(path=path, reason=found.reason)
        if found.error_message:
            return found
        # the blob SHA is the content identity: an unchanged blob is never re-embedded
        return dataclasses.replace(
            found, content_hash=blob_sha, metadata={**found.metadata, "blob_sha": blob_sha}
        )

    def _filter(self, options: GithubOptions) -> FileFilter:
        return FileFilter(options.include, options.exclude, self._max_file_bytes)

    def _web_source(self) -> WebSource:
        if self._web is None:
            raise SourceError("Web sources are not configured.")
        return self._web


def _doc_path(listing: RepoListing, path: str) -> str:
    return f"{listing.full_name}/{path}"


def _needs_fetch(
    stored: dict[str, StoredDocument], listing: RepoListing, path: str, sha: str
) -> bool:
    existing = stored.get(_doc_path(listing, path))
    return existing is None or existing.content_hash != sha or existing.embedding_status == "error"


def _counts(skipped: list[SkippedItem]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in skipped:
        counts[item.reason] = counts.get(item.reason, 0) + 1
    return counts
