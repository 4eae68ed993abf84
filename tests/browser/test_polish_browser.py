"""The polished web app in headless Chromium: first run, inline errors, escaping, status, phone.

One app launch for the module (real embedded Postgres, local embedder, a background worker);
the tests run in file order on that one app, from the empty first run onwards.
"""

import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder
from ragspace.ingestion.worker import Ingestor, WorkerPool
from ragspace.models import UploadedFile
from ragspace.runtime import build_actions, build_chunker
from ragspace.sample import SAMPLE_DOCSET, sample_files
from ragspace.settings import load_settings
from ragspace.store import Database, Store
from ragspace_ui.app import SELECTED_DOCSET_KEY, build_ui
from ragspace_ui.server import free_local_port, launch_on_localhost, launch_options
from tests.browser import journey
from tests.conftest import create_database

WAIT_MS = journey.WAIT_MS
PHONE = {"width": 390, "height": 844}
# Gradio marks the outputs of a failed event with a red "Error" pill; none may appear
ERROR_PILL = "[data-testid='status-tracker'] span.error"
STATUS_DOCSET = "status-journey"
PNG_HEADER = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


@dataclass
class App:
    """The served app and its service."""

    url: str
    service: Actions


@pytest.fixture(scope="module")
def app(postgres_server: str, migrated_template: str, embedder: Embedder) -> Iterator[App]:
    """The app as `ragspace serve` runs it (no keys: local model, extractive answers)."""
    folder = Path(tempfile.mkdtemp(prefix="ragspace-polish-"))
    offline = f"http://127.0.0.1:{free_local_port()}"  # GitHub is "offline": nothing listens
    settings = load_settings(
        env_file=None,
        github_api_url=offline,
        database_url=create_database(postgres_server, migrated_template),
        data_dir=folder / "data",
        allow_private_urls=True,
    )
    database = Database.open(settings)
    store = Store(database.pool)
    workers = WorkerPool(
        Ingestor(store, build_chunker(settings), embedder), threads=1, idle_seconds=0.5
    )
    service = build_actions(settings, store, embedder, on_new_work=workers.wake)
    workers.start()
    demo = build_ui(service)
    url = launch_on_localhost(demo, **launch_options(settings, None))
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


def test_first_run_says_what_to_do_and_disables_what_cannot_work_yet(page: Page) -> None:
    empty = page.locator("#docsets-empty")
    expect(empty).to_contain_text("No DocSets yet", timeout=WAIT_MS)
    expect(empty.get_by_role("button", name="Add the sample DocSet")).to_be_visible()
    mode = page.locator("#mode-indicator")
    expect(mode).to_contain_text("local model (all-MiniLM-L6-v2-int8")
    expect(mode).to_contain_text("extractive")
    expect(page.get_by_role("button", name="Add files")).to_be_disabled()
    expect(page.locator("#upload-limits")).to_contain_text("Up to 20 MB per file")

    journey.open_tab(page, "Embedding status")
    expect(page.locator("#status-summary")).to_contain_text("No documents yet")
    expect(page.get_by_role("button", name="Re-embed whole DocSet")).to_be_disabled()

    journey.open_tab(page, "Chat")
    expect(page.locator("#extractive-notice")).to_contain_text("OPENAI_API_KEY")

    journey.open_tab(page, "Evaluate")
    grade = page.get_by_label(re.compile("Grade answers"))
    expect(grade).not_to_be_checked()
    expect(grade).to_be_disabled()
    with page.expect_download() as download:
        page.locator("#sample-questions").click()
    sample = Path(download.value.path()).read_text(encoding="utf-8")
    assert sample.count('"question"') == 5
    expect(page.get_by_text("MRR@10").first).to_be_attached()


