"""Who uploaded which file in Gradio's upload folder, and whether a string names one.

With logins on, an upload is its account's until it is added. A request can name a file in
many ways: absolute or relative to the server's folder, through `..`, `.`, doubled slashes,
links (/proc/self/root, /proc/self/cwd), percent-encoded, and on some filesystems in another
case or Unicode form. Rather than listing spellings, every string is turned into the
files it could open, the way the server opens them: the kernel's reading of the string
and Gradio's (`os.path.abspath` first, which folds `..` lexically), each also
percent-decoded; each existing file is then told by its identity (device and inode),
which every spelling of it shares, whatever the filesystem takes as the same name.
"""

import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote

FileId = tuple[int, int]  # (st_dev, st_ino)
_DECODING_ROUNDS = 3  # `%252F` is `/` to a reader that decodes twice
_PATH_MAX = 4096  # no longer string names a file to the kernel (ENAMETOOLONG)


def readings(text: str) -> set[str]:
    """The paths `text` may stand for: as written and percent-decoded, each as the kernel
    reads it and as Gradio does (`os.path.abspath`); none longer than the kernel opens."""
    decoded, current = {text}, text
    for _ in range(_DECODING_ROUNDS):
        current = unquote(current, errors="replace")
        decoded.add(current)
    found: set[str] = set()
    for spelling in decoded:
        if not spelling or "\0" in spelling or len(spelling) >= _PATH_MAX:
            continue  # an empty or NUL-holding string opens nothing
        found.add(spelling)
        # Gradio's reading (it also folds an over-long `./././` spelling)
        found.add(os.path.abspath(spelling))  # noqa: PTH100 - pathlib would resolve links
    return {s for s in found if len(s.encode("utf-8", "surrogateescape")) < _PATH_MAX}


def named_files(text: str) -> dict[FileId, str]:
    """The existing files `text` could open, by identity, each with one path to it."""
    files: dict[FileId, str] = {}
    for path in readings(text):
        try:
            found = os.stat(path)  # noqa: PTH116 - as written: pathlib drops `.` parts
        except (OSError, ValueError):
            continue
        files.setdefault((found.st_dev, found.st_ino), path)
    return files


class UploadOwners:
    """This run's uploads by identity and account; what an account may name."""

    def __init__(self) -> None:
        self._owners: dict[FileId, str] = {}

    def record(self, path: str, user: str) -> None:
        """`path` was just uploaded by `user` (the upload route's answer)."""
        for identity in named_files(path):
            self._owners[identity] = user

    def may_name(self, text: str, user: str, app: Any) -> bool:
        """False when `text` could open another account's upload, or a file in the upload
        folder whose owner this run does not know (one an earlier run left)."""
        for identity, path in named_files(text).items():
            owner = self._owners.get(identity)
            if owner is not None:
                if owner != user:
                    return False
            elif _in_upload_folder(app, path) and not _created_this_run(app, identity):
                return False
        return True


def _in_upload_folder(app: Any, path: str) -> bool:
    folder = getattr(app, "uploaded_file_dir", None)
    if folder is None:
        return False
    try:
        return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(str(folder)))
    except (OSError, ValueError):  # a link loop: no file of ours
        return False


def _created_this_run(app: Any, identity: FileId) -> bool:
    """Whether a component of this run's app put the file in Gradio's cache (an output or
    a value such as the sample question set); uploads are not counted: they have owners."""
    blocks = getattr(app, "blocks", None)
    uploads = getattr(blocks, "upload_file_set", None)
    for created in getattr(blocks, "temp_file_sets", []):
        if created is not uploads and any(identity in named_files(str(f)) for f in list(created)):
            return True
    return False
