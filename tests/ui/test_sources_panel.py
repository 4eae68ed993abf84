"""Preview (dry run) of sources and the UI helpers that show it."""

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import gradio as gr
import pytest

from ragspace.actions.source_requests import github_request, web_request
from ragspace.embedding.embedders import Embedder
from ragspace.models import GithubOptions, SourceKind, WebOptions
from ragspace.runtime import build_syncer
from ragspace.settings import Settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from ragspace_ui.app import build_ui
from ragspace_ui.sources_panel import preview_markdown, report_markdown, source_rows
from tests.fakes.github_server import FakeGithub, running_github
from tests.sources.test_github_source import APP_PY, FILES, make_service


@pytest.fixture
def github() -> Iterator[FakeGithub]:
    """A running fake GitHub with acme/widgets."""
    with running_github() as state:
        state.add_repo("acme", "widgets").commit(FILES)
        yield state


def test_github_preview_lists_files_skips_and_estimate_without_downloading(
    store: Store, embedder: Embedder, github: FakeGithub
) -> None:
    service = make_service(store, embedder, github)
    service.docsets.create("widgets")
    kind, location, options = github_request("acme/widgets", "", "", "tests/**\n*.pdf")
    preview = service.sources.preview(kind, location, options)
    assert preview.items == [
        "README.md",
        "assets/logo.png",  # binaries are recognised by their bytes, at sync time
        "docs/guide.md",
        "src/widgets/app.py",
        "src/widgets/blob.py",
    ]
    assert preview.total_bytes == sum(len(FILES[p]) for p in preview.items)
    assert preview.estimated_chunks == 5  # each file fits one 1000-character chunk
    assert preview.skipped_counts == {
        "excluded by filter *.pdf": 1,
        "lock file": 1,
        "vendored or generated folder (node_modules/)": 1,
        "larger than 2,000 bytes": 1,
        "excluded by filter tests/**": 1,
    }
    assert github.count("/repos/acme/widgets/tarball") == 0
    assert service.documents.all("widgets") == [] and service.sources.all("widgets") == []
    text = preview_markdown(preview)
    assert f"at `{preview.resolved}`" in text and "- `src/widgets/app.py`" in text
    assert "- lock file: 1" in text and "`package-lock.json`: lock file" in text


def test_confirmed_source_report_and_table(
    store: Store, embedder: Embedder, github: FakeGithub
) -> None:
    service = make_service(store, embedder, github)
    service.docsets.create("widgets")
    report = service.sources.add("widgets", *github_request("acme/widgets", "", "src/**", ""))
    assert report.changed == ["acme/widgets/src/widgets/app.py"]
    assert "1 new or changed" in report_markdown(report)
    [row] = source_rows(service.sources.all("widgets"))
    assert row[1:4] == ["github_repo", "acme/widgets", report.resolved]
    assert len(APP_PY) < 2000


def test_a_folder_is_listed_as_a_folder(
    store: Store, embedder: Embedder, github: FakeGithub, tmp_path: Path
) -> None:
    service = make_service(store, embedder, github)
    service.docsets.create("notes")
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "guide.md").write_text("# Guide\n\nA folder source.\n")
    service.sources.add_folder("notes", folder)
    service.sources.add_files("notes", [UploadedFile("guide.md", b"# Guide\n")])
    kinds = sorted(row[1] for row in source_rows(service.sources.all("notes")))
    assert kinds == ["folder", "upload"]


def test_form_parsing() -> None:
    kind, location, options = github_request(
        " https://github.com/acme/widgets/blob/v1/README.md ", "v1", "docs/**, *.md", ""
    )
    assert kind is SourceKind.GITHUB_FILE and location.endswith("README.md")
    assert options == GithubOptions(ref="v1", include=["docs/**", "*.md"])
    assert web_request("https://d.example/", 1, 10, "/docs/") == (
        SourceKind.WEB,
        "https://d.example/",
        WebOptions(depth=1, max_pages=10, path_prefix="/docs/"),
    )


def test_ui_builds_with_source_forms(store: Store, embedder: Embedder, github: FakeGithub) -> None:
    demo = build_ui(make_service(store, embedder, github))
    labels = {b.label for b in demo.blocks.values() if isinstance(getattr(b, "label", None), str)}
    assert {"Repository or file", "Start URL", "Crawl depth", "Exclude globs"} <= labels
    values = {b.value for b in demo.blocks.values() if isinstance(getattr(b, "value", None), str)}
    assert {"Preview GitHub source", "Preview website", "Re-sync source"} <= values
    assert isinstance(demo, gr.Blocks)


def test_confirm_with_a_resync_choice_schedules_the_source(
    store: Store, embedder: Embedder, github: FakeGithub
) -> None:
    service = make_service(store, embedder, github)
    service.docsets.create("widgets")
    demo = build_ui(service)
    [confirm] = [f.fn for f in demo.fns.values() if getattr(f.fn, "__name__", "") == "on_confirm"]
    assert confirm is not None
    message, pending, _, rows, _ = confirm(
        "widgets", github_request("acme/widgets", "", "src/**", ""), "daily"
    )
    assert message.startswith("Synced source #") and pending is None
    [source] = service.sources.all("widgets")
    assert source.resync_interval == timedelta(days=1) and source.next_sync_at is not None
    assert rows[0][5:7] == ["daily", source.next_sync_at.strftime("%Y-%m-%d %H:%M")]
    # an interval the form does not offer (set with `ragspace schedule`) reads as the CLI's
    six_hours = service.sources.set_resync_interval(source.id, timedelta(hours=6))
    assert source_rows([six_hours])[0][5] == "6h"
    labels = {b.label for b in demo.blocks.values() if isinstance(getattr(b, "label", None), str)}
    assert "Re-sync automatically" in labels


def test_settings_wire_the_syncer(settings: Settings, store: Store, github: FakeGithub) -> None:
    configured = settings.replace(github_api_url=github.base_url, github_max_file_bytes=100)
    preview = build_syncer(configured, store).preview(SourceKind.GITHUB_REPO, "acme/widgets", None)
    assert preview.items == [
        "README.md",
        "assets/logo.png",
        "docs/guide.md",
        "src/widgets/blob.py",
        "tests/test_app.py",
    ]
    assert preview.skipped_counts["larger than 100 bytes"] == 3  # app.py, big.py, field.pdf
