"""The DocSets and Evaluate tabs in headless Chromium: a selection that outlives a reload,
preview errors beside the button pressed, a skipped upload that is not a failed document, and
the sample DocSet reachable (and a question set that misses the DocSet said so).

One app launch for the module (real embedded Postgres, local embedder, a background worker);
GitHub is "offline" (nothing listens at its address).
"""

import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder
from ragspace.ingestion.worker import Ingestor, WorkerPool
from ragspace.runtime import build_actions, build_chunker
from ragspace.sample import SAMPLE_DOCSET, sample_questions_path
from ragspace.settings import load_settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Database, Store
from ragspace_ui.app import CSS, build_ui
from ragspace_ui.server import free_local_port, launch_on_localhost, launch_options
from tests.browser import journey
from tests.conftest import create_database
from tests.waiting import wait_for

pytestmark = pytest.mark.browser  # Chromium; deselect with -m 'not browser'

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"


@dataclass
class App:
    """The served app and its service."""

    url: str
    service: Actions


@pytest.fixture(scope="module")
def app(postgres_server: str, migrated_template: str, embedder: Embedder) -> Iterator[App]:
    """The app as `ragspace serve` runs it (no keys), the address guard on."""
    folder = Path(tempfile.mkdtemp(prefix="ragspace-docsets3-"))
    settings = load_settings(
        env_file=None,
        github_api_url=f"http://127.0.0.1:{free_local_port()}",
        database_url=create_database(postgres_server, migrated_template),
        data_dir=folder / "data",
    )
    database = Database.open(settings)
    store = Store(database.pool)
    ingestor = Ingestor(store, build_chunker(settings), embedder)
    workers = WorkerPool(ingestor, threads=1, idle_seconds=0.5)
    service = build_actions(settings, store, embedder, on_new_work=workers.wake)
    workers.start()
    demo = build_ui(service)
    url = launch_on_localhost(demo, **{**launch_options(settings, None), "css": CSS})
    try:
        yield App(url=url, service=service)
    finally:
        demo.close()
        workers.stop()
        database.close()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def page(open_page: journey.OpenPage, app: App) -> Page:
    """A fresh desktop page (its own storage) on the app."""
    return open_page(app.url)


# every text the page's live regions announce (Gradio announces each event's end there)
_WATCH_LIVE_REGIONS = """() => {
  window.__live = [];
  new MutationObserver(() => document.querySelectorAll('[aria-live]').forEach((region) => {
    const text = region.textContent.trim();
    if (text) window.__live.push(text);
  })).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def _choose(page: Page, name: str) -> None:
    select = page.locator("#docset-select input")
    select.click()
    page.get_by_role("option", name=name, exact=True).click()
    expect(select).to_have_value(name)


def test_the_selected_docset_outlives_a_reload(page: Page) -> None:
    journey.create_docset(page, "alpha")
    journey.create_docset(page, "beta")
    _choose(page, "alpha")
    expect(page.get_by_role("button", name="Add files")).to_be_enabled()
    for _ in range(2):
        page.reload()
        expect(page.locator("#docset-select input")).to_have_value("alpha")
        expect(page.get_by_role("button", name="Add files")).to_be_enabled()
        expect(page.get_by_role("button", name="Add folder")).to_be_enabled()


def _between(message: Locator, above: Locator, below: Locator) -> bool:
    """True when `message` shows under `above` and over `below`."""
    box, top, bottom = message.bounding_box(), above.bounding_box(), below.bounding_box()
    assert box and top and bottom
    return bool(top["y"] < box["y"] < bottom["y"])


def test_preview_errors_show_under_the_button_pressed_in_words(page: Page) -> None:
    page.get_by_text("Add a GitHub repository or file").click()
    page.get_by_label("Repository or file").fill("acme/widgets")
    github_button = page.get_by_role("button", name="Preview GitHub source")
    github_button.click()
    error = page.locator(".inline-error", has_text="GitHub could not be reached")
    expect(error).to_be_visible()
    web_header = page.get_by_text("Add a documentation website")
    assert _between(error, github_button, web_header)

    web_header.click()
    page.get_by_label("Start URL").fill("https://docs.nowhere.invalid/")
    web_button = page.get_by_role("button", name="Preview website")
    web_button.click()
    error = page.locator(".inline-error", has_text="docs.nowhere.invalid")
    expect(error).to_be_visible()
    expect(error).not_to_contain_text("Errno")
    expect(error).to_contain_text("could not be looked up")
    sources = page.get_by_text("Sources of the selected DocSet")
    assert _between(error, web_button, sources)
    # one pending preview at a time: the GitHub form's message went with its request
    expect(page.locator("#github-preview")).to_have_text("")


def test_a_skipped_binary_upload_is_not_a_failed_document(
    page: Page, app: App, tmp_path: Path
) -> None:
    journey.create_docset(page, "binary")
    logo = tmp_path / "logo.bin"
    logo.write_bytes(PNG)
    upload = page.locator("#docset-files")
    upload.locator("input[type=file]").set_input_files(str(logo))
    expect(upload.get_by_role("cell", name="logo.bin", exact=True)).to_be_visible()
    page.evaluate(_WATCH_LIVE_REGIONS)
    page.get_by_role("button", name="Add files").click()
    message = page.locator("#upload-message")
    expect(message).to_contain_text("Nothing was added to binary")
    expect(message).to_contain_text("Skipped 1 file(s)")
    assert app.service.documents.all("binary") == []
    table = page.get_by_role("grid", name="DocSets")
    row = table.get_by_role("row").filter(has=page.get_by_role("gridcell", name="binary"))
    expect(row.get_by_role("gridcell").nth(2)).to_have_text("0")
    journey.open_tab(page, "Embedding status")
    expect(page.locator("#status-summary")).not_to_contain_text("failed")
    # what a screen reader heard: Gradio's own word for an event done, not its i18n key
    page.wait_for_function("() => window.__live.includes('Done')")
    assert not [text for text in page.evaluate("() => window.__live") if "common." in text]


def test_the_sample_docset_can_be_added_from_evaluate_and_a_mismatch_is_said(
    page: Page, app: App, tmp_path: Path
) -> None:
    app.service.docsets.create("unrelated")  # DocSets exist: the first-run button is gone
    page.reload()
    journey.open_tab(page, "Evaluate")
    page.get_by_role("button", name="Add the sample DocSet").click()
    expect(page.get_by_text(f"Added 3 file(s) to {SAMPLE_DOCSET}").first).to_be_visible()

    # the sample questions against a DocSet without their files: said, not all zeros
    note = tmp_path / "readme.md"
    note.write_text("# Unrelated\n\nNothing about DocSets here.\n")
    app.service.sources.add_files("unrelated", [UploadedFile(note.name, note.read_bytes())])
    wait_for(lambda: app.service.docsets.get("unrelated").chunk_count > 0, "unrelated embedded")
    journey.open_tab(page, "DocSets")
    journey.open_tab(page, "Evaluate")
    page.get_by_label("DocSet to evaluate").click()
    page.get_by_role("option", name="unrelated").click()
    page.locator("input[type=file][accept='.jsonl']").set_input_files(str(sample_questions_path()))
    expect(page.get_by_role("cell", name="sample-questions.jsonl")).to_be_visible()
    page.get_by_role("button", name="Run evaluation").click()
    summary = page.locator("#evaluation-summary")
    expect(summary).to_contain_text("is in DocSet 'unrelated': every score would be 0")
    expect(summary).to_contain_text(SAMPLE_DOCSET)