def test_an_error_is_shown_beside_its_form_and_every_input_keeps_its_value(
    page: Page, app: App, tmp_path: Path
) -> None:
    for taken in ("taken", "other"):
        app.service.docsets.create(taken)
    page.reload()
    # the page's load event fills the table and sets the selection in one reply: wait for
    # it, or it may land after the choice below and undo it (seen under load)
    table = page.get_by_role("grid", name="DocSets")
    expect(table.get_by_role("gridcell", name="other", exact=True)).to_be_visible()
    select = page.locator("#docset-select input")
    select.click()
    page.get_by_role("option", name="taken").click()
    expect(select).to_have_value("taken")
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nkept\n")
    upload = page.locator("#docset-files")
    upload.locator("input[type=file]").set_input_files(str(note))
    listed = upload.get_by_role("cell", name="note.md", exact=True)
    expect(listed).to_be_visible(timeout=WAIT_MS)

    name, description = (
        page.get_by_label("Name", exact=True),
        page.get_by_label("Description", exact=True),
    )
    name.fill("taken")
    description.fill("a description worth keeping")
    page.get_by_role("button", name="Create DocSet").click()
    expect(page.locator("#create-message .inline-error")).to_contain_text(
        "A DocSet named 'taken' already exists.", timeout=WAIT_MS
    )

    page.get_by_text("Rename, describe or delete").click()
    rename_to = page.get_by_label("New name")
    rename_to.fill("other")
    page.get_by_role("button", name="Rename", exact=True).click()
    expect(page.locator("#manage-message .inline-error")).to_contain_text(
        "A DocSet named 'other' already exists.", timeout=WAIT_MS
    )
    for field, value in [
        (name, "taken"),
        (description, "a description worth keeping"),
        (rename_to, "other"),
        (select, "taken"),
    ]:
        expect(field).to_have_value(value)
    expect(listed).to_be_visible()
    expect(page.locator(ERROR_PILL)).to_have_count(0)

    # the DocSet is deleted behind the page's back: adding files fails, the files stay listed
    app.service.docsets.delete("taken")
    app.service.docsets.delete("other")
    page.get_by_role("button", name="Add files").click()
    expect(page.locator("#upload-message .inline-error")).to_contain_text("taken", timeout=WAIT_MS)
    expect(listed).to_be_visible()
    expect(name).to_have_value("taken")
    expect(page.locator(ERROR_PILL)).to_have_count(0)

    # asking nothing: the reason shows under the box, the question box stays a question box
    journey.open_tab(page, "Chat")
    page.get_by_role("button", name="Ask").click()
    expect(page.locator("#question-note .inline-error")).to_contain_text(
        "Type a question first.", timeout=WAIT_MS
    )
    expect(page.get_by_label("Question")).to_be_editable()
    expect(page.locator(ERROR_PILL)).to_have_count(0)


def test_an_unreachable_github_is_explained_in_words_beside_its_form(page: Page) -> None:
    page.get_by_text("Add a GitHub repository or file").click()
    location = page.get_by_label("Repository or file")
    location.fill("acme/widgets")
    page.get_by_role("button", name="Preview GitHub source").click()
    message = page.locator("#github-preview .inline-error")
    expect(message).to_contain_text(
        "GitHub could not be reached for acme/widgets: 127.0.0.1 refused the connection",
        timeout=WAIT_MS,
    )
    expect(message).not_to_contain_text("ConnectionError")
    expect(location).to_have_value("acme/widgets")
    expect(page.get_by_role("button", name="Confirm and ingest")).to_be_hidden()
    expect(page.locator(ERROR_PILL)).to_have_count(0)


