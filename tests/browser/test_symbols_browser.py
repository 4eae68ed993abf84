"""Code navigation in the viewer, in a real browser: click an identifier, land on its
definition; the definition lists its uses; a use opens where it is."""

from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from ragspace.actions import Actions
from ragspace.ingestion.worker import Ingestor
from ragspace.sources.files import UploadedFile
from tests.browser.journey import OpenPage
from tests.symbols.shop import CART, PRICING

pytestmark = pytest.mark.browser  # Chromium; deselect with -m 'not browser'


def test_an_identifier_opens_its_definition_which_lists_its_uses(
    served: str, service: Actions, ingestor: Ingestor, open_page: OpenPage
) -> None:
    service.docsets.create("shop")
    files = [UploadedFile("cart.py", CART), UploadedFile("pricing.py", PRICING)]
    service.sources.add_files("shop", files)
    ingestor.process_all()
    opened = (
        served.rstrip("/")
        + "/?"
        + urlencode({"docset": "shop", "path": "cart.py", "lines": "16-18"})
    )
    page = open_page(opened)
    viewer = page.locator("#source-viewer")
    expect(viewer.locator(".rs-viewer-head")).to_contain_text("cart.py")
    viewer.locator(".rs-focus a.rs-sym", has_text="total_price").click()
    # the definition: its lines highlighted, its uses listed
    expect(viewer.locator(".rs-viewer-head")).to_contain_text("pricing.py")
    expect(viewer.locator(".rs-focus").first).to_contain_text("def total_price")
    assert "lines=6-8" in page.url
    uses = viewer.locator(".rs-refs")
    expect(uses).to_contain_text("total_price is used once")
    uses.get_by_role("link", name="cart.py:18 (Cart.checkout)").click()
    expect(viewer.locator(".rs-viewer-head")).to_contain_text("cart.py")
    expect(viewer.locator(".rs-focus")).to_contain_text("return total_price(self.items)")
    viewer.locator(".rs-outline summary").click()
    expect(viewer.locator(".rs-outline")).to_contain_text("class Cart")
