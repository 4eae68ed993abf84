"""Uploaded files and .zip archives: extract text, and explain what cannot be read."""

import hashlib
import io
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from ragspace.errors import SourceError
from ragspace.extract import extract
from ragspace.hashing import content_hash
from ragspace.models import NewDocument, SkippedItem, UploadedFile
from ragspace.sources.classify import BINARY, NOT_UTF8, content_skip_reason

__all__ = ["ArchiveLimits", "UploadedFile", "read_upload"]


@dataclass(frozen=True)
class ArchiveLimits:
    """Caps that keep a hostile .zip (a zip bomb) from exhausting memory."""

    max_members: int = 2000
    max_total_bytes: int = 200 * 1024 * 1024


def read_upload(
    upload: UploadedFile, max_bytes: int, limits: ArchiveLimits | None = None
) -> list[NewDocument]:
    """Documents of an upload: one per file, or one per member of a .zip archive."""
    path = upload_path(upload.name)
    if PurePosixPath(path).suffix.lower() != ".zip":
        return [document_from_bytes(path, upload.data, max_bytes)]
    if len(upload.data) > max_bytes:
        message = f"Archive is {len(upload.data):,} bytes; the limit is {max_bytes:,}."
        return [error_document(path, upload.data, message)]
    return read_zip(path, upload.data, max_bytes, limits or ArchiveLimits())


def upload_path(name: str) -> str:
    """A relative upload path as given (`docs/api/index.md`); else only the file name."""
    # the CLI sends paths under the directories it adds; browsers send bare file names
    path = PurePosixPath(name.replace("\\", "/"))
    if not path.parts or path.is_absolute() or ".." in path.parts or ":" in path.parts[0]:
        return path.name or "unnamed"
    return path.as_posix()


def document_from_bytes(
    path: str, data: bytes, max_bytes: int, cite: dict[str, Any] | None = None
) -> NewDocument:
    """A pending document with the file's text, or an `error` document saying why not."""
    if len(data) > max_bytes:
        return error_document(
            path, data, f"File is {len(data):,} bytes; the limit is {max_bytes:,}."
        )
    found = classify_bytes(path, data, max_bytes, cite)
    if not isinstance(found, SkippedItem):
        return found
    if found.reason in (BINARY, NOT_UTF8):  # the decoder's message names the byte and a fix
        try:
            extract(path, data)
        except SourceError as exc:
            return error_document(path, data, str(exc))
    # a file given on its own is kept (as an error) so the user sees why it is not indexed
    return error_document(path, data, f"{path} is not indexed: {found.reason}.")


def classify_bytes(
    path: str,
    data: bytes,
    max_bytes: int,
    cite: dict[str, Any] | None = None,
    in_tree: bool = False,
) -> NewDocument | SkippedItem:
    """The shared classification: a document (pending, or error when unreadable) or a skip."""
    if len(data) > max_bytes:
        return SkippedItem(path=path, reason=f"larger than {max_bytes:,} bytes")
    reason = content_skip_reason(path, data)
    if reason:
        return SkippedItem(path=path, reason=reason)
    try:
        extracted = extract(path, data, in_tree=in_tree)
    except SourceError as exc:
        return error_document(path, data, str(exc))
    metadata = {**extracted.metadata, "cite": cite or {}}
    return NewDocument(
        path=path,
        title=PurePosixPath(path).name,
        language=extracted.language,
        content=extracted.text,
        content_hash=content_hash(extracted.text),
        metadata=metadata,
    )


def error_document(path: str, data: bytes, message: str) -> NewDocument:
    """A document kept in `error` so nothing the user gave is silently dropped."""
    return NewDocument(
        path=path,
        title=PurePosixPath(path).name,
        language="unknown",
        content="",
        content_hash=hashlib.sha256(data).hexdigest(),
        error_message=message,
    )


def read_zip(name: str, data: bytes, max_bytes: int, limits: ArchiveLimits) -> list[NewDocument]:
    """One document per archive member, path `archive.zip/inner/path`; unsafe members refused."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        return [error_document(name, data, f"{name} is not a readable .zip archive.")]
    with archive:
        members = [info for info in archive.infolist() if not info.is_dir()]
        declared = sum(info.file_size for info in members)
        problem = None
        if len(members) > limits.max_members:
            problem = f"{name} has {len(members):,} files; the limit is {limits.max_members:,}."
        elif declared > limits.max_total_bytes:
            problem = (
                f"{name} expands to {declared:,} bytes; the limit is {limits.max_total_bytes:,}."
            )
        elif not members:
            problem = f"{name} contains no files."
        if problem:
            return [error_document(name, data, problem)]
        # the declared total is a real bound: zipfile never yields more than a member's
        # declared size (it stops there and checks the CRC), so a lying header only fails
        return [_member(archive, info, name, max_bytes) for info in members]


def _member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, max_bytes: int
) -> NewDocument:
    inner = info.filename.replace("\\", "/")
    parts = PurePosixPath(inner).parts
    path = f"{name}/{inner.lstrip('/')}"
    if inner.startswith("/") or ".." in parts or (parts and ":" in parts[0]):
        return error_document(path, b"", f"Refused unsafe path {inner!r} inside {name}.")
    if stat.S_ISLNK(info.external_attr >> 16):
        return error_document(path, b"", f"{inner} inside {name} is a symbolic link; skipped.")
    if info.flag_bits & 0x1:
        return error_document(path, b"", f"{inner} inside {name} is encrypted.")
    if PurePosixPath(inner).suffix.lower() == ".zip":
        return error_document(path, b"", f"Nested archive {inner} inside {name} is not supported.")
    try:
        with archive.open(info) as handle:
            data = handle.read(max_bytes + 1)  # never read past the cap
    except (zipfile.BadZipFile, NotImplementedError, OSError, EOFError, zlib.error) as exc:
        return error_document(path, b"", f"{inner} inside {name} cannot be read ({exc}).")
    if len(data) > max_bytes:
        return error_document(
            path, b"", f"{inner} inside {name} is larger than the limit of {max_bytes:,} bytes."
        )
    return document_from_bytes(path, data, max_bytes)
