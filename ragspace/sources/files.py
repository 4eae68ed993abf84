"""Uploaded files and .zip archives: extract text, and explain what cannot be read."""

import hashlib
import io
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from ragspace.errors import NoTextError, SourceError
from ragspace.models import IncomingFile, NewDocument, OriginalFile, SkippedItem, UploadedFile
from ragspace.settings.area import default_of
from ragspace.settings.limits import LimitSettings
from ragspace.sources.classify import BINARY, NOT_UTF8, content_skip_reason
from ragspace.sources.extract import Extracted, extract
from ragspace.sources.path_limits import path_problem
from ragspace.sources.secret_scan import REDACTED_LINES, redact_secrets
from ragspace.text.hashing import content_hash

# the size of the file itself, in a document's metadata when its text is not the file (a PDF's
# extracted text, a page's markdown): what the documents panel shows as its size
FILE_BYTES = "file_bytes"

__all__ = ["ArchiveLimits", "UploadedFile", "read_upload"]


@dataclass(frozen=True)
class ArchiveLimits:
    """Caps that keep a hostile .zip (a zip bomb) from exhausting memory."""

    max_members: int = default_of(LimitSettings, "zip_max_members")
    max_total_bytes: int = default_of(LimitSettings, "zip_max_total_bytes")
    # all files of one upload together, archive members decompressed: counted while reading
    max_upload_text_bytes: int = default_of(LimitSettings, "upload_text_budget_bytes")
    # longer text cannot fit the chunk limit; refused before chunking, and stores no text
    max_document_chars: int | None = None


class TextBudget:
    """Bytes an upload may still read (decompress); shared by all files of the upload."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.remaining = total

    def take(self, size: int) -> bool:
        """Spend `size` bytes; False (nothing spent) when that is more than remains."""
        if size > self.remaining:
            return False
        self.remaining -= size
        return True

    def refusal(self, path: str) -> str:
        """Why `path` was not read."""
        return (
            f"{path} was not read: this upload's files together exceed {self.total:,} bytes "
            "of text (RAGSPACE_UPLOAD_TEXT_BUDGET_BYTES). Upload fewer or smaller files."
        )


def read_upload(
    upload: IncomingFile,
    max_bytes: int,
    limits: ArchiveLimits | None = None,
    budget: TextBudget | None = None,
) -> list[NewDocument]:
    """Documents of an upload: one per file, or one per member of a .zip archive.

    Sizes are checked before anything is read: a file over the size limit or past the
    upload's text budget is never read into memory."""
    limits = limits or ArchiveLimits()
    budget = budget or TextBudget(limits.max_upload_text_bytes)
    path = upload_path(upload.name)
    archive = PurePosixPath(path).suffix.lower() == ".zip"
    if upload.size > max_bytes:
        what = "Archive" if archive else "File"
        message = f"{what} is {upload.size:,} bytes; the limit is {max_bytes:,}."
        return [error_document(path, b"", message)]
    if not archive and not budget.take(upload.size):
        return [error_document(path, b"", budget.refusal(path))]
    data = upload.read(max_bytes)
    if isinstance(data, str):  # the file changed or vanished since it was listed
        return [error_document(path, b"", f"{path} could not be read: {data}.")]
    if archive:
        return read_zip(path, data, max_bytes, limits, budget)
    return [document_from_bytes(path, data, max_bytes, None, limits)]


def upload_path(name: str) -> str:
    """A relative upload path as given (`docs/api/index.md`); else only the file name."""
    # the CLI sends paths under the directories it adds; browsers send bare file names
    path = PurePosixPath(name.replace("\\", "/"))
    if not path.parts or path.is_absolute() or ".." in path.parts or ":" in path.parts[0]:
        return path.name or "unnamed"
    return path.as_posix()


