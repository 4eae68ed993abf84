"""The viewer read in a real browser: code exactly as the file, lists that fit their box,
links only where the symbol table resolves the name, and the DocSet's repository map.

One app for the module over one DocSet of a constructed package (module_parts).
"""

from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect

from ragspace.sources.files import UploadedFile
from ragspace_ui.app import CSS, build_ui
from ragspace_ui.routes import app_routes
from ragspace_ui.server import launch_on_localhost
from tests.browser.journey import OpenPage
from tests.conftest import ModuleParts

pytestmark = pytest.mark.browser  # Chromium; deselect with -m 'not browser'

DOCSET = "shapes"
# a function used from eight places with long qualified names, a class of thirty methods
HELPERS = b'''"""Helpers."""


def normalise_measurement_value(value: float) -> float:
    """Round a measurement."""
    return round(value, 3)


def request(method: str, json: dict[str, float] | None = None) -> str:
    """A module-level function named like a parameter elsewhere."""
    return method
'''
METHODS = "".join(
    f"    def compute_the_{n}th_geometric_property_of_the_shape(self) -> float:\n"
    f"        return normalise_measurement_value(self.side * {n})\n\n"
    for n in range(30)
)
SHAPES = (
    b'"""Shapes."""\n\nfrom helpers import normalise_measurement_value, request\n\n\n'
    b"class Square:\n"
    b"    def __init__(self, side: float) -> None:\n"
    b"        self.side = side\n\n"
    + METHODS.encode()
    + b"    def send(self, request: str, json: dict[str, float]) -> str:\n"
    b"        auth = request.upper()\n"
    b"        return auth + str(json)\n"
)
FILES = {"helpers.py": HELPERS, "shapes.py": SHAPES}


@pytest.fixture(scope="module")
def url(module_parts: ModuleParts) -> Iterator[str]:
    """The app over the DocSet, embedded."""
    service = module_parts.service
    service.docsets.create(DOCSET)
    service.sources.add_files(DOCSET, [UploadedFile(n, data) for n, data in FILES.items()])
    module_parts.ingestor.process_all()
    demo = build_ui(service)
    yield launch_on_localhost(demo, css=CSS, app_kwargs={"routes": app_routes(service)})
    demo.close()


def _lines_link(url: str, path: str, lines: str) -> str:
    return url.rstrip("/") + "/?" + urlencode({"docset": DOCSET, "path": path, "lines": lines})


def _overflowing(page: Page, box: str) -> list[str]:
    """The links of `box` that reach past its right edge (or the page's)."""
    found: list[str] = page.evaluate(
        """(selector) => {
          const box = document.querySelector(selector);
          const right = Math.min(box.getBoundingClientRect().right, window.innerWidth);
          return [...box.querySelectorAll('a')]
            .filter((a) => a.getBoundingClientRect().right > right + 1)
            .map((a) => a.textContent);
        }""",
        box,
    )
    return found


@pytest.mark.parametrize("width", [1280, 390])
def test_references_and_outline_wrap_inside_their_box(
    url: str, open_page: OpenPage, width: int
) -> None:
    page = open_page(_lines_link(url, "helpers.py", "4-6"), width)
    viewer = page.locator("#source-viewer")
    uses = viewer.locator(".rs-refs")
    expect(uses).to_contain_text("normalise_measurement_value is used 30 times")
    viewer.locator(".rs-outline summary").click()
    expect(viewer.locator(".rs-outline a").first).to_be_visible()
    assert _overflowing(page, "#source-viewer .rs-refs") == []
    assert _overflowing(page, "#source-viewer .rs-outline") == []


def test_code_reads_exactly_as_the_file_and_links_add_no_width(
    url: str, open_page: OpenPage
) -> None:
    lines = SHAPES.decode().splitlines()
    page = open_page(_lines_link(url, "shapes.py", f"1-{len(lines)}"))
    viewer = page.locator("#source-viewer")
    expect(viewer.locator("a.rs-sym").first).to_be_visible()
    shown: list[str] = page.evaluate(
        """() => [...document.querySelectorAll('#source-viewer .rs-line')].map((line) => {
          const copy = line.cloneNode(true);
          copy.querySelector('.rs-ln').remove();
          return copy.textContent;
        })"""
    )
    assert shown[: len(lines)] == lines
    # every link is exactly as wide as its text, and its line as wide as its characters
    extra: list[float] = page.evaluate(
        """() => [...document.querySelectorAll('#source-viewer a.rs-sym')].map((a) => {
          const range = document.createRange();
          range.selectNodeContents(a);
          return a.getBoundingClientRect().width - range.getBoundingClientRect().width;
        })"""
    )
    assert extra and max(abs(e) for e in extra) < 0.5, extra
    style = page.evaluate(
        """() => {
          const s = getComputedStyle(document.querySelector('#source-viewer a.rs-sym'));
          return [s.paddingLeft, s.paddingRight, s.marginLeft, s.marginRight, s.borderLeftWidth];
        }"""
    )
    assert style == ["0px"] * 5, style


def test_the_code_map_draws_the_files_and_opens_a_definition_in_the_viewer(
    url: str, open_page: OpenPage
) -> None:
    page = open_page(url)
    expect(page.locator("#docset-select input")).to_have_value(DOCSET)  # the only DocSet
    page.get_by_text("Code map of the selected DocSet").click()
    page.get_by_role("button", name="Draw the code map").click()
    drawing = page.locator("#repo-map svg")
    expect(drawing).to_be_visible()
    expect(page.locator("#repo-map")).to_contain_text("2 of 2 files with definitions")
    # helpers.py defines what shapes.py uses: it comes first (at the top), a line joins them
    expect(drawing.locator(".rs-map-file").first).to_contain_text("helpers.py")
    expect(drawing.locator("line")).to_have_count(1)
    drawing.locator("a", has_text="normalise_measurement_value").first.click()
    viewer = page.locator("#source-viewer")
    expect(viewer.locator(".rs-viewer-head")).to_contain_text("helpers.py")
    expect(viewer.locator(".rs-focus").first).to_contain_text("def normalise_measurement_value")
