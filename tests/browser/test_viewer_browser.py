"""The source viewer in a real browser: each citation opens its document at the cited lines."""

import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from ragspace.actions import Actions
from ragspace.ingestion.worker import Ingestor
from ragspace.models import SearchQuery
from ragspace.sources.files import UploadedFile
from tests.browser.journey import WAIT_MS, OpenPage

pytestmark = pytest.mark.browser  # Chromium; deselect with -m 'not browser'

DATA = Path(__file__).parent.parent / "data"
FILES = ("deployment-guide.md", "textwrap.py", "sample.ipynb", "sample.pdf")
# (question, the uploaded file its first citation must open, text on a highlighted line)
CASES = [
    ("How should backups be taken?", "deployment-guide.md", "pg_dump --format=custom"),
    # the quoted lines: the docstring's sentence that answers, not the bare `def` above it
    (
        "How does dedent remove common leading whitespace?",
        "textwrap.py",
        "Remove any common leading whitespace",
    ),
    ("When do spring tides peak?", "sample.ipynb", "new moon"),
    ("What do otters build dams from?", "sample.pdf", "willow branches"),
]


def _opened(
    open_page: OpenPage,
    served: str,
    service: Actions,
    ingestor: Ingestor,
    files: Sequence[str],
    width: int,
) -> Page:
    """A DocSet "handbook" of these files, embedded, and the app open at this width."""
    service.docsets.create("handbook")
    service.sources.add_files("handbook", [UploadedFile(n, (DATA / n).read_bytes()) for n in files])
    ingestor.process_all()
    return open_page(served, width)


def _ask_and_open(page: Page, question: str, path: str) -> None:
    page.get_by_label("Question").fill(question)
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.locator("#chat-sources")).to_contain_text(path, timeout=WAIT_MS)
    page.locator("#viewer-pick input").click()
    page.get_by_role("option", name=re.compile(rf"\[\d+\] {re.escape(path)}")).first.click()
    expect(page.locator("#source-viewer .rs-viewer-head")).to_contain_text(path, timeout=WAIT_MS)


def test_citations_of_markdown_code_notebook_and_pdf_open_at_their_lines(
    served: str, service: Actions, ingestor: Ingestor, open_page: OpenPage
) -> None:
    page = _opened(open_page, served, service, ingestor, FILES, width=1280)
    page.get_by_role("tab", name="Chat").click()
    for question, path, expected in CASES:
        _ask_and_open(page, question, path)
        focus = page.locator("#source-viewer .rs-focus")
        expect(focus.first).to_be_visible()
        expect(focus.filter(has_text=expected).first).to_be_visible()
        expect(page.locator("#chatbot")).to_be_visible()  # the chat stays in view
        expect(page.locator("#chatbot")).to_be_in_viewport()
        if path.endswith(".pdf"):  # the PDF itself, opened at the page of the quote
            _assert_pdf_link_opens_the_file(page, expected_page=2)


def _assert_pdf_link_opens_the_file(page: Page, expected_page: int) -> None:
    link = page.locator("#source-viewer .rs-viewer-head a", has_text="open the PDF at page")
    expect(link).to_have_text(f"open the PDF at page {expected_page}")
    href = link.get_attribute("href") or ""
    assert href.endswith(f"#page={expected_page}"), href
    response = page.request.get(_absolute(page, href))
    assert response.status == 200
    assert response.headers["content-type"] == "application/pdf"
    assert response.body() == (DATA / "sample.pdf").read_bytes()


def _absolute(page: Page, href: str) -> str:
    return str(page.evaluate("(href) => new URL(href, document.baseURI).href", href)).split("#")[0]


def test_at_phone_width_an_answer_opens_its_citation(
    served: str, service: Actions, ingestor: Ingestor, open_page: OpenPage
) -> None:
    page = _opened(open_page, served, service, ingestor, FILES[:2], width=390)
    page.get_by_role("tab", name="Chat").click()  # every tab stays labelled at 390 px
    _ask_and_open(page, CASES[0][0], CASES[0][1])
    expect(page.locator("#source-viewer .rs-focus").first).to_be_visible()


