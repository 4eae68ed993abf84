"""The chat's ref selector in headless Chromium: one repository at two refs (issue 15)."""

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from ragspace_ui.app import CSS, build_ui
from ragspace_ui.server import launch_on_localhost
from tests.actions.test_versions import QUESTION, Versions, versions  # noqa: F401 (fixture)
from tests.browser import journey

pytestmark = pytest.mark.browser  # Chromium; deselect with -m 'not browser'


@pytest.fixture
def url(versions: Versions) -> Iterator[str]:  # noqa: F811
    """The app serving the DocSet `widgets` at v1.0 and v2.0, plus an unversioned `notes`."""
    versions.service.docsets.create("notes")
    demo = build_ui(versions.service)
    try:
        yield launch_on_localhost(demo, css=CSS)
    finally:
        demo.close()


def _pick_ref(page: Page, label: str) -> None:
    page.locator("#ref-pick input").click()
    page.get_by_role("option", name=label, exact=True).click()
    expect(page.locator("#ref-pick input")).to_have_value(label)


def _ask(page: Page, expected: str) -> None:
    page.get_by_label("Question").fill(QUESTION)
    page.get_by_role("button", name="Ask").click()
    expect(page.locator("#chatbot .message.bot").last).to_contain_text(
        expected, timeout=journey.WAIT_MS
    )


def test_ref_selector_answers_per_ref_and_hides_for_several_docsets(
    url: str,
    versions: Versions,  # noqa: F811
    open_page: journey.OpenPage,
) -> None:
    page = open_page(url)
    journey.open_tab(page, "Chat")
    ref_pick = page.locator("#ref-pick")
    expect(ref_pick).to_be_hidden()
    page.get_by_role("checkbox", name="widgets").check()
    expect(ref_pick).to_be_visible(timeout=journey.WAIT_MS)
    expect(ref_pick.locator("input")).to_have_value("All refs")

    _pick_ref(page, f"v1.0 @ {versions.v1[:12]}")
    _ask(page, "sprocket factory")
    sources = page.locator("#chat-sources")
    expect(sources).to_contain_text("Searched widgets at ref v1.0.")
    expect(sources).to_contain_text(f"v1.0 @ {versions.v1[:12]}")
    link = sources.get_by_role("link", name=re.compile(r"README\.md")).first
    expect(link).to_have_attribute("href", re.compile(rf"/blob/{versions.v1}/README\.md#L"))

    _pick_ref(page, f"v2.0 @ {versions.v2[:12]}")
    journey.open_tab(page, "DocSets")  # the lists refresh: the chosen ref stays
    journey.open_tab(page, "Chat")
    expect(ref_pick.locator("input")).to_have_value(f"v2.0 @ {versions.v2[:12]}")
    _ask(page, "laser foundry")
    expect(sources).to_contain_text("Searched widgets at ref v2.0.")
    link = sources.get_by_role("link", name=re.compile(r"README\.md")).first
    expect(link).to_have_attribute("href", re.compile(rf"/blob/{versions.v2}/README\.md#L"))

    # two DocSets chosen: no ref selector, every version searched
    page.get_by_role("checkbox", name="notes").check()
    expect(ref_pick).to_be_hidden(timeout=journey.WAIT_MS)
