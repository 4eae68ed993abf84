"""GitHub repositories and files as a `Fetcher`: filters, and only changed blobs downloaded."""

import dataclasses
import math

from ragspace.models import GithubOptions, NewDocument, SkippedItem, SourceKind, SourcePreview
from ragspace.sources.classify import BINARY
from ragspace.sources.fetcher import FetchResult, PreviousSync
from ragspace.sources.files import classify_bytes
from ragspace.sources.filters import FileFilter
from ragspace.sources.github_client import GithubClient, RepoFile, RepoListing, parse_location


class GithubFetcher:
    """Lists a repository (or one file) at a commit and diffs it with what is stored."""

    kinds = (SourceKind.GITHUB_REPO, SourceKind.GITHUB_FILE)

    def __init__(self, client: GithubClient, max_file_bytes: int, chunk_chars: int = 1000) -> None:
        self._client = client
        self._max_file_bytes = max_file_bytes
        self._chunk_chars = chunk_chars

    def check(self, kind: SourceKind, location: str, options: GithubOptions) -> None:  # noqa: ARG002
        """A bad location, ref or glob is refused, not stored."""
        parse_location(location, options.ref)
        FileFilter(options.include, options.exclude)

    def preview(self, kind: SourceKind, location: str, options: GithubOptions) -> SourcePreview:
        """Files after filters, skipped ones with reasons, size estimate: no download."""
        listing = self._listing(kind, location, options)
        return SourcePreview(
            kind=kind,
            location=location,
            resolved=listing.commit,
            items=[f.path for f in listing.files],
            skipped=listing.skipped,
            total_bytes=sum(f.size for f in listing.files),
            estimated_chunks=sum(math.ceil(f.size / self._chunk_chars) for f in listing.files),
        )

    def fetch(
        self, kind: SourceKind, location: str, options: GithubOptions, previous: PreviousSync
    ) -> FetchResult:
        """Changed blobs (one tarball), unchanged paths, and skips; the state records both."""
        github_location = parse_location(location, options.ref)
        if kind is SourceKind.GITHUB_FILE:
            listing, data = self._client.get_file(github_location)
            contents = {listing.files[0].path: data}
            changed = listing.files
        else:
            listing = self._client.list_repository(github_location, self._filter(options))
            changed = [f for f in listing.files if _needs_fetch(previous, listing, f)]
        # blobs skipped by content last time are skipped again without downloading them
        known: dict[str, str] = dict(previous.state.get("binary_blobs") or {})
        reasons: dict[str, str] = dict(previous.state.get("skip_reasons") or {})
        unread = {f.path: f.sha for f in changed if known.get(f.path) == f.sha}
        changed = [f for f in changed if f.path not in unread]
        if kind is not SourceKind.GITHUB_FILE:
            contents = self._client.download(listing, [f.path for f in changed])
        documents: list[NewDocument] = []
        for file in changed:
            found = self._document(listing, file, contents[file.path])
            if isinstance(found, SkippedItem):
                unread[file.path] = file.sha
                reasons[file.path] = found.reason
            else:
                documents.append(found)
        reasons = {path: reasons.get(path, BINARY) for path in unread}
        skipped = listing.skipped + [SkippedItem(path=p, reason=r) for p, r in reasons.items()]
        fetched = {f.path for f in changed} | set(unread)
        unchanged = [_doc_path(listing, f.path) for f in listing.files if f.path not in fetched]
        state = {
            "commit": listing.commit,
            "ref": listing.ref,
            "files": len(listing.files),
            "binary_blobs": unread,
            "skip_reasons": reasons,
        }
        return FetchResult(documents, unchanged, skipped, state, listing.commit, listing.ref)

    def _listing(self, kind: SourceKind, location: str, options: GithubOptions) -> RepoListing:
        if kind is SourceKind.GITHUB_FILE:
            listing, _ = self._client.get_file(parse_location(location, options.ref))
            return listing
        return self._client.list_repository(
            parse_location(location, options.ref), self._filter(options)
        )

    def _document(
        self, listing: RepoListing, file: RepoFile, data: bytes
    ) -> NewDocument | SkippedItem:
        found = classify_bytes(
            _doc_path(listing, file.path),
            data,
            self._max_file_bytes,
            cite=listing.cite(file.path),
            in_tree=True,
        )
        if isinstance(found, SkippedItem):
            return SkippedItem(path=file.path, reason=found.reason)
        if found.error_message:
            return found
        # the blob SHA is the content identity: an unchanged blob is never re-embedded
        return dataclasses.replace(
            found, content_hash=file.sha, metadata={**found.metadata, "blob_sha": file.sha}
        )

    def _filter(self, options: GithubOptions) -> FileFilter:
        return FileFilter(options.include, options.exclude, self._max_file_bytes)


def _doc_path(listing: RepoListing, path: str) -> str:
    return f"{listing.full_name}/{path}"


def _needs_fetch(previous: PreviousSync, listing: RepoListing, file: RepoFile) -> bool:
    existing = previous.documents.get(_doc_path(listing, file.path))
    return (
        existing is None
        or existing.content_hash != file.sha
        or existing.embedding_status == "error"
    )
