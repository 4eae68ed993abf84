"""The main user journey in a real browser, shared by the e2e tests and scripts/screenshots.py.

Each step waits for what the user would wait for (Playwright's auto-waiting `expect`), never
for a fixed time.
"""

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Locator, Page, Playwright, expect, sync_playwright

from ragspace.answering.prompts import RERANK_SYSTEM, REWRITE_SYSTEM

CHROMIUM = "/usr/bin/chromium"
VIEWPORT = {"width": 1280, "height": 900}
DATA = Path(__file__).parent.parent / "data"
# How long a step may take before the test gives up: an upper bound, not a wait. Playwright
# returns as soon as the element is there; on a loaded 2-core machine running two test
# processes an upload or a first render can take well over the default 5 s.
WAIT_MS = 60_000

DOCSET = "handbook"
DESCRIPTION = "Operations handbook: deployment guide, glossary and a Python module."
FILES = [DATA / "deployment-guide.md", DATA / "glossary.rst", DATA / "textwrap.py"]
QUESTION = "How should backups be taken and tested?"
ANSWER = (
    "Take a nightly logical backup with `pg_dump --format=custom` and keep fourteen daily "
    "copies [1]. Test a restore into a scratch database every month: a backup you have "
    "never restored is not a backup [1]."
)
# the quotes a model gives per [n] (the prompt asks for them); the app checks and hides them
QUOTES = '\n\nQuotes:\n[1] "Take a nightly logical backup with `pg_dump --format=custom`."\n'
ANSWER_TEXT = ANSWER.replace("`", "")  # as the browser shows it (code spans lose backticks)
KEYWORD = "pg_dump"  # what the fake reranker puts first


def chat_reply(request: dict[str, Any]) -> str:
    """A fake chat model for the journey: ranks passages naming KEYWORD first, then answers."""
    system = request["messages"][0]["content"]
    if system == RERANK_SYSTEM:
        prompt = request["messages"][-1]["content"]
        numbers = [int(n) for n in re.findall(r"^\[(\d+)\] ", prompt, re.MULTILINE)]
        blocks = re.split(r"^\[\d+\] ", prompt, flags=re.MULTILINE)[1:]
        first = [n for n, block in zip(numbers, blocks, strict=True) if KEYWORD in block]
        return '{"ranking": %s}' % (first + [n for n in numbers if n not in first])
    if system == REWRITE_SYSTEM:
        return request["messages"][-1]["content"]
    return ANSWER + QUOTES


# the `open_page` fixture (tests/browser/conftest.py): open_page(url, width=1280) -> Page
OpenPage = Callable[..., Page]


def launch_chromium(playwright: Playwright) -> Browser:
    """Headless Debian Chromium (about a second to start: tests share one per module)."""
    return playwright.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
    )


def new_page(browser: Browser, width: int = VIEWPORT["width"]) -> Page:
    """A page in a fresh context (its own cookies and storage) at this width, whose clicks,
    fills and waits give up after WAIT_MS."""
    viewport = {"width": width, "height": VIEWPORT["height"]}
    page = browser.new_context(viewport=viewport).new_page()  # type: ignore[arg-type]
    page.set_default_timeout(WAIT_MS)
    return page


@contextmanager
def browser_page() -> Iterator[Page]:
    """A page in headless Debian Chromium at the screenshot viewport (scripts/screenshots.py;
    tests use the `open_page` fixture)."""
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            yield new_page(browser)
        finally:
            browser.close()


def open_tab(page: Page, name: str) -> None:
    """Switch to a top-level tab."""
    page.get_by_role("tab", name=name).click()
    expect(page.get_by_role("tab", name=name)).to_have_attribute("aria-selected", "true")


def create_docset(page: Page, name: str, description: str = "") -> None:
    """Create a DocSet in the DocSets tab; it becomes the selected one."""
    open_tab(page, "DocSets")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Description", exact=True).fill(description)
    page.get_by_role("button", name="Create DocSet").click()
    expect(page.get_by_text(f"Created DocSet {name}.")).to_be_visible(timeout=WAIT_MS)


def upload_files(page: Page, files: list[Path]) -> None:
    """Upload files into the selected DocSet and wait for the confirmation."""
    upload = page.locator("#docset-files")
    upload.locator("input[type=file]").set_input_files([str(f) for f in files])
    for f in files:  # the upload finished when every file is listed
        expect(upload.get_by_role("cell", name=f.name, exact=True)).to_be_visible(timeout=WAIT_MS)
    page.get_by_role("button", name="Add files").click()
    expect(page.get_by_text(f"Added {len(files)} file(s)")).to_be_visible(timeout=WAIT_MS)


def status_cells(page: Page, status: str) -> Locator:
    """Cells of the status table's Status column showing `status`."""
    table = page.locator("#status-table")
    return table.get_by_role("gridcell", name=status, exact=True)


def wait_until_done(page: Page, count: int) -> None:
    """In the Embedding status tab, wait until `count` documents are `done`, none pending."""
    open_tab(page, "Embedding status")
    expect(page.locator("#status-summary")).to_contain_text(f"done {count}", timeout=60_000)
    expect(status_cells(page, "done")).to_have_count(count, timeout=WAIT_MS)
    for status in ("pending", "processing"):
        expect(status_cells(page, status)).to_have_count(0)
    chart = page.locator("#status-chart")
    expect(chart.locator("svg").first).to_be_visible()
    expect(chart).to_contain_text("done")  # the legend of the chart, drawn from the live data


# Records every text the last chat message shows, so a test can see the answer stream in.
_WATCH_ANSWER = """() => {
  window.__answerTexts = [];
  const root = document.querySelector('#chatbot');
  const record = () => {
    const bots = root.querySelectorAll('.message.bot, [data-testid="bot"]');
    if (bots.length) window.__answerTexts.push(bots[bots.length - 1].innerText.trim());
  };
  new MutationObserver(record).observe(root, {subtree: true, childList: true, characterData: true});
}"""


@dataclass(frozen=True)
class Asked:
    """What the browser showed while an answer streamed in, and the answer's last message."""

    seen: list[str]
    message: Locator


def ask(page: Page, question: str, expected_text: str) -> Asked:
    """Ask in the Chat tab and wait for the full answer; returns every text shown meanwhile."""
    open_tab(page, "Chat")
    page.evaluate(_WATCH_ANSWER)
    page.get_by_label("Question").fill(question)
    page.get_by_role("button", name="Ask").click()
    message = page.locator("#chatbot .message.bot").last
    expect(message).to_contain_text(expected_text, timeout=WAIT_MS)
    expect(page.locator("#chat-sources")).to_contain_text("[1]", timeout=WAIT_MS)
    seen: list[str] = page.evaluate("() => window.__answerTexts")
    return Asked(seen=seen, message=message)


def screenshot(page: Page, tab: str, path: Path) -> None:
    """A full-page screenshot of one tab."""
    open_tab(page, tab)
    page.mouse.move(0, 0)  # no hover effects in the picture
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True)
