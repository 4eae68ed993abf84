"""End-to-end journeys in headless Chromium against the app served on 127.0.0.1.

Real parts throughout (embedded Postgres, local embedder, in-process ingestion workers);
only the chat model and GitHub are local HTTP fakes.
"""

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder
from ragspace.ingestion.worker import Ingestor, WorkerPool
from ragspace.models import EmbeddingStatus, SourceKind
from ragspace.runtime import build_actions
from ragspace.settings import Settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from ragspace_ui.app import CSS, build_ui
from ragspace_ui.server import launch_on_localhost
from tests.browser import journey
from tests.fakes.chat_server import FakeChat, chat_model_of, running_fake_chat
from tests.fakes.github_server import FakeGithub, running_github

pytestmark = pytest.mark.browser  # Chromium; deselect with -m 'not browser'


@dataclass
class App:
    """The served app and the parts a test inspects."""

    url: str
    service: Actions
    chat: FakeChat


@pytest.fixture
def fake_chat() -> Iterator[FakeChat]:
    """The journey's chat model; pieces arrive 40 ms apart so streaming is observable."""
    with running_fake_chat() as fake:
        fake.reply = journey.chat_reply
        fake.piece_delay = 0.04
        yield fake


@pytest.fixture
def github() -> Iterator[FakeGithub]:
    """A fake GitHub with acme/ops."""
    with running_github() as state:
        state.add_repo("acme", "ops").commit(
            {"docs/backups.md": (journey.DATA / "deployment-guide.md").read_bytes()}
        )
        yield state


@pytest.fixture
def app(
    settings: Settings,
    store: Store,
    embedder: Embedder,
    ingestor: Ingestor,
    fake_chat: FakeChat,
    github: FakeGithub,
) -> Iterator[App]:
    """The full app: chat model and GitHub faked, ingestion by a background worker."""
    chat = chat_model_of(fake_chat)
    workers = WorkerPool(ingestor, threads=1, idle_seconds=0.5)
    tuned = settings.replace(github_api_url=github.base_url)
    service = build_actions(tuned, store, embedder, chat=chat, on_new_work=workers.wake)
    workers.start()
    demo = build_ui(service)
    url = launch_on_localhost(demo, css=CSS)
    try:
        yield App(url=url, service=service, chat=fake_chat)
    finally:
        demo.close()
        workers.stop()


def test_upload_embed_and_ask_with_a_streamed_cited_answer(
    app: App, tmp_path: Path, open_page: journey.OpenPage
) -> None:
    page = open_page(app.url)
    journey.create_docset(page, journey.DOCSET, journey.DESCRIPTION)
    journey.upload_files(page, journey.FILES)
    journey.wait_until_done(page, len(journey.FILES))

    asked = journey.ask(page, journey.QUESTION, journey.ANSWER_TEXT)
    partial = [t for t in asked.seen if t and t != asked.message.inner_text().strip()]
    assert any(
        journey.ANSWER_TEXT.startswith(t) and len(t) < len(journey.ANSWER_TEXT) // 2
        for t in partial
    ), f"no partial answer was shown while streaming: {asked.seen[:5]}"

    link = asked.message.get_by_role("link", name="[1]").first
    expect(link).to_have_attribute("href", "#ragspace-source-1")
    link.click()
    target = page.locator("#ragspace-source-1")
    expect(target).to_be_in_viewport()
    sources = page.locator("#chat-sources")
    expect(sources).to_contain_text(re.compile(r"deployment-guide\.md \(lines \d+-\d+\)"))
    expect(sources).to_contain_text("pg_dump --format=custom")
    expect(sources).to_contain_text("Searched all DocSets.")

    journey.screenshot(page, "Chat", tmp_path / "chat.png")
    assert (tmp_path / "chat.png").stat().st_size > 10_000

    documents = app.service.documents.all(journey.DOCSET)
    assert {d.embedding_status for d in documents} == {EmbeddingStatus.DONE}
    answer_prompt = app.chat.prompt_of()
    assert "pg_dump --format=custom" in answer_prompt  # the model saw the cited passage


