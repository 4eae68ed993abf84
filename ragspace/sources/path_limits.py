"""How long and how deep a file's path may be: one rule for folders, uploads, archives and syncs.

A document's path is part of the `documents (docset_id, ref, path)` b-tree index, and
Postgres refuses an index row over about 2,700 bytes (`index row size 4344 exceeds btree
version 4 maximum 2704`): one such path failed the whole transaction, its siblings with it.
So a longer path is a skip (in a tree) or an error document under a shortened path (an
upload), decided before the file is read or matched against any pattern. Depth is bounded
too: the folder walk recurses once per level (1,100 nested folders ended in a
`RecursionError`), and no real tree needs more than a few dozen levels.
"""

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import PurePosixPath

from ragspace.models import NewDocument, SkippedItem

MAX_PATH_BYTES = 1024  # UTF-8 bytes of the stored path (the index allows about 2,700)
MAX_DEPTH = 64  # folders between the root and a file
TOO_LONG = f"path longer than {MAX_PATH_BYTES:,} bytes"
TOO_DEEP = f"nested deeper than {MAX_DEPTH} folders"
_SHOWN_CHARS = 200


def path_problem(path: str) -> str | None:
    """The skip reason for a path too long to store or nested too deeply, else None."""
    if len(path) > MAX_PATH_BYTES or len(path.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        return TOO_LONG
    if path.count("/") > MAX_DEPTH:
        return TOO_DEEP
    return None


def too_deep(folder: str) -> bool:
    """Whether the files of `folder` (relative, `a/b/c`) would be nested too deeply."""
    return len(PurePosixPath(folder).parts) >= MAX_DEPTH


def shortened(path: str) -> str:
    """A storable stand-in for an overlong path: its start, `…` and a digest of the whole."""
    digest = hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{path[:_SHOWN_CHARS]}…{digest}"


def storable(documents: Sequence[NewDocument]) -> tuple[list[NewDocument], list[SkippedItem]]:
    """The documents whose paths can be stored, and a skip for each of the others."""
    kept: list[NewDocument] = []
    skipped: list[SkippedItem] = []
    for document in documents:
        problem = path_problem(document.path)
        if problem:
            skipped.append(SkippedItem(path=document.path, reason=problem))
        else:
            kept.append(document)
    return kept, skipped


def as_upload_errors(documents: Sequence[NewDocument]) -> list[NewDocument]:
    """Uploaded documents with storable paths; an overlong one becomes an error document
    under a shortened path, so the upload lists it and its siblings are still added."""
    return [_error_if_unstorable(document) for document in documents]


def _error_if_unstorable(document: NewDocument) -> NewDocument:
    problem = path_problem(document.path)
    if problem is None:
        return document
    path = shortened(document.path) if problem == TOO_LONG else document.path
    size = len(document.path.encode("utf-8", "surrogatepass"))
    message = f"{path} is not indexed: {problem} ({size:,} bytes, {document.path.count('/')} deep)."
    return replace(
        document,
        path=path,
        title=PurePosixPath(path).name[:_SHOWN_CHARS],
        content="",
        error_message=message,
        metadata={},
        original=None,
    )
