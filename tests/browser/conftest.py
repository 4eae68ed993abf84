"""The browser the browser tests share: one Chromium per module, a fresh context per page."""

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.browser.journey import VIEWPORT, OpenPage, launch_chromium, new_page


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """Headless Chromium for the module's tests (a launch per test cost about a second)."""
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        yield browser
        browser.close()


@pytest.fixture
def open_page(chromium: Browser) -> Iterator[OpenPage]:
    """`open_page(url, width=1280)`: a fresh page (its own storage) loaded at `url`; every
    page the test opened is closed after it."""
    pages: list[Page] = []

    def open_(url: str, width: int = VIEWPORT["width"]) -> Page:
        page = new_page(chromium, width)
        pages.append(page)
        page.goto(url)
        return page

    yield open_
    for page in pages:
        page.context.close()