def test_github_citation_links_to_the_lines_at_the_commit_and_delete_asks_first(
    app: App, open_page: journey.OpenPage
) -> None:
    app.service.docsets.create("ops")
    report = app.service.sources.add("ops", SourceKind.GITHUB_REPO, "acme/ops")
    commit = report.resolved
    assert commit and re.fullmatch(r"[0-9a-f]{40}", commit)

    page = open_page(app.url)
    journey.wait_until_done(page, 1)
    journey.open_tab(page, "Chat")
    page.get_by_role("checkbox", name="ops").check()
    asked = journey.ask(page, journey.QUESTION, journey.ANSWER_TEXT)

    link = asked.message.get_by_role("link", name="[1]").first
    href = link.get_attribute("href") or ""
    # the link points at the best-matching lines, one line or a range
    match = re.fullmatch(rf".*/acme/ops/blob/{commit}/docs/backups\.md#L(\d+)(?:-L(\d+))?", href)
    assert match, href
    start, end = int(match[1]), int(match[2] or match[1])
    lines = (journey.DATA / "deployment-guide.md").read_text().splitlines()
    assert any("pg_dump --format=custom" in line for line in lines[start - 1 : end])
    expect(link).to_have_attribute("target", "_blank")
    # a plain click opens the lines in the app's viewer, which links to the commit too
    link.click()
    head = page.locator("#source-viewer .rs-viewer-head")
    expect(head).to_contain_text("[1] acme/ops/docs/backups.md")
    expect(head.get_by_role("link", name="open at the commit on GitHub")).to_have_attribute(
        "href", href
    )
    assert len(page.context.pages) == 1  # nothing opened in a new tab
    sources = page.locator("#chat-sources")
    expect(sources).to_contain_text("Searched ops.")
    expect(sources.get_by_role("link", name=re.compile(r"backups\.md"))).to_have_attribute(
        "href", href
    )
    _delete_with_confirmation(page, "ops", app.service)
    assert app.service.docsets.all() == []


def _delete_with_confirmation(page: Page, name: str, service: Actions) -> None:
    """Select a DocSet, cancel its deletion once (nothing happens), then confirm it."""
    journey.open_tab(page, "DocSets")
    page.locator("#docset-select input").click()
    page.get_by_role("option", name=name, exact=True).click()
    page.get_by_text("Rename, describe or delete").click()
    question = page.get_by_text(f"Delete {name} and all its documents?")
    page.get_by_role("button", name="Delete DocSet…").click()
    expect(question).to_be_visible()
    page.get_by_role("button", name="Cancel", exact=True).first.click()
    expect(question).to_be_hidden()
    assert [d.name for d in service.docsets.all()] == [name]
    page.get_by_role("button", name="Delete DocSet…").click()
    page.get_by_role("button", name="Yes, delete it").click()
    expect(page.get_by_text(f"Deleted DocSet {name}.")).to_be_visible(timeout=journey.WAIT_MS)
    expect(page.get_by_role("gridcell", name=name, exact=True)).to_have_count(0)


def test_a_read_only_visitor_cannot_delete_but_can_chat(
    settings: Settings,
    store: Store,
    embedder: Embedder,
    ingestor: Ingestor,
    service: Actions,
    fake_chat: FakeChat,
    launch_app: Callable[..., str],
    open_page: journey.OpenPage,
) -> None:
    guide = journey.FILES[0]
    service.docsets.create(journey.DOCSET, journey.DESCRIPTION)
    service.sources.add_files(journey.DOCSET, [UploadedFile(guide.name, guide.read_bytes())])
    ingestor.process_all()
    read_only = settings.replace(read_only=True)
    url = launch_app(build_actions(read_only, store, embedder, chat=chat_model_of(fake_chat)))

    page = open_page(url)
    expect(page.locator("#read-only-banner")).to_contain_text("Read-only.")
    expect(page.get_by_role("gridcell", name=journey.DOCSET, exact=True)).to_be_visible()
    for control in ("Delete DocSet…", "Yes, delete it", "Create DocSet", "Add files"):
        expect(page.get_by_role("button", name=control)).to_have_count(0)
    journey.open_tab(page, "Embedding status")
    expect(page.locator("#status-summary")).to_contain_text("done 1")
    expect(page.get_by_role("button", name="Re-embed whole DocSet")).to_have_count(0)
    asked = journey.ask(page, journey.QUESTION, journey.ANSWER_TEXT)  # chatting still works
    expect(asked.message.get_by_role("link", name="[1]").first).to_be_visible()

    assert [d.name for d in service.docsets.all()] == [journey.DOCSET]
    assert [d.path for d in service.documents.all(journey.DOCSET)] == [guide.name]
