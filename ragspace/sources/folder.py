"""Local folders and checkouts: walk the tree, honour .gitignore and the filters, read files."""

import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ragspace.errors import ValidationError
from ragspace.models import IncomingFile, SkippedItem
from ragspace.sources.filters import FileFilter
from ragspace.sources.path_limits import TOO_DEEP, path_problem, too_deep
from ragspace.sources.patterns import GitIgnores

GIT_DIR = "git metadata folder (.git/)"
IGNORED = "ignored by .gitignore"
SYMLINK = "symbolic link"
NOT_REGULAR = "not a regular file (a FIFO, socket or device)"
MAX_GITIGNORE_BYTES = 1 << 20
# O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: a path that became
# a symbolic link after the walk looked at it is refused, not followed
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)


@dataclass(frozen=True)
class FileOnDisk:
    """A file of a folder or of the upload cache, read only when its turn comes: a folder's
    files are listed by their sizes, and only those within the text budget are ever read."""

    name: str
    location: Path
    size: int

    @classmethod
    def at(cls, name: str, location: Path) -> "FileOnDisk":
        """The file at `location`, shown as `name`, with the size it has now."""
        return cls(name, location, location.lstat().st_size)

    def read(self, max_bytes: int) -> bytes | str:
        """Its bytes (regular files only, at most `max_bytes`), or why it is not read."""
        return read_regular_file(self.location, max_bytes)

    def renamed(self, name: str) -> "FileOnDisk":
        """The same file shown under another name."""
        return FileOnDisk(name, self.location, self.size)


@dataclass
class FolderListing:
    """Files of a folder kept by .gitignore and the filters (path `folder/...`), and skips."""

    name: str
    files: list[IncomingFile] = field(default_factory=list)
    skipped: list[SkippedItem] = field(default_factory=list)


def read_folder(root: Path, file_filter: FileFilter, max_files: int = 5000) -> FolderListing:
    """Every file under `root` that .gitignore and the filters keep; unread ones are skips."""
    if not root.is_dir():
        raise ValidationError(f"No such folder: {str(root)!r}.")
    root = root.resolve()
    listing = FolderListing(root.name)
    ignores = GitIgnores()
    for current, dirs, files in os.walk(root):
        here = Path(current).relative_to(root).as_posix()
        here = "" if here == "." else here
        if ".gitignore" in files:
            _add_gitignore(Path(current) / ".gitignore", here, ignores, listing)
        dirs[:] = sorted(d for d in dirs if _enter(Path(current), here, d, ignores, listing))
        for name in sorted(files):
            relative = f"{here}/{name}" if here else name
            shown = _shown(listing, relative)
            found = _kept(Path(current) / name, relative, shown, ignores, file_filter)
            if isinstance(found, str):
                listing.skipped.append(SkippedItem(path=shown, reason=found))
                continue
            listing.files.append(found)
            if len(listing.files) > max_files:
                raise ValidationError(
                    f"{root} has more than {max_files:,} files to index; narrow it with "
                    "--include/--exclude or a .gitignore."
                )
    return listing


def read_regular_file(path: Path, max_bytes: int) -> bytes | str:
    """The bytes of a regular file, or why it is not read: a symbolic link, a FIFO, a
    device or a socket is never opened for reading, and at most `max_bytes` are read."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return SYMLINK
        return f"could not be read ({error.strerror})"
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return NOT_REGULAR
        os.set_blocking(fd, True)
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        return f"larger than {max_bytes:,} bytes"
    return data


def _add_gitignore(path: Path, here: str, ignores: GitIgnores, listing: FolderListing) -> None:
    found = read_regular_file(path, MAX_GITIGNORE_BYTES)
    if not isinstance(found, str):  # an unreadable one is listed as a skipped file
        shown = _shown(listing, f"{here}/.gitignore" if here else ".gitignore")
        ignores.add(here, found.decode("utf-8", errors="replace"), shown)


def select_files(
    name: str, files: Sequence[IncomingFile], file_filter: FileFilter
) -> FolderListing:
    """The same rules for a folder uploaded from a browser (paths relative to the folder)."""
    listing = FolderListing(name)
    ignores = GitIgnores()
    for upload in files:
        path = PurePosixPath(upload.name)
        if path.name == ".gitignore" and upload.size <= MAX_GITIGNORE_BYTES:
            data = upload.read(MAX_GITIGNORE_BYTES)
            if isinstance(data, bytes):
                parent = path.parent.as_posix()
                text = data.decode("utf-8", "replace")
                ignores.add("" if parent == "." else parent, text, _shown(listing, upload.name))
    for upload in sorted(files, key=lambda f: f.name):
        shown = _shown(listing, upload.name)
        reason = _selected_reason(upload, shown, ignores, file_filter)
        if reason:
            listing.skipped.append(SkippedItem(path=shown, reason=reason))
        else:
            listing.files.append(upload.renamed(shown))
    return listing


def _selected_reason(
    upload: IncomingFile, shown: str, ignores: GitIgnores, file_filter: FileFilter
) -> str | None:
    parts = PurePosixPath(upload.name).parts
    if ".git" in parts[:-1]:
        return GIT_DIR
    problem = path_problem(shown)  # before any pattern sees the path
    if problem:
        return problem
    if _under_ignored(parts, ignores) or ignores.ignored(upload.name):
        return IGNORED
    return file_filter.skip_reason(upload.name, upload.size)


def _under_ignored(parts: tuple[str, ...], ignores: GitIgnores) -> bool:
    return any(ignores.ignored("/".join(parts[:i]), is_dir=True) for i in range(1, len(parts)))


def _enter(parent: Path, here: str, name: str, ignores: GitIgnores, listing: FolderListing) -> bool:
    relative = f"{here}/{name}" if here else name
    shown = _shown(listing, relative)
    reason = None
    if name == ".git":
        reason = GIT_DIR
    elif (parent / name).is_symlink():
        reason = SYMLINK
    elif too_deep(relative):  # the walk recurses once per level: stop long before Python's limit
        reason = TOO_DEEP
    else:  # a folder whose path is too long already holds no file that can be stored
        reason = path_problem(shown + "/")
        if reason is None and ignores.ignored(relative, is_dir=True):
            reason = IGNORED
    if reason:  # a pruned folder is listed once, not file by file
        listing.skipped.append(SkippedItem(path=shown + "/", reason=reason))
    return reason is None


def _kept(
    file: Path, relative: str, shown: str, ignores: GitIgnores, file_filter: FileFilter
) -> FileOnDisk | str:
    """The file (not read yet) when the rules keep it, else the reason it is skipped."""
    if file.is_symlink():
        return SYMLINK
    if not file.is_file():
        return NOT_REGULAR
    problem = path_problem(shown)  # before any pattern sees the path
    if problem:
        return problem
    if ignores.ignored(relative):
        return IGNORED
    kept = FileOnDisk.at(shown, file)
    return file_filter.skip_reason(relative, kept.size) or kept


def _shown(listing: FolderListing, relative: str) -> str:
    return f"{listing.name}/{relative}"
