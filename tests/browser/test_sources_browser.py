"""The source journey in a real browser: create a DocSet, preview a GitHub repo, confirm."""

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from ragspace.embedding.embedders import Embedder
from ragspace.store import Store
from ragspace_ui.app import build_ui
from ragspace_ui.server import launch_on_localhost
from tests.browser.journey import WAIT_MS, OpenPage
from tests.fakes.github_server import FakeGithub, running_github
from tests.sources.test_github_source import FILES, make_service

pytestmark = pytest.mark.browser  # Chromium; deselect with -m 'not browser'


@pytest.fixture
def github() -> Iterator[FakeGithub]:
    """A running fake GitHub with acme/widgets."""
    with running_github() as state:
        state.add_repo("acme", "widgets").commit(FILES)
        yield state


def test_preview_then_confirm_a_github_source(
    store: Store, embedder: Embedder, github: FakeGithub, open_page: OpenPage
) -> None:
    service = make_service(store, embedder, github)
    demo = build_ui(service)
    url = launch_on_localhost(demo)
    try:
        page = open_page(url)
        page.get_by_label("Name").fill("widgets")
        page.get_by_role("button", name="Create DocSet").click()
        expect(page.get_by_text("Created DocSet widgets.")).to_be_visible(timeout=WAIT_MS)
        page.get_by_text("Add a GitHub repository or file").click()
        page.get_by_label("Repository or file").fill("acme/widgets")
        page.get_by_label("Exclude globs", exact=True).fill("tests/**")
        page.get_by_role("button", name="Preview GitHub source").click()
        expect(page.get_by_text("Preview of acme/widgets")).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("lock file: 1")).to_be_visible()
        assert service.documents.all("widgets") == []  # a preview stores nothing
        page.get_by_role("button", name="Confirm and ingest").click()
        expect(page.get_by_text("Synced source #1")).to_be_visible(timeout=WAIT_MS)
    finally:
        demo.close()
    paths = {d.path for d in service.documents.all("widgets")}
    assert "acme/widgets/src/widgets/app.py" in paths and len(paths) == 4
