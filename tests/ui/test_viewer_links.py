"""Links into and out of the viewer: an uploaded PDF opened at its page, and the address
(`?docset=…&path=…&lines=a-b`) that opens lines of a document next to the chat."""

import json
import tracemalloc
import urllib.error
import urllib.request
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from unittest.mock import patch
from urllib.parse import parse_qsl, urlsplit

import pypdf
import pytest
from pydantic import SecretStr

from ragspace.access import parse_auth
from ragspace.actions import Actions
from ragspace.errors import NotFoundError, ValidationError
from ragspace.ingestion.worker import Ingestor
from ragspace.links import LineLink, parse_line_link, view_url
from ragspace.models import Citation, NewDocument, SearchQuery
from ragspace.reading import MAX_READ_CHARS, MAX_READ_LINES
from ragspace.sources.files import UploadedFile, classify_bytes, error_document
from ragspace.store import Store
from ragspace_cli.main import main
from ragspace_mcp.read_tools import read_document
from ragspace_ui.viewer import open_citation, open_document, open_line_link

DATA = Path(__file__).parent.parent / "data"
PDF = (DATA / "sample.pdf").read_bytes()


@pytest.fixture
def handbook(service: Actions, ingestor: Ingestor) -> Actions:
    service.docsets.create("handbook")
    files = [UploadedFile(n, (DATA / n).read_bytes()) for n in ("sample.pdf", "textwrap.py")]
    service.sources.add_files("handbook", files)
    ingestor.process_all()
    return service


def _page_of(text: str) -> int:
    pages = pypdf.PdfReader(DATA / "sample.pdf").pages
    return next(n for n, page in enumerate(pages, 1) if text in (page.extract_text() or ""))


def test_an_uploaded_pdf_is_kept_and_its_citation_links_to_the_cited_page(
    handbook: Actions,
) -> None:
    *_, last = handbook.answers.ask(
        SearchQuery(question="What do otters build dams from?", docsets=("handbook",))
    )
    assert last.answer is not None
    citation = next(c for c in last.answer.citations if c.path == "sample.pdf")
    page = open_citation(handbook, citation, "handbook")
    expected = _page_of("willow branches")
    assert expected == 2  # the fact is not on the first page, so the page number matters
    assert f'href="ragspace/original?docset=handbook&amp;path=sample.pdf#page={expected}"' in page
    assert f"open the PDF at page {expected}" in page
    assert handbook.documents.read_original("handbook", "sample.pdf").content == PDF


def test_only_pdfs_without_an_origin_keep_their_bytes(handbook: Actions) -> None:
    assert not handbook.documents.read("handbook", "textwrap.py").has_original
    assert "open the PDF" not in open_document(handbook, "handbook", "textwrap.py")
    with pytest.raises(NotFoundError):
        handbook.documents.read_original("handbook", "textwrap.py")
    cite = {"source": "github", "html_url": "https://github.com/o/r", "commit": "abc"}
    from_github = classify_bytes("docs/sample.pdf", PDF, 10**6, cite)
    assert isinstance(from_github, NewDocument) and from_github.original is None


def test_removing_a_pdf_removes_its_kept_bytes(handbook: Actions) -> None:
    handbook.documents.remove("handbook", ["sample.pdf"])
    with pytest.raises(NotFoundError):
        handbook.documents.read_original("handbook", "sample.pdf")


def test_a_line_link_round_trips_and_a_bad_one_is_refused() -> None:
    link = LineLink("my docs", "src/a b.py", 5, 8)
    url = view_url("https://x.hf.space/", link)
    assert url == "https://x.hf.space/?docset=my+docs&path=src%2Fa+b.py&lines=5-8"
    assert parse_line_link(dict(parse_qsl(urlsplit(url).query))) == link
    assert parse_line_link({}) is None  # an ordinary visit opens nothing
    assert parse_line_link({"docset": "d", "path": "p"}) == LineLink("d", "p", 1, 1)
    with pytest.raises(ValidationError, match="not a line range"):
        parse_line_link({"docset": "d", "path": "p", "lines": "five"})


def test_a_line_link_opens_its_lines_highlighted(handbook: Actions) -> None:
    start = next(
        n
        for n, line in enumerate((DATA / "textwrap.py").read_text().splitlines(), 1)
        if line.startswith("def dedent")
    )
    page = open_line_link(handbook, LineLink("handbook", "textwrap.py", start, start + 2))
    assert f"lines {start}-{start + 2} of" in page
    for number in range(start, start + 3):
        assert f'<span class="rs-line rs-focus" id="rs-L{number}">' in page
    assert f'<span class="rs-line " id="rs-L{start - 1}">' in page  # context, plain


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers["content-type"], response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["content-type"], exc.read()