def document_from_bytes(
    path: str,
    data: bytes,
    max_bytes: int,
    cite: dict[str, Any] | None = None,
    limits: ArchiveLimits | None = None,
) -> NewDocument:
    """A pending document with the file's text, or an `error` document saying why not."""
    if len(data) > max_bytes:
        return error_document(
            path, data, f"File is {len(data):,} bytes; the limit is {max_bytes:,}."
        )
    found = classify_bytes(path, data, max_bytes, cite, limits=limits)
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
    limits: ArchiveLimits | None = None,
) -> NewDocument | SkippedItem:
    """The shared classification: a document (pending, or error when unreadable) or a skip.

    In a tree (`in_tree`: a repository or folder) a file that holds no text (an image-only
    PDF, a deliberately broken encoding) is a skip; uploaded on its own it is an error."""
    if len(data) > max_bytes:
        return SkippedItem(path=path, reason=f"larger than {max_bytes:,} bytes")
    reason = content_skip_reason(path, data)
    if reason:
        return SkippedItem(path=path, reason=reason)
    try:
        extracted = extract(path, data, in_tree=in_tree)
    except NoTextError as exc:
        if in_tree:  # a repository's fixture with no text is part of a healthy tree
            return SkippedItem(path=path, reason=exc.reason)
        return error_document(path, data, str(exc))
    except SourceError as exc:
        return error_document(path, data, str(exc))
    except RecursionError:
        return error_document(path, data, f"{path} is nested too deeply to be read.")
    except Exception as exc:  # one hostile file fails alone; its siblings are still added
        return error_document(path, data, f"{path} could not be read ({type(exc).__name__}).")
    limit = limits.max_document_chars if limits else None
    if limit is not None and len(extracted.text) > limit:
        return error_document(
            path,
            data,
            f"{path} has {len(extracted.text):,} characters of text; at most {limit:,} fit "
            "the chunk limit (RAGSPACE_MAX_CHUNKS_PER_DOCUMENT). Split the file.",
        )
    text, redactions = redact_secrets(extracted.text)
    metadata = {**extracted.metadata, "cite": cite or {}}
    if len(data) != len(text.encode()):  # a PDF, a page, a notebook: its size is the file's
        metadata[FILE_BYTES] = len(data)
    if redactions:  # listed with the source's skips (sync.store_fetched)
        metadata[REDACTED_LINES] = [[r.line, r.reason] for r in redactions]
    return NewDocument(
        path=path,
        title=PurePosixPath(path).name,
        language=extracted.language,
        content=text,
        content_hash=content_hash(text),
        metadata=metadata,
        # the original file would still hold the secret
        original=None if redactions else _kept_original(extracted, data, cite),
    )


def _kept_original(
    extracted: Extracted, data: bytes, cite: dict[str, Any] | None
) -> OriginalFile | None:
    """A PDF's bytes when nothing else can show its pages (no GitHub or web origin)."""
    if "page_lines" not in extracted.metadata or (cite or {}).get("html_url"):
        return None
    return OriginalFile(media_type="application/pdf", content=data)


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


def read_zip(
    name: str,
    data: bytes,
    max_bytes: int,
    limits: ArchiveLimits,
    budget: TextBudget | None = None,
) -> list[NewDocument]:
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
        budget = budget or TextBudget(limits.max_upload_text_bytes)
        return [_member(archive, info, name, max_bytes, limits, budget) for info in members]


def _member(
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    name: str,
    max_bytes: int,
    limits: ArchiveLimits,
    budget: TextBudget,
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
    problem = path_problem(path)
    if problem:  # not read; stored as an error under a shortened path (as_upload_errors)
        return error_document(path, b"", f"{inner[:200]} inside {name} is not indexed: {problem}.")
    if info.file_size > budget.remaining:  # the header's size is a bound (see read_zip)
        return error_document(path, b"", budget.refusal(path))
    try:
        with archive.open(info) as handle:
            # never decompress past the cap or what is left of the upload's budget
            data = handle.read(min(max_bytes, budget.remaining) + 1)
    except (zipfile.BadZipFile, NotImplementedError, OSError, EOFError, zlib.error) as exc:
        return error_document(path, b"", f"{inner} inside {name} cannot be read ({exc}).")
    if len(data) > max_bytes:
        return error_document(
            path, b"", f"{inner} inside {name} is larger than the limit of {max_bytes:,} bytes."
        )
    if not budget.take(len(data)):
        return error_document(path, b"", budget.refusal(path))
    return document_from_bytes(path, data, max_bytes, None, limits)