def test_sample_docset_escaped_names_skipped_files_and_a_remembered_selection(
    page: Page, tmp_path: Path
) -> None:
    page.get_by_role("button", name="Add the sample DocSet").click()
    expect(page.get_by_text("Added 3 file(s) to ragspace-sample")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#docset-select input")).to_have_value(SAMPLE_DOCSET)

    files = [tmp_path / "__init__.py", tmp_path / "empty.md", tmp_path / "logo.bin"]
    files[0].write_text("VERSION = 1\n")
    files[1].write_bytes(b"")
    files[2].write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    upload = page.locator("#docset-files")
    upload.locator("input[type=file]").set_input_files([str(f) for f in files])
    for f in files:
        expect(upload.get_by_role("cell", name=f.name, exact=True)).to_be_visible(timeout=WAIT_MS)
    page.get_by_role("button", name="Add files").click()
    message = page.locator("#upload-message")
    expect(message).to_contain_text("Added 1 file(s)", timeout=WAIT_MS)
    expect(message).to_contain_text("Skipped 2 file(s)")
    expect(message).to_contain_text("empty.md is not indexed: empty file.")
    expect(message.locator("code", has_text="__init__.py")).to_have_count(1)
    expect(message.locator("strong", has_text="init")).to_have_count(0)

    # a new DocSet whose name is Markdown: shown as typed; it becomes the selected one
    stored = f"localStorage.getItem('{SELECTED_DOCSET_KEY}')"
    changed = f"(before) => {stored} !== before"  # the browser stores each choice (encrypted)
    before = page.evaluate(stored)
    page.get_by_label("Name", exact=True).fill("__docs__")
    page.get_by_role("button", name="Create DocSet").click()
    expect(page.locator("#create-message")).to_contain_text("Created DocSet __docs__.")
    expect(page.locator("#create-message strong")).to_have_text("__docs__")
    table = page.get_by_role("grid", name="DocSets")
    expect(table.get_by_role("gridcell", name="__docs__", exact=True)).to_be_visible()
    expect(page.locator("#docset-select input")).to_have_value("__docs__")
    page.wait_for_function(changed, arg=before)
    before = page.evaluate(stored)
    page.get_by_label("DocSet", exact=True).first.click()
    page.get_by_role("option", name=SAMPLE_DOCSET).click()
    page.wait_for_function(changed, arg=before)
    page.reload()
    expect(page.locator("#docset-select input")).to_have_value(SAMPLE_DOCSET, timeout=WAIT_MS)
    expect(page.get_by_role("button", name="Add files")).to_be_enabled()


def test_status_chart_shows_every_status_with_overall_progress_and_asks_before_reembedding(
    page: Page, app: App
) -> None:
    # the documents it counts are its own: counting what the earlier tests happened to leave
    # made it wait 60 s on "0 documents" whenever it ran without them (alone, or on a fresh app)
    readable = [*sample_files(), UploadedFile("__init__.py", b"VERSION = 1\n")]
    skipped = [UploadedFile("empty.md", b""), UploadedFile("logo.bin", PNG_HEADER)]
    app.service.docsets.create(STATUS_DOCSET)
    app.service.sources.add_files(STATUS_DOCSET, readable + skipped)
    # the page listed the DocSets when it loaded, before this one existed: load it again and
    # wait for its list before choosing from it
    page.reload()
    table = page.get_by_role("grid", name="DocSets")
    expect(table.get_by_role("gridcell", name=STATUS_DOCSET, exact=True)).to_be_visible()
    journey.open_tab(page, "Embedding status")
    docset_filter = page.locator("#status-docset input")
    docset_filter.click()
    page.get_by_role("option", name=STATUS_DOCSET).click()
    expect(docset_filter).to_have_value(STATUS_DOCSET)

    summary = page.locator("#status-summary")
    expect(summary).to_contain_text(re.compile(r"Documents: 4 of 4 done"), timeout=60_000)
    expect(summary).to_contain_text(re.compile(r"Chunks: \d+ of \d+ embedded"))
    chart = page.locator("#status-chart")
    for status in ("pending", "processing", "done", "error"):  # zero counts included
        expect(chart).to_contain_text(status)

    button = page.get_by_role("button", name="Re-embed whole DocSet")
    expect(button).to_be_enabled()
    button.click()
    expect(
        page.get_by_text(re.compile(rf"Re-embed all 4 document\(s\) of {STATUS_DOCSET}"))
    ).to_be_visible()
    page.get_by_role("button", name="Cancel").last.click()
    expect(page.get_by_role("button", name="Yes, re-embed it")).to_be_hidden()


def test_phone_journey_is_chat_first_with_labelled_tabs(chromium: Browser, app: App) -> None:
    context = chromium.new_context(viewport=PHONE, is_mobile=True)  # type: ignore[arg-type]
    page = context.new_page()
    page.set_default_timeout(journey.WAIT_MS)  # clicks, fills and waits too
    page.goto(app.url)
    expect(page.get_by_role("tab", name="Chat")).to_have_attribute(
        "aria-selected", "true", timeout=WAIT_MS
    )
    for name in ("DocSets", "Embedding status", "Chat", "Evaluate"):
        expect(page.get_by_role("tab", name=name)).to_be_visible()
    expect(page.get_by_label("Question")).to_be_in_viewport()

    journey.create_docset(page, "phone")
    journey.open_tab(page, "Chat")
    # tick once the list holds the new DocSet: its boxes are reused by position when a
    # refresh adds one, so a tick during that refresh can land on "phone" (seen under load)
    expect(page.get_by_role("checkbox", name="phone")).to_be_visible()
    page.get_by_role("checkbox", name=SAMPLE_DOCSET).check()
    expect(page.get_by_role("checkbox", name="phone")).not_to_be_checked()
    page.get_by_label("Question").fill("Which model embeds text when no API key is set?")
    page.get_by_role("button", name="Ask").click()
    answer = page.locator("#chatbot .message.bot").last
    expect(answer).to_contain_text("all-MiniLM-L6-v2", timeout=WAIT_MS)
    link = answer.get_by_role("link", name="[1]").first
    link.click()  # opens the cited lines in the viewer, scrolled into view
    expect(page.locator("#source-viewer .rs-viewer-head")).to_contain_text("embeddings.md")
    expect(page.locator("#source-viewer .rs-focus").first).to_be_in_viewport()
    expect(page.locator("#chat-sources")).to_contain_text("embeddings.md")

    journey.open_tab(page, "Embedding status")
    cells = page.locator("#status-table .body-cell")
    expect(cells.first).to_be_visible(timeout=WAIT_MS)
    widths = page.evaluate(
        "() => [...document.querySelectorAll('#status-table th, #status-table .body-cell')]"
        ".map((cell) => cell.getBoundingClientRect().width)"
    )
    assert min(widths) >= 100, widths  # columns scroll sideways, never one letter per line
    context.close()
