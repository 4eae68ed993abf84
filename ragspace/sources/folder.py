"""Local folders and checkouts: walk the tree, honour .gitignore and the filters, read files."""

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pathspec

from ragspace.errors import ValidationError
from ragspace.models import SkippedItem, UploadedFile
from ragspace.sources.filters import FileFilter

GIT_DIR = "git metadata folder (.git/)"
IGNORED = "ignored by .gitignore"
SYMLINK = "symbolic link"


@dataclass
class FolderListing:
    """Files of a folder kept by .gitignore and the filters (path `folder/...`), and skips."""

    name: str
    files: list[UploadedFile] = field(default_factory=list)
    skipped: list[SkippedItem] = field(default_factory=list)


class _Ignores:
    """The .gitignore files met so far, each applied to paths below its own folder."""

    def __init__(self) -> None:
        self._specs: list[tuple[str, pathspec.GitIgnoreSpec]] = []

    def add(self, folder: str, text: str) -> None:
        self._specs.append((folder, pathspec.GitIgnoreSpec.from_lines(text.splitlines())))

    def ignored(self, path: str, is_dir: bool = False) -> bool:
        probe = path + "/" if is_dir else path
        for folder, spec in self._specs:
            prefix = f"{folder}/" if folder else ""
            if probe.startswith(prefix) and spec.match_file(probe[len(prefix) :]):
                return True
        return False


def read_folder(root: Path, file_filter: FileFilter, max_files: int = 5000) -> FolderListing:
    """Every file under `root` that .gitignore and the filters keep; unread ones are skips."""
    if not root.is_dir():
        raise ValidationError(f"No such folder: {str(root)!r}.")
    root = root.resolve()
    listing = FolderListing(root.name)
    ignores = _Ignores()
    for current, dirs, files in os.walk(root):
        here = Path(current).relative_to(root).as_posix()
        here = "" if here == "." else here
        if ".gitignore" in files:
            text = (Path(current) / ".gitignore").read_text("utf-8", errors="replace")
            ignores.add(here, text)
        dirs[:] = sorted(d for d in dirs if _enter(Path(current), here, d, ignores, listing))
        for name in sorted(files):
            relative = f"{here}/{name}" if here else name
            reason = _file_reason(Path(current) / name, relative, ignores, file_filter)
            if reason:
                listing.skipped.append(SkippedItem(path=_shown(listing, relative), reason=reason))
                continue
            listing.files.append(
                UploadedFile(_shown(listing, relative), (Path(current) / name).read_bytes())
            )
            if len(listing.files) > max_files:
                raise ValidationError(
                    f"{root} has more than {max_files:,} files to index; narrow it with "
                    "--include/--exclude or a .gitignore."
                )
    return listing


def select_files(
    name: str, files: Sequence[UploadedFile], file_filter: FileFilter
) -> FolderListing:
    """The same rules for a folder uploaded from a browser (paths relative to the folder)."""
    listing = FolderListing(name)
    ignores = _Ignores()
    for upload in files:
        path = PurePosixPath(upload.name)
        if path.name == ".gitignore":
            parent = path.parent.as_posix()
            ignores.add("" if parent == "." else parent, upload.data.decode("utf-8", "replace"))
    for upload in sorted(files, key=lambda f: f.name):
        parts = PurePosixPath(upload.name).parts
        reason = None
        if ".git" in parts[:-1]:
            reason = GIT_DIR
        elif _under_ignored(parts, ignores) or ignores.ignored(upload.name):
            reason = IGNORED
        else:
            reason = file_filter.skip_reason(upload.name, len(upload.data))
        shown = _shown(listing, upload.name)
        if reason:
            listing.skipped.append(SkippedItem(path=shown, reason=reason))
        else:
            listing.files.append(UploadedFile(shown, upload.data))
    return listing


def _under_ignored(parts: tuple[str, ...], ignores: _Ignores) -> bool:
    return any(ignores.ignored("/".join(parts[:i]), is_dir=True) for i in range(1, len(parts)))


def _enter(parent: Path, here: str, name: str, ignores: _Ignores, listing: FolderListing) -> bool:
    relative = f"{here}/{name}" if here else name
    reason = None
    if name == ".git":
        reason = GIT_DIR
    elif (parent / name).is_symlink():
        reason = SYMLINK
    elif ignores.ignored(relative, is_dir=True):
        reason = IGNORED
    if reason:  # a pruned folder is listed once, not file by file
        listing.skipped.append(SkippedItem(path=_shown(listing, relative) + "/", reason=reason))
    return reason is None


def _file_reason(
    file: Path, relative: str, ignores: _Ignores, file_filter: FileFilter
) -> str | None:
    if file.is_symlink():
        return SYMLINK
    if not file.is_file():
        return "not a regular file"
    if ignores.ignored(relative):
        return IGNORED
    return file_filter.skip_reason(relative, file.stat().st_size)


def _shown(listing: FolderListing, relative: str) -> str:
    return f"{listing.name}/{relative}"
