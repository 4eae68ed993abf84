"""A folder uploaded from the browser: paths paired with Gradio's copies, or a clear refusal."""

import json
from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder
from ragspace.errors import ValidationError
from ragspace.ingestion.worker import Ingestor
from ragspace.models import EmbeddingStatus
from ragspace.runtime import build_actions
from ragspace.settings import Settings
from ragspace.store import Store
from ragspace_ui.folder_upload import UNMATCHED, folder_files, folder_report, picked_summary


def cached(tmp_path: Path, files: dict[str, bytes]) -> tuple[list[str], str]:
    """Gradio's copies (one folder per file, named as the file) and the page's JSON list."""
    copies: list[str] = []
    for number, (path, data) in enumerate(files.items()):
        copy = tmp_path / "cache" / str(number) / Path(path).name
        copy.parent.mkdir(parents=True)
        copy.write_bytes(data)
        copies.append(str(copy))
    listing = json.dumps([{"path": p, "size": len(d)} for p, d in files.items()])
    return copies, listing


FOLDER = {
    "proj/.gitignore": b"build/\n",
    "proj/a/__init__.py": b"A = 1\n",
    "proj/b/__init__.py": b"B = 22\n",
    "proj/build/out.txt": b"generated\n",
    "proj/src/pkg/__init__.py": b"",
    "proj/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64),
    "proj/docs/guide.md": b"# Guide\n\nRun `make docs` to build the site.\n",
}


def test_paths_are_paired_in_order_and_checked(tmp_path: Path) -> None:
    copies, listing = cached(tmp_path, FOLDER)
    name, files = folder_files(copies, listing)
    assert name == "proj"
    assert [(f.name, f.read(1 << 20)) for f in files] == [
        (path.removeprefix("proj/"), data) for path, data in FOLDER.items()
    ]


@pytest.mark.parametrize(
    "spoil",
    [
        lambda entries: entries[:-1],  # a file without its path
        lambda entries: [entries[1], entries[0], *entries[2:]],  # out of order: names differ
        lambda entries: [{**entries[0], "size": 999}, *entries[1:]],  # sizes differ
        lambda entries: [{**e, "path": "other/" + e["path"]} for e in entries[:1]] + entries[1:],
        lambda entries: [{**entries[0], "path": "proj/../../etc/passwd"}, *entries[1:]],
        lambda _entries: "not json",
    ],
    ids=["missing", "reordered", "size", "two-roots", "escape", "garbage"],
)
def test_anything_that_does_not_match_is_refused_with_what_to_do(
    tmp_path: Path, spoil: object
) -> None:
    copies, listing = cached(tmp_path, FOLDER)
    spoiled = spoil(json.loads(listing))  # type: ignore[operator]
    text = spoiled if isinstance(spoiled, str) else json.dumps(spoiled)
    with pytest.raises(ValidationError) as refused:
        folder_files(copies, text)
    assert str(refused.value) == UNMATCHED and ".zip" in UNMATCHED


def test_the_service_indexes_the_folder_with_gitignore_and_skips(
    tmp_path: Path, service: Actions, ingestor: Ingestor
) -> None:
    service.docsets.create("proj")
    copies, listing = cached(tmp_path, FOLDER)
    name, files = folder_files(copies, listing)
    report = service.sources.add_uploaded_folder("proj", name, files)
    ingestor.process_all()
    documents = {d.path: d for d in service.documents.all("proj")}
    assert set(documents) == {
        "proj/.gitignore",
        "proj/a/__init__.py",
        "proj/b/__init__.py",
        "proj/docs/guide.md",
    }
    assert all(d.embedding_status is EmbeddingStatus.DONE for d in documents.values())
    skipped = {item.path: item.reason for item in report.skipped}
    assert skipped == {
        "proj/build/out.txt": "ignored by .gitignore",
        "proj/logo.png": "binary content",
        "proj/src/pkg/__init__.py": "empty file",
    }
    assert report.errors == []
    text = folder_report("proj", name, report)
    assert "4 new or changed file(s)" in text
    # summarised: counts by type and by reason, each list folded under its count
    assert "**Indexed by type:** .py 2, no extension 1, .md 1" in text
    assert "**Skipped by reason:** ignored by .gitignore 1, binary content 1, empty file 1" in text
    assert "<details><summary>3 skipped file(s)</summary>" in text
    assert "- `proj/logo.png`: binary content" in text
    picked = picked_summary(listing)
    assert picked.startswith("Picked `proj`: 7 file(s), 154 bytes") and ".py 3" in picked


def test_a_folder_upload_counts_against_the_upload_text_budget(
    tmp_path: Path, settings: Settings, store: Store, embedder: Embedder
) -> None:
    budget = 2_000
    small = build_actions(settings.replace(upload_text_budget_bytes=budget), store, embedder)
    small.docsets.create("proj")
    pages = {
        f"proj/docs/page{n}.md": (f"# Page {n}\n" + "words " * 100).encode() for n in range(10)
    }
    copies, listing = cached(tmp_path, pages)
    name, files = folder_files(copies, listing)
    report = small.sources.add_uploaded_folder("proj", name, files)
    kept = [d for d in small.documents.all("proj") if d.error_message is None]
    assert 0 < len(kept) * len(pages["proj/docs/page0.md"]) <= budget
    assert len(report.errors) == len(pages) - len(kept)
    assert all("RAGSPACE_UPLOAD_TEXT_BUDGET_BYTES" in e.reason for e in report.errors)