def test_the_app_serves_a_kept_pdf_to_those_who_may_read_the_docset(
    handbook: Actions, launch_app: Callable[..., str]
) -> None:
    url = launch_app(handbook)
    status, kind, body = _get(f"{url}ragspace/original?docset=handbook&path=sample.pdf")
    assert (status, kind, body) == (200, "application/pdf", PDF)
    status, _, body = _get(f"{url}ragspace/original?docset=handbook&path=textwrap.py")
    assert status == 404 and b"No original file" in body

    credentials = parse_auth(SecretStr("ana:secret-pass-1"))
    guarded = launch_app(handbook, credentials)
    status, _, body = _get(f"{guarded}ragspace/original?docset=handbook&path=sample.pdf")
    assert status == 401 and PDF not in body
    signed = {"X-Ragspace-Auth": "ana:secret-pass-1"}
    status, _, body = _get(f"{guarded}ragspace/original?docset=handbook&path=sample.pdf", signed)
    assert (status, body) == (200, PDF)


def test_a_citation_without_a_stored_page_map_has_no_pdf_link(handbook: Actions) -> None:
    citation = Citation(number=1, label="textwrap.py", path="textwrap.py", start_line=1, end_line=3)
    assert "open the PDF" not in open_citation(handbook, citation, "handbook")


@pytest.mark.parametrize("lines", ["²", "1-²", "٣", "1-٣", "9" * 5000, "1-" + "9" * 5000, "-5"])
def test_a_line_range_of_other_digits_or_too_many_is_named_in_the_error(lines: str) -> None:
    with pytest.raises(ValidationError) as refused:
        parse_line_link({"docset": "d", "path": "p", "lines": lines})
    assert "not a line range like 12-30" in str(refused.value)
    assert lines[:20] in str(refused.value) and len(str(refused.value)) < 200


def _large(service: Actions) -> None:
    """A document of 5,001 lines where line 2,500 alone holds 400,000 characters."""
    lines = [f"line {n} of the large document" for n in range(1, 5002)]
    lines[2499] = "x" * 400_000
    service.docsets.create("large")
    service.sources.add_files("large", [UploadedFile("big.txt", "\n".join(lines).encode())])


def test_every_reader_gets_a_capped_range_with_a_continuation(
    service: Actions, capsys: pytest.CaptureFixture[str]
) -> None:
    _large(service)
    whole = service.documents.read("large", "big.txt")  # no end: not the whole document
    assert (whole.start_line, whole.end_line, whole.total_lines) == (1, MAX_READ_LINES, 5001)
    assert whole.continuation == (
        f"Showing lines 1-{MAX_READ_LINES} of 5001; read lines "
        f"{MAX_READ_LINES + 1}-{2 * MAX_READ_LINES} next."
    )
    wide = service.documents.read("large", "big.txt", 2400, 2600)  # the character cap
    assert wide.end_line == 2499 and len(wide.text) <= MAX_READ_CHARS
    assert "read lines 2500-" in (wide.continuation or "")
    alone = service.documents.read("large", "big.txt", 2500, 2500)  # one line over the cap
    assert len(alone.text) <= MAX_READ_CHARS + 100 and "line 2500 is cut" in alone.continuation
    last = service.documents.read("large", "big.txt", 4990)
    assert last.end_line == 5001 and last.continuation is None

    # the viewer's deep link (lines=1-999999999) and its own document view
    page = open_line_link(service, LineLink("large", "big.txt", 1, 999_999_999))
    assert len(page) < 40 * MAX_READ_CHARS and "of 5001" in page and "read lines" in page
    assert "read lines" in open_document(service, "large", "big.txt")

    # MCP read_document
    read = json.loads(read_document(service, "large", "big.txt"))
    assert read["end_line"] == MAX_READ_LINES and read["continuation"] == whole.continuation
    assert len(read_document(service, "large", "big.txt", 2500, 2500)) < MAX_READ_CHARS + 2000

    # CLI docs show
    with patch("ragspace_cli.docs.opened_actions", lambda: nullcontext(service)):
        assert main(["docs", "show", "large", "big.txt", "--lines", "1-999999"]) == 0
    shown = capsys.readouterr()
    assert shown.out.count("\n") == MAX_READ_LINES and "read lines 1001-2000" in shown.err


def test_reading_a_range_never_loads_the_whole_document(service: Actions, store: Store) -> None:
    line = "".join(f"token{n};" for n in range(600_000))  # one minified line of ~6.6 MB
    service.docsets.create("minified")
    service.sources.add_files("minified", [UploadedFile("bundle.txt", f"{line}\nthe end".encode())])
    # an error document with no text (an upload refuses an empty file: the store keeps one)
    docset_id = service.docsets.get("minified").id
    store.documents.upsert(docset_id, None, [error_document("empty.md", b"", "empty file")])
    tracemalloc.start()
    try:
        first = service.documents.read("minified", "bundle.txt")
        last = service.documents.read("minified", "bundle.txt", 2)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * MAX_READ_CHARS  # the reading caps, not the 6.6 MB line
    assert first.text == line[:MAX_READ_CHARS] and "line 1 is cut" in (first.continuation or "")
    assert (last.text, last.end_line, last.total_lines, last.continuation) == (
        "the end",
        2,
        2,
        None,
    )
    with pytest.raises(ValidationError, match="between 1 and 2"):
        service.documents.read("minified", "bundle.txt", 3)
    empty = service.documents.read("minified", "empty.md")
    assert (empty.text, empty.start_line, empty.end_line, empty.total_lines) == ("", 1, 1, 1)
    assert empty.continuation is None