def test_the_documents_of_a_docset_are_listed_filtered_opened_and_removed(
    served: str, service: Actions, ingestor: Ingestor, open_page: OpenPage
) -> None:
    page = _opened(open_page, served, service, ingestor, FILES[:2], width=390)
    page.get_by_role("tab", name="DocSets").click()
    expect(page.locator("#docset-select input")).to_have_value("handbook", timeout=WAIT_MS)
    page.get_by_text("Documents of the selected DocSet").click()
    table = page.locator("#documents-table")
    expect(table.get_by_role("gridcell", name="textwrap.py", exact=True)).to_be_visible()
    expect(page.locator("#documents-summary")).to_contain_text("2 of 2 document(s)")

    page.get_by_label("Filter").fill(".py")
    expect(page.locator("#documents-summary")).to_contain_text("1 of 2 document(s)")
    expect(table.get_by_role("gridcell", name="deployment-guide.md")).to_have_count(0)

    page.locator("#documents-chosen input").click()
    page.get_by_role("option", name="textwrap.py").click()
    page.get_by_role("button", name="Open in the viewer").click()
    viewer = page.locator("#document-viewer")
    expect(viewer.locator(".rs-viewer-head")).to_contain_text("textwrap.py")
    expect(viewer.locator("#rs-L1")).to_be_visible()

    page.get_by_role("button", name="Remove chosen…").click()
    expect(page.get_by_text("Remove 1 document(s) from handbook")).to_be_visible()
    page.get_by_role("button", name="Yes, remove them").click()
    expect(page.locator("#documents-message")).to_contain_text("Removed 1 document(s).")
    expect(page.locator("#documents-summary")).to_contain_text("0 of 1 document(s)")
    hits = service.search.hits(
        SearchQuery(
            question="How does dedent remove common leading whitespace?",
            docsets=("handbook",),
            floor=False,
        )
    )
    assert all(hit.path != "textwrap.py" for hit in hits)


def test_a_citation_link_in_the_answer_opens_its_source_in_the_viewer(
    served: str, service: Actions, ingestor: Ingestor, open_page: OpenPage
) -> None:
    page = _opened(open_page, served, service, ingestor, FILES[:2], width=390)
    page.get_by_role("tab", name="Chat").click()
    page.get_by_label("Question").fill(CASES[0][0])
    page.get_by_role("button", name="Ask", exact=True).click()
    answer = page.locator("#chatbot .message.bot").last
    link = answer.get_by_role("link", name="[1]").first
    expect(link).to_be_visible(timeout=WAIT_MS)
    link.click()
    viewer = page.locator("#source-viewer")
    expect(viewer.locator(".rs-viewer-head")).to_contain_text("[1] deployment-guide.md")
    expect(viewer.locator(".rs-focus").first).to_be_in_viewport()
    expect(page.locator("#viewer-open")).to_be_hidden()  # the go-between stays unseen
    page.evaluate("window.scrollTo(0, 0)")  # away; the same link again: back at the lines
    expect(viewer.locator(".rs-focus").first).not_to_be_in_viewport()
    link.click()
    expect(viewer.locator(".rs-focus").first).to_be_in_viewport()


def test_an_address_with_lines_opens_them_in_the_viewer_next_to_the_chat(
    served: str, service: Actions, ingestor: Ingestor, open_page: OpenPage
) -> None:
    # what the `view_url` of an MCP or CLI hit looks like
    start = 1 + (DATA / "textwrap.py").read_text().splitlines().index("def dedent(text):")
    page = _opened(open_page, served, service, ingestor, FILES[:2], width=390)
    page.goto(f"{served}?docset=handbook&path=textwrap.py&lines={start}-{start + 1}")
    viewer = page.locator("#source-viewer")
    expect(viewer.locator(".rs-viewer-head")).to_contain_text(f"lines {start}-{start + 1}")
    expect(viewer.locator(".rs-focus")).to_have_count(2)
    expect(viewer.locator(".rs-focus").first).to_contain_text("def dedent")
    expect(page.get_by_label("Question")).to_be_visible()  # on the Chat tab

    page.goto(f"{served}?docset=handbook&path=missing.py&lines=1-2")
    expect(viewer).to_contain_text("The linked lines cannot be opened")


def test_a_citation_number_in_the_sources_panel_opens_the_viewer(
    served: str, service: Actions, ingestor: Ingestor, open_page: OpenPage
) -> None:
    page = _opened(open_page, served, service, ingestor, FILES[:2], width=1280)
    page.get_by_role("tab", name="Chat").click()
    page.get_by_label("Question").fill(CASES[1][0])
    page.get_by_role("button", name="Ask", exact=True).click()
    number = page.locator("#chat-sources").get_by_role("link", name="[1]", exact=True)
    expect(number).to_be_visible(timeout=WAIT_MS)
    number.click()
    viewer = page.locator("#source-viewer")
    expect(viewer.locator(".rs-viewer-head")).to_contain_text("[1] textwrap.py")
    expect(viewer.locator(".rs-focus").first).to_be_in_viewport()
