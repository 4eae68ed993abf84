"""A folder uploaded from the browser, with each file's path inside it.

Gradio uploads the files of a folder by name only (`__init__.py`, `__init__.py`, ...). The
browser knows where each one is (`File.webkitRelativePath`), so a page script copies those
paths, with sizes, into a hidden textbox when a folder is chosen; the handler pairs them with
the uploaded files in order and checks every pair (name and size) before anything is stored.
"""

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from ragspace.errors import ValidationError
from ragspace.models import IncomingFile, SkippedItem, SyncReport
from ragspace.sources.folder import FileOnDisk
from ragspace_ui.amounts import size_text
from ragspace_ui.escape import md, md_code

FOLDER_INPUT_ID = "docset-folder"
# the file pickers list every file they hold: their lists scroll instead of growing the page
FILE_LIST_CSS = """
#docset-folder .file-preview-holder, #docset-files .file-preview-holder {
  max-height: 16rem; overflow-y: auto; }
"""
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
    """What adding the folder did, summarised: files indexed by type, skipped by reason, the
    lists folded (a folder of a few hundred files made the page thousands of pixels tall)."""
    lines = [
        f"Added folder {md_code(folder)} to **{md(docset)}**: {len(report.changed)} new or "
        f"changed file(s) (embedding in the background), {report.unchanged} unchanged, "
        f"{len(report.skipped)} skipped, {len(report.errors)} unreadable."
    ]
    if report.changed:
        lines.append(f"\n**Indexed by type:** {_counted(file_types(report.changed))}")
    if report.skipped:
        reasons = Counter(reason_kind(item) for item in report.skipped)
        lines.append(f"\n**Skipped by reason:** {_counted(reasons)}")
    for title, items in (
        ("new or changed file(s)", [md_code(path) for path in report.changed]),
        ("skipped file(s)", [f"{md_code(i.path)}: {md(i.reason)}" for i in report.skipped]),
        ("unreadable file(s)", [f"{md_code(i.path)}: {md(i.reason)}" for i in report.errors]),
    ):
        lines += _folded(title, items)
    return "\n".join(lines)


def picked_summary(listing: str) -> str:
    """The folder just picked, before it is added: how many files, how large, of which types
    (the picker itself lists every file: its list scrolls, see FILE_LIST_CSS)."""
    try:
        entries = _entries(listing)
    except ValidationError:
        return ""
    if not entries:
        return ""
    size = sum(size for _, size in entries)
    root = PurePosixPath(entries[0][0]).parts[0]
    types = _counted(file_types([path for path, _ in entries]))
    return (
        f"Picked {md_code(root)}: {len(entries)} file(s), {size_text(size)} ({types}). "
        "Press **Add folder** to index it; what is skipped, and why, shows then."
    )


def file_types(paths: Sequence[str]) -> Counter[str]:
    """How many of the paths end in each extension (`no extension` for none)."""
    return Counter(PurePosixPath(p).suffix.lower() or "no extension" for p in paths)


def reason_kind(item: SkippedItem) -> str:
    """A skip's reason without the file it names (`x.png looks binary…` -> `looks binary…`),
    so skips of one kind count together."""
    text = item.reason
    for name in (item.path, PurePosixPath(item.path).name):
        text = text.replace(name, "")
    return text.strip(" :,.") or item.reason


def _counted(counts: Counter[str], most: int = 8) -> str:
    shown = [f"{md(name)} {n}" for name, n in counts.most_common(most)]
    rest = sum(counts.values()) - sum(n for _, n in counts.most_common(most))
    return ", ".join(shown) + (f", other {rest}" if rest else "")


def _folded(title: str, items: list[str]) -> list[str]:
    """A list folded under its count (the first ITEMS_SHOWN of it)."""
    if not items:
        return []
    more = [f"- … and {len(items) - ITEMS_SHOWN} more"] if len(items) > ITEMS_SHOWN else []
    listed = [f"- {item}" for item in items[:ITEMS_SHOWN]] + more
    summary = f"<details><summary>{len(items)} {title}</summary>\n"
    return ["", summary, *listed, "\n</details>"]
