"""A folder uploaded from the browser, with each file's path inside it.

Gradio uploads the files of a folder by name only (`__init__.py`, `__init__.py`, ...). The
browser knows where each one is (`File.webkitRelativePath`), so a page script copies those
paths, with sizes, into a hidden textbox when a folder is chosen; the handler pairs them with
the uploaded files in order and checks every pair (name and size) before anything is stored.
"""

import json
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from ragspace.errors import ValidationError
from ragspace.models import IncomingFile, SyncReport
from ragspace.sources.folder import FileOnDisk
from ragspace_ui.escape import md, md_code

FOLDER_INPUT_ID = "docset-folder"
FOLDER_PATHS_ID = "docset-folder-paths"
ITEMS_SHOWN = 50

# Runs once on page load. Capture phase: the paths are read before Gradio handles the
# change (and clears the input).
KEEP_FOLDER_PATHS = f"""() => {{
  document.addEventListener("change", (event) => {{
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || !input.closest("#{FOLDER_INPUT_ID}")) return;
    const files = Array.from(input.files || [], (f) => ({{
      path: f.webkitRelativePath || f.name, size: f.size,
    }}));
    const box = document.querySelector(
      "#{FOLDER_PATHS_ID} textarea, #{FOLDER_PATHS_ID} input"
    );
    if (!box) return;
    box.value = JSON.stringify(files);
    box.dispatchEvent(new Event("input", {{ bubbles: true }}));
  }}, true);
}}"""

UNMATCHED = (
    "The browser did not say where each file of the folder is, so its structure (and its "
    ".gitignore files) would be lost. Choose the folder again with the folder button, or "
    "upload it as a .zip archive."
)


def folder_files(cached: Sequence[str], listing: str) -> tuple[str, list[IncomingFile]]:
    """(folder name, its files with paths relative to it) from Gradio's cached copies and the
    page's JSON list of {path, size}, in the same order. Nothing is read here: the sizes are
    compared on disk, and each file is read only when its turn comes within the budget."""
    entries = _entries(listing)
    if not cached or len(entries) != len(cached):
        raise ValidationError(UNMATCHED)
    roots = {PurePosixPath(path).parts[0] for path, _ in entries}
    if len(roots) != 1:
        raise ValidationError(UNMATCHED)
    files: list[IncomingFile] = []
    for copy, (path, size) in zip(cached, entries, strict=True):
        inside = PurePosixPath(path)
        if Path(copy).name != inside.name or len(inside.parts) < 2:
            raise ValidationError(UNMATCHED)
        try:
            file = FileOnDisk.at(PurePosixPath(*inside.parts[1:]).as_posix(), Path(copy))
        except OSError:
            raise ValidationError(UNMATCHED) from None
        if file.size != size:
            raise ValidationError(UNMATCHED)
        files.append(file)
    return roots.pop(), files


def _entries(listing: str) -> list[tuple[str, int]]:
    try:
        raw = json.loads(listing or "[]")
        entries = [(str(item["path"]), int(item["size"])) for item in raw]
    except (ValueError, TypeError, KeyError) as exc:
        raise ValidationError(UNMATCHED) from exc
    if any(".." in PurePosixPath(path).parts or path.startswith("/") for path, _ in entries):
        raise ValidationError(UNMATCHED)
    return entries


def folder_report(docset: str, folder: str, report: SyncReport) -> str:
    """What adding the folder did: files indexed, skipped (with why) and unreadable."""
    lines = [
        f"Added folder {md_code(folder)} to **{md(docset)}**: {len(report.changed)} new or "
        f"changed file(s) (embedding in the background), {report.unchanged} unchanged, "
        f"{len(report.skipped)} skipped, {len(report.errors)} unreadable."
    ]
    lines += [
        f"- skipped {md_code(item.path)}: {md(item.reason)}"
        for item in report.skipped[:ITEMS_SHOWN]
    ]
    if len(report.skipped) > ITEMS_SHOWN:
        lines.append(f"- … and {len(report.skipped) - ITEMS_SHOWN} more skipped")
    lines += [f"- error {md_code(e.path)}: {md(e.reason)}" for e in report.errors[:ITEMS_SHOWN]]
    return "\n".join(lines)
