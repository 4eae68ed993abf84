"""The Embedding status tab in a real browser: live refresh and a re-embed button."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ragspace.actions import Actions
from ragspace.ingestion.worker import Ingestor
from ragspace.models import EmbeddingStatus
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from tests.browser.journey import WAIT_MS, OpenPage

pytestmark = pytest.mark.browser  # Chromium; deselect with -m 'not browser'

DATA = Path(__file__).parent.parent / "data"


def test_status_tab_refreshes_live_and_requeues_failed_documents(
    served: str, service: Actions, ingestor: Ingestor, store: Store, open_page: OpenPage
) -> None:
    service.docsets.create("docs")
    files = [UploadedFile(n, (DATA / n).read_bytes()) for n in ("glossary.rst", "textwrap.py")]
    service.sources.add_files("docs", files)
    ingestor.process_all()
    broken = next(d for d in service.documents.all() if d.path == "glossary.rst")
    store.documents.mark_error(broken.id, "The embedding API was down.")

    page = open_page(served)
    page.get_by_role("tab", name="Embedding status").click()
    failed = page.locator("span", has_text="The embedding API was down.")
    expect(failed.first).to_be_visible(timeout=WAIT_MS)
    page.get_by_role("button", name="Re-embed failed only").click()
    page.get_by_text("Queued 1 failed document(s) again.").wait_for(timeout=WAIT_MS)
    queued = page.locator("span", has_text=re.compile(r"^queued$"))
    expect(queued.first).to_be_visible(timeout=WAIT_MS)
    expect(failed).to_have_count(0, timeout=WAIT_MS)  # re-queued: the error is cleared
    ingestor.process_all()  # the timer shows the result without a reload
    expect(queued).to_have_count(0, timeout=WAIT_MS)
    statuses = {d.embedding_status for d in service.documents.all()}
    assert statuses == {EmbeddingStatus.DONE}
