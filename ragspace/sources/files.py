"""Uploaded files: decode text, detect the language, and explain what cannot be read."""

import hashlib
from dataclasses import dataclass
from pathlib import PurePosixPath

from ragspace.languages import detect_language
from ragspace.store import NewDocument

_BINARY_SNIFF_BYTES = 8192


@dataclass(frozen=True)
class UploadedFile:
    """A file as received from a browser upload or the command line."""

    name: str
    data: bytes


def content_hash(text: str) -> str:
    """sha256 of the text; equal hashes mean nothing needs re-embedding."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_uploaded_file(upload: UploadedFile, max_bytes: int) -> NewDocument:
    """A document for the file, or a document carrying the reason it cannot be indexed."""
    path = PurePosixPath(upload.name.replace("\\", "/")).name or "unnamed"
    language = detect_language(path)
    problem = _problem(upload.data, language, max_bytes)
    if problem is not None:
        return _error_document(path, upload.data, problem)
    try:
        text = upload.data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return _error_document(
            path, upload.data, f"{path} is not UTF-8 text (invalid byte at offset {exc.start})."
        )
    assert language is not None
    return NewDocument(
        path=path, title=path, language=language, content=text, content_hash=content_hash(text)
    )


def _problem(data: bytes, language: str | None, max_bytes: int) -> str | None:
    if language is None:
        return "Unsupported file type: upload text, markdown, reStructuredText or source code."
    if len(data) > max_bytes:
        return f"File is {len(data):,} bytes; the limit is {max_bytes:,} bytes."
    if not data.strip():
        return "File is empty."
    if b"\x00" in data[:_BINARY_SNIFF_BYTES]:
        return "File looks binary (it contains NUL bytes), not text."
    return None


def _error_document(path: str, data: bytes, message: str) -> NewDocument:
    return NewDocument(
        path=path,
        title=path,
        language="unknown",
        content="",
        content_hash=hashlib.sha256(data).hexdigest(),
        error_message=message,
    )
