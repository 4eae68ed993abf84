"""The Chat tab's habits in headless Chromium (issue 67, items 5-7): a second question is never
lost, Enter sends, and a new answer is shown from its first line with one list of sources."""

import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder
from ragspace.ingestion.worker import Ingestor
from ragspace.runtime import build_actions
from ragspace.settings import Settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from ragspace_ui.app import CSS, build_ui
from ragspace_ui.server import launch_on_localhost
from tests.browser import journey
from tests.browser.journey import WAIT_MS, OpenPage
from tests.fakes.chat_server import FakeChat, chat_model_of, running_fake_chat

pytestmark = pytest.mark.browser  # Chromium; deselect with -m 'not browser'

FIRST = "How should backups be taken and tested?"
SECOND = "How often is a restore tested?"
SECOND_ANSWER = "A restore into a scratch database is tested every month [1]."


def _handbook(service: Actions, ingestor: Ingestor) -> None:
    service.docsets.create("handbook")
    service.sources.add_files(
        "handbook", [UploadedFile(f.name, f.read_bytes()) for f in journey.FILES]
    )
    ingestor.process_all()


def _reply(request: dict[str, Any]) -> str:
    """The journey's fake model; the second question gets an answer of its own."""
    if request.get("stream") and SECOND in request["messages"][-1]["content"]:
        return SECOND_ANSWER
    return journey.chat_reply(request)


@pytest.fixture
def held_chat() -> Iterator[FakeChat]:
    """A fake chat model whose answers stop after their first piece until `gate` is set."""
    with running_fake_chat() as fake:
        fake.reply = _reply
        fake.gate = threading.Event()
        yield fake
        fake.gate.set()


@pytest.fixture
def chat_app(
    settings: Settings, store: Store, embedder: Embedder, ingestor: Ingestor, held_chat: FakeChat
) -> Iterator[str]:
    """The app with the held chat model, over the embedded handbook."""
    chat = chat_model_of(held_chat, timeout=WAIT_MS / 1000)
    service = build_actions(settings, store, embedder, chat=chat)
    _handbook(service, ingestor)
    demo = build_ui(service)
    url = launch_on_localhost(demo, css=CSS)
    yield url
    demo.close()


def _chat_page(open_page: OpenPage, url: str) -> Page:
    page = open_page(url)
    journey.open_tab(page, "Chat")
    return page


def test_a_question_sent_while_an_answer_streams_is_answered_after_it(
    open_page: OpenPage, chat_app: str, held_chat: FakeChat
) -> None:
    page = _chat_page(open_page, chat_app)
    box = page.get_by_label("Question")
    box.fill(FIRST)
    page.get_by_role("button", name="Ask", exact=True).click()
    bots = page.locator("#chatbot .message.bot")
    expect(bots.last).to_contain_text("Take a", timeout=WAIT_MS)  # held after one piece
    box.fill(SECOND)
    page.get_by_role("button", name="Ask", exact=True).click()
    # taken, and said so, while the first answer is still being written
    expect(box).to_have_value("")
    expect(page.locator("#question-note")).to_contain_text("answered after", timeout=WAIT_MS)
    assert held_chat.gate is not None
    held_chat.gate.set()
    expect(bots.last).to_contain_text(SECOND_ANSWER.removesuffix(" [1]."), timeout=WAIT_MS)
    users = page.locator("#chatbot .message.user")
    expect(users).to_have_count(2)
    expect(users.first).to_contain_text(FIRST)
    expect(users.last).to_contain_text(SECOND)
    expect(bots).to_have_count(2)
    expect(bots.first).to_contain_text(journey.ANSWER_TEXT)  # the first answer is whole
    expect(page.locator("#question-note")).not_to_contain_text("answered after")


def test_enter_sends_shift_enter_adds_a_line_and_an_empty_question_says_so(
    open_page: OpenPage, served: str, service: Actions, ingestor: Ingestor
) -> None:
    _handbook(service, ingestor)
    page = _chat_page(open_page, served)
    hint = page.locator("#question-note")
    expect(hint).to_contain_text("Enter sends")
    expect(hint).to_contain_text("Shift+Enter")
    box = page.get_by_label("Question")

    box.press("Enter")  # nothing typed: the reason shows under the box
    expect(hint.locator(".inline-error")).to_contain_text("Type a question first.")
    expect(page.locator("#chatbot .message.user")).to_have_count(0)

    box.fill("How should backups")
    box.press("Shift+Enter")
    box.press_sequentially("be taken?")
    expect(box).to_have_value("How should backups\nbe taken?")
    expect(page.locator("#chatbot .message.user")).to_have_count(0)
    box.press("Enter")
    expect(page.locator("#chatbot .message.user")).to_contain_text("be taken?", timeout=WAIT_MS)
    answer = page.locator("#chatbot .message.bot").last
    expect(answer.get_by_role("link", name="[1]").first).to_be_visible(timeout=WAIT_MS)
    expect(box).to_have_value("")
    expect(hint.locator(".inline-error")).to_have_count(0)


QUESTIONS = (
    "How should backups be taken and tested?",
    "How does dedent remove common leading whitespace?",
    "How do I roll back a deployment?",
)


def test_an_answer_shows_from_its_first_line_and_its_sources_only_in_the_panel(
    open_page: OpenPage, served: str, service: Actions, ingestor: Ingestor
) -> None:
    _handbook(service, ingestor)
    page = _chat_page(open_page, served)
    box = page.get_by_label("Question")
    bots = page.locator("#chatbot .message.bot")
    for number, question in enumerate(QUESTIONS, start=1):
        box.fill(question)
        page.get_by_role("button", name="Ask", exact=True).click()
        expect(bots).to_have_count(number, timeout=WAIT_MS)
        expect(bots.last.get_by_role("link", name="[1]").first).to_be_visible(timeout=WAIT_MS)
        expect(page.locator("#chat-sources")).to_contain_text(
            re.compile(r"\[1\].*\n?.*"), timeout=WAIT_MS
        )
        # one list of sources: the panel's, not a second one at the end of the answer
        expect(bots.last).not_to_contain_text("Sources")
        expect(bots.last).not_to_contain_text("DocSet handbook")
        # the new answer's first line is in view in the chat (not scrolled past to its end)
        first_line = bots.last.get_by_role("link", name="[1]").first
        expect(first_line).to_be_in_viewport()
        question_shown = page.locator("#chatbot .message.user").last
        expect(question_shown).to_be_in_viewport()
