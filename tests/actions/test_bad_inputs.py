"""A corpus of hostile and broken inputs: each gets a clear error, and the rest still works.

Every case puts a good document in the same DocSet first; after the bad input the real
ingestor runs and the good document must still end `done`. Inputs are built here (PDFs with
pypdf, archives with zipfile) or served by the local fakes (a docs site, a GitHub API), with
small timeouts so the whole file stays fast. One database serves the whole module; each case
has its own DocSet.
"""

import io
import itertools
import stat
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pypdf
import pytest

from ragspace.actions import Actions
from ragspace.actions.validation import MAX_QUESTION_CHARS
from ragspace.embedding.embedders import Embedder
from ragspace.errors import SourceError, ValidationError
from ragspace.ingestion.worker import IngestOptions, Ingestor
from ragspace.models import Document, SearchQuery, SourceKind, WebOptions
from ragspace.runtime import build_actions, build_chunker
from ragspace.settings import Settings, load_settings
from ragspace.sources.files import UploadedFile
from ragspace.sources.github_client import GithubClient, GithubConfig
from ragspace.sources.github_fetcher import GithubFetcher
from ragspace.sources.sync import SourceSyncer
from ragspace.sources.web import WebConfig, WebCrawler
from ragspace.store import Database, Store
from tests.fakes.docs_site import DocsSite, page, running_site
from tests.fakes.github_server import FakeGithub, running_github

DATA = Path(__file__).parent.parent / "data"
GOOD = UploadedFile("good.md", b"# Good\n\nThis document is fine and must end up done.\n")
MAX_UPLOAD = 128 * 1024
MAX_CHUNKS = 40
_names = itertools.count()


# ---------------------------------------------------------------- module-wide real parts


@pytest.fixture(scope="module")
def corpus_store(postgres_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """One migrated database for the whole corpus (each case uses its own DocSet)."""
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(b"create database bad_inputs")
    url = postgres_server.replace("/postgres?", "/bad_inputs?")
    settings = load_settings(env_file=None, database_url=url, data_dir=tmp_path_factory.mktemp("d"))
    database = Database.open(settings)
    yield Store(database.pool)
    database.close()


@pytest.fixture(scope="module")
def corpus_settings() -> Settings:
    """Small limits so each one is reached with small inputs."""
    return load_settings(
        env_file=None,
        max_upload_bytes=MAX_UPLOAD,
        zip_max_members=6,
        zip_max_total_bytes=256 * 1024,
        max_chunks_per_document=MAX_CHUNKS,
    )


@pytest.fixture(scope="module")
def corpus_ingestor(corpus_store: Store, embedder: Embedder, corpus_settings: Settings) -> Ingestor:
    """The real ingestor with the small chunk limit."""
    options = IngestOptions(
        max_chunks=corpus_settings.chunking.max_chunks_per_document, max_attempts=1
    )
    return Ingestor(corpus_store, build_chunker(corpus_settings), embedder, options)


def make_service(
    store: Store, embedder: Embedder, settings: Settings, syncer: SourceSyncer | None = None
) -> tuple[Actions, str]:
    """The service and a new DocSet already holding GOOD."""
    service = build_actions(settings, store, embedder, syncer=syncer)
    name = f"case-{next(_names)}"
    service.docsets.create(name)
    service.sources.add_files(name, [GOOD])
    return service, name


def finish(service: Actions, docset: str, ingestor: Ingestor) -> dict[str, Document]:
    """Run ingestion; the good document must be done. Returns documents by path."""
    ingestor.process_all()
    documents = {d.path: d for d in service.documents.all(docset)}
    assert documents["good.md"].embedding_status == "done", documents["good.md"].error_message
    return documents


# ---------------------------------------------------------------- builders of bad files


def _zip(
    members: dict[str, bytes], tweak: Callable[[zipfile.ZipInfo], None] | None = None
) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if tweak is not None and name.startswith("bad"):
                tweak(info)
            archive.writestr(info, data)
    return buffer.getvalue()


def _symlink(info: zipfile.ZipInfo) -> None:
    info.external_attr = (stat.S_IFLNK | 0o777) << 16


def _lying_size() -> bytes:
    """A zip whose member `bad.md` claims fewer bytes than it holds (CRC then fails)."""
    real = _zip({"ok.md": b"# Ok\n\nFine member.\n", "bad.md": b"A" * 5000})
    patched = bytearray(real)
    size = (5000).to_bytes(4, "little")
    for offset in range(len(patched) - 4):  # both the local and the central header
        if patched[offset : offset + 4] == size:
            patched[offset : offset + 4] = (10).to_bytes(4, "little")
    return bytes(patched)


def _pdf_blank() -> bytes:
    writer = pypdf.PdfWriter()
    writer.add_blank_page(200, 200)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _pdf_encrypted() -> bytes:
    reader = pypdf.PdfReader(DATA / "sample.pdf")
    writer = pypdf.PdfWriter()
    for sheet in reader.pages:
        writer.add_page(sheet)
    writer.encrypt(user_password="open-sesame", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


MINIFIED = "var a=" + ",".join(f"f{i}=function(x){{return x*{i}}}" for i in range(900)) + ";"
LONG_PROSE = "\n\n".join(
    f"Paragraph {i} talks about configuration option number {i} and its default value." * 8
    for i in range(150)
)


@dataclass(frozen=True)
class Upload:
    """One bad upload: the files, which document is bad and what its error must say."""

    files: list[UploadedFile]
    bad_path: str
    message: str
    also_done: list[str] = field(default_factory=list)  # other members that must end done


UPLOADS = {
    "empty-file": Upload([UploadedFile("empty.md", b"")], "empty.md", "is not indexed: empty file"),
    "whitespace-only": Upload(
        [UploadedFile("blank.txt", b" \n\t\n")], "blank.txt", "is not indexed: empty file"
    ),
    "binary-as-code": Upload(
        [UploadedFile("tool.py", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)))],
        "tool.py",
        "looks binary (it contains NUL bytes)",
    ),
    "unsupported-type": Upload(
        [UploadedFile("photo.png", b"\x89PNG\r\n\x1a\n....")],
        "photo.png",
        "is not UTF-8 text (invalid byte at offset 0)",
    ),
    "latin-1-text": Upload(
        [UploadedFile("legacy.txt", "Café crème brûlée\n".encode("latin-1"))],
        "legacy.txt",
        "is not UTF-8 text (invalid byte at offset 3); save it as UTF-8",
    ),
    "utf-16-without-bom": Upload(
        [UploadedFile("wide.md", "# Wide\n\nUTF-16 text\n".encode("utf-16-le"))],
        "wide.md",
        "looks like UTF-16 text without a byte-order mark",
    ),
    "huge-file": Upload(
        [UploadedFile("huge.txt", b"x" * (MAX_UPLOAD + 1))],
        "huge.txt",
        f"the limit is {MAX_UPLOAD:,}",
    ),
    "too-many-chunks": Upload(
        [UploadedFile("manual.md", LONG_PROSE.encode())],
        "manual.md",
        "RAGSPACE_MAX_CHUNKS_PER_DOCUMENT",
    ),
    "corrupt-pdf": Upload(
        [UploadedFile("broken.pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage")],
        "broken.pdf",
        "is not a readable PDF",
    ),
    "truncated-pdf": Upload(
        [UploadedFile("half.pdf", (DATA / "sample.pdf").read_bytes()[:700])],
        "half.pdf",
        "is not a readable PDF",
    ),
    "encrypted-pdf": Upload(
        [UploadedFile("locked.pdf", _pdf_encrypted())], "locked.pdf", "is password-protected"
    ),
    "pdf-without-text": Upload(
        [UploadedFile("scan.pdf", _pdf_blank())], "scan.pdf", "no extractable text"
    ),
    "html-without-text": Upload(
        [
            UploadedFile(
                "nav.html",
                b"<html><head><script>var x=1;</script></head><body><nav><a href='/'>Home</a>"
                b"</nav><main></main></body></html>",
            )
        ],
        "nav.html",
        "no readable main content",
    ),
    "notebook-not-json": Upload(
        [UploadedFile("lab.ipynb", b"{not json")], "lab.ipynb", "is not a Jupyter notebook"
    ),
    "notebook-without-cells": Upload(
        [UploadedFile("void.ipynb", b'{"cells": [], "nbformat": 4}')],
        "void.ipynb",
        "has no non-empty cells",
    ),
    "not-a-zip": Upload(
        [UploadedFile("fake.zip", b"PK\x03\x04 not really")], "fake.zip", "not a readable .zip"
    ),
    "zip-bomb": Upload(
        [UploadedFile("bomb.zip", _zip({"bomb.txt": b"0" * (300 * 1024)}))],
        "bomb.zip",
        "expands to 307,200 bytes; the limit is 262,144",
    ),
    "zip-too-many-members": Upload(
        [UploadedFile("many.zip", _zip({f"f{i}.md": b"# F\n\nx\n" for i in range(7)}))],
        "many.zip",
        "has 7 files; the limit is 6",
    ),
    "zip-dot-dot-path": Upload(
        [
            UploadedFile(
                "evil.zip", _zip({"../../etc/cron.md": b"# x\n", "ok.md": b"# Ok\n\nFine.\n"})
            )
        ],
        "evil.zip/../../etc/cron.md",
        "Refused unsafe path '../../etc/cron.md'",
        also_done=["evil.zip/ok.md"],
    ),
    "zip-absolute-path": Upload(
        [UploadedFile("abs.zip", _zip({"/etc/passwd.md": b"# x\n", "ok.md": b"# Ok\n\nFine.\n"}))],
        "abs.zip/etc/passwd.md",
        "Refused unsafe path '/etc/passwd.md'",
        also_done=["abs.zip/ok.md"],
    ),
    "zip-symlink": Upload(
        [
            UploadedFile(
                "link.zip",
                _zip({"bad-link.md": b"/etc/passwd", "ok.md": b"# Ok\n\nFine.\n"}, _symlink),
            )
        ],
        "link.zip/bad-link.md",
        "is a symbolic link",
        also_done=["link.zip/ok.md"],
    ),
    "zip-nested": Upload(
        [
            UploadedFile(
                "outer.zip",
                _zip({"inner.zip": _zip({"a.md": b"# A\n"}), "ok.md": b"# Ok\n\nFine.\n"}),
            )
        ],
        "outer.zip/inner.zip",
        "Nested archive inner.zip",
        also_done=["outer.zip/ok.md"],
    ),
    "zip-lying-sizes": Upload(
        [UploadedFile("liar.zip", _lying_size())],
        "liar.zip/bad.md",
        "cannot be read",
        also_done=["liar.zip/ok.md"],
    ),
}


@pytest.mark.parametrize("case", UPLOADS.values(), ids=UPLOADS.keys())
def test_bad_upload_is_refused_with_its_reason_and_the_rest_is_done(
    case: Upload,
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
    corpus_ingestor: Ingestor,
) -> None:
    service, docset = make_service(corpus_store, embedder, corpus_settings)
    returned = {d.path: d for d in service.sources.add_files(docset, case.files)}
    documents = finish(service, docset, corpus_ingestor)
    # refused on upload: reported, not stored (id 0); else failed while ingested: stored
    bad = documents.get(case.bad_path) or returned[case.bad_path]
    assert (bad.id == 0) == (case.bad_path not in documents)
    assert bad.embedding_status == "error"
    assert case.message in (bad.error_message or ""), bad.error_message
    for path in case.also_done:
        assert documents[path].embedding_status == "done", documents[path].error_message


def test_minified_one_line_file_is_indexed_on_its_one_line(
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
    corpus_ingestor: Ingestor,
) -> None:
    service, docset = make_service(corpus_store, embedder, corpus_settings)
    service.sources.add_files(docset, [UploadedFile("bundle.js", MINIFIED.encode())])
    documents = finish(service, docset, corpus_ingestor)
    assert documents["bundle.js"].embedding_status == "done"
    hits = service.search.hits(
        SearchQuery(question="f450=function", docsets=(docset,), limit=3, floor=False)
    )
    assert hits and all((h.start_line, h.end_line) == (1, 1) for h in hits if h.path == "bundle.js")


def test_utf16_with_a_byte_order_mark_is_read(
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
    corpus_ingestor: Ingestor,
) -> None:
    service, docset = make_service(corpus_store, embedder, corpus_settings)
    text = "# Wide\n\nUTF-16 text with a byte-order mark is decoded.\n"
    service.sources.add_files(docset, [UploadedFile("wide.md", text.encode("utf-16"))])
    documents = finish(service, docset, corpus_ingestor)
    assert documents["wide.md"].embedding_status == "done"
    hits = service.search.hits(
        SearchQuery(question="byte-order mark decoded", docsets=(docset,), limit=1, floor=False)
    )
    assert hits and "byte-order mark is decoded" in hits[0].content


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("", "Type a question first"),
        ("   \n\t", "Type a question first"),
        ("why? " * (MAX_QUESTION_CHARS // 5 + 1), f"at most {MAX_QUESTION_CHARS} characters"),
    ],
    ids=["empty-question", "blank-question", "overlong-question"],
)
def test_bad_questions_are_refused_clearly(
    question: str,
    message: str,
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
) -> None:
    service, docset = make_service(corpus_store, embedder, corpus_settings)
    with pytest.raises(ValidationError, match=message):
        service.search.hits(SearchQuery(question=question, docsets=(docset,), floor=False))
    with pytest.raises(ValidationError, match=message):
        service.answers.answer(SearchQuery(question=question, docsets=(docset,)))


# ---------------------------------------------------------------- web sources


@pytest.fixture
def site() -> Iterator[DocsSite]:
    """The local docs site (on 127.0.0.1, so these crawls turn the SSRF guard off)."""
    with running_site() as running:
        yield running


def _crawler(**config: Any) -> WebCrawler:
    base: dict[str, Any] = {
        "timeout_seconds": 0.5,
        "concurrency": 2,
        "max_redirects": 3,
        "max_page_bytes": 20_000,
        "allow_private_urls": True,
    }
    return WebCrawler(WebConfig(**{**base, **config}))


def _web_service(
    store: Store, embedder: Embedder, settings: Settings, crawler: WebCrawler | None = None
) -> tuple[Actions, str]:
    github = GithubClient(GithubConfig(api_url="http://127.0.0.1:9", allow_private_urls=True))
    syncer = SourceSyncer(store, [GithubFetcher(github, 10**6), crawler or _crawler()])
    return make_service(store, embedder, settings, syncer)


# (location, message, whether the source is stored): a location that is no web address is
# refused before anything is stored; what only the sync finds out stays on the source
BAD_LOCATIONS = {
    "ftp-url": ("ftp://example.com/docs/", "not a web address (http:// or https://)", False),
    "file-url": ("file:///etc/passwd", "not a web address", False),
    "javascript-url": ("javascript:alert(1)", "only http:// and https:// can be crawled", False),
    "mailto-url": ("mailto:docs@example.com", "only http:// and https:// can be crawled", False),
    "no-host": ("https://", "not a web address", False),
    "spaces-in-host": ("https://exa mple.com/docs", "invalid host name", True),
    # the credentials are stripped before storing; the address itself is then tried
    "credentials-in-url": ("https://user:pw@no-such-host.invalid/", "no-such-host.invalid", True),
    "metadata-address": ("http://169.254.169.254/latest/meta-data/", "cloud metadata", True),
}


@pytest.mark.parametrize(
    "location,message,stored", BAD_LOCATIONS.values(), ids=BAD_LOCATIONS.keys()
)
def test_malformed_and_unsupported_urls_are_source_errors(
    location: str,
    message: str,
    stored: bool,
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
    corpus_ingestor: Ingestor,
) -> None:
    guarded = _crawler(allow_private_urls=False)
    service, docset = _web_service(corpus_store, embedder, corpus_settings, guarded)
    with pytest.raises(SourceError) as caught:
        service.sources.add(docset, SourceKind.WEB, location, WebOptions(depth=1))
    assert message in str(caught.value) and "user:pw" not in str(caught.value)
    sources = [s for s in service.sources.all(docset) if s.kind is SourceKind.WEB]
    if stored:
        (source,) = sources
        assert message in (source.error_message or "") and "user:pw" not in source.location
    else:
        assert sources == []
    finish(service, docset, corpus_ingestor)


def _loop(site: DocsSite) -> None:
    site.routes["/docs/loop-a"] = (302, {"Location": "/docs/loop-b"}, b"")
    site.routes["/docs/loop-b"] = (302, {"Location": "/docs/loop-a"}, b"")


def _slow(site: DocsSite) -> None:
    site.html("/docs/slow.html", page("Slow", "<h1>Slow</h1><p>Arrives too late.</p>"))
    site.delays["/docs/slow.html"] = 1.5


def _no_text(site: DocsSite) -> None:
    site.html("/docs/empty.html", b"<html><body><nav>Home</nav><main> </main></body></html>")


def _server_error(site: DocsSite) -> None:
    site.routes["/docs/down.html"] = (500, {"Content-Type": "text/html"}, b"<h1>Oops</h1>")


def _oversized(site: DocsSite) -> None:
    site.html("/docs/big.html", page("Big", "<h1>Big</h1><p>" + "word " * 6000 + "</p>"))


WEB_FAILURES: dict[str, tuple[Callable[[DocsSite], None], str, str]] = {
    "redirect-loop": (_loop, "/docs/loop-a", "more than 3 redirects (a redirect loop?)"),
    # no answer at all ends at the page's deadline: "not received whole within 0.5 s"
    "timeout": (_slow, "/docs/slow.html", "within 0.5 s"),
    "page-without-text": (_no_text, "/docs/empty.html", "no readable main content"),
    "http-500": (_server_error, "/docs/down.html", "temporarily unavailable (HTTP 500)"),
    "http-404": (lambda _site: None, "/docs/nothing-here.html", "HTTP 404"),
    "not-html": (lambda _site: None, "/docs/manual.pdf", "not an HTML page (application/pdf)"),
    "oversized-page": (_oversized, "/docs/big.html", "larger than 20,000 bytes"),
}


@pytest.mark.parametrize(
    "setup,path,message", WEB_FAILURES.values(), ids=[f"start-{k}" for k in WEB_FAILURES]
)
def test_a_failing_start_page_is_a_source_error(
    setup: Callable[[DocsSite], None],
    path: str,
    message: str,
    site: DocsSite,
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
    corpus_ingestor: Ingestor,
) -> None:
    setup(site)
    service, docset = _web_service(corpus_store, embedder, corpus_settings)
    with pytest.raises(SourceError, match="could not be crawled") as caught:
        service.sources.add(docset, SourceKind.WEB, f"{site.origin}{path}", WebOptions(depth=1))
    assert message in str(caught.value)
    finish(service, docset, corpus_ingestor)


@pytest.mark.parametrize(
    "setup,path,message", WEB_FAILURES.values(), ids=[f"linked-{k}" for k in WEB_FAILURES]
)
def test_a_failing_linked_page_is_skipped_and_the_crawl_goes_on(
    setup: Callable[[DocsSite], None],
    path: str,
    message: str,
    site: DocsSite,
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
    corpus_ingestor: Ingestor,
) -> None:
    setup(site)
    site.html("/docs/", page("Home", f'<h1>Home</h1><p>Docs home. <a href="{path}">bad</a></p>'))
    service, docset = _web_service(corpus_store, embedder, corpus_settings)
    options = WebOptions(depth=1, path_prefix="/docs/")
    report = service.sources.add(docset, SourceKind.WEB, f"{site.origin}/docs/", options)
    reasons = {item.path: item.reason for item in report.skipped}
    assert message in reasons[f"{site.origin}{path}"]
    documents = finish(service, docset, corpus_ingestor)
    assert documents[f"{site.origin}/docs/"].embedding_status == "done"


def test_crawl_trap_is_bounded_by_the_page_limit(
    site: DocsSite,
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
    corpus_ingestor: Ingestor,
) -> None:
    """An endless calendar: every month links to the next one, forever."""
    for month in range(1, 60):
        following = f"/docs/cal/{2026 + month // 12}-{month % 12 + 1:02d}"
        body = f'<h1>Month {month}</h1><p>Nothing happens. <a href="{following}">next</a></p>'
        site.html(
            f"/docs/cal/{2026 + (month - 1) // 12}-{(month - 1) % 12 + 1:02d}", page("Cal", body)
        )
    service, docset = _web_service(corpus_store, embedder, corpus_settings)
    options = WebOptions(depth=10, path_prefix="/docs/cal/", max_pages=4)
    report = service.sources.add(docset, SourceKind.WEB, f"{site.origin}/docs/cal/2026-01", options)
    crawled = [p for p in site.requests if p.startswith("/docs/cal/")]
    assert len(crawled) == 4
    assert any(item.reason == "over the limit of 4 pages" for item in report.skipped)
    documents = finish(service, docset, corpus_ingestor)
    assert sum(1 for d in documents.values() if d.embedding_status == "done") == 5  # + good.md


def test_crawl_time_limit_stops_a_slow_site(
    site: DocsSite,
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
    corpus_ingestor: Ingestor,
) -> None:
    links = "".join(f'<a href="/docs/p{i}.html">p{i}</a> ' for i in range(6))
    site.html("/docs/", page("Home", f"<h1>Home</h1><p>Many slow pages. {links}</p>"))
    deeper = "".join(f'<a href="/docs/q{i}.html">q{i}</a> ' for i in range(6))
    for i in range(6):
        site.html(f"/docs/p{i}.html", page(f"P{i}", f"<h1>P{i}</h1><p>Slow page. {deeper}</p>"))
        site.delays[f"/docs/p{i}.html"] = 0.2
    crawler = _crawler(max_seconds=0.5, concurrency=1, timeout_seconds=2)
    service, docset = _web_service(corpus_store, embedder, corpus_settings, crawler)
    report = service.sources.add(
        docset, SourceKind.WEB, f"{site.origin}/docs/", WebOptions(depth=3)
    )
    limited = [i.path for i in report.skipped if i.reason == "over the crawl time limit of 0.5 s"]
    assert limited and not any("/docs/q" in p for p in site.requests)
    finish(service, docset, corpus_ingestor)


# ---------------------------------------------------------------- GitHub sources


@pytest.fixture(scope="module")
def github() -> Iterator[FakeGithub]:
    """The fake GitHub API with one repository holding good and bad files."""
    with running_github() as state:
        state.add_repo("acme", "widgets").commit(
            {
                "README.md": b"# Widgets\n\nGood repository file.\n",
                "docs/legacy.txt": "Fa\xe7ade notes\n".encode("latin-1"),
                "assets/logo.md": b"\x00\x01binary pretending to be markdown",
                "docs/huge.md": b"# Huge\n\n" + b"y" * 3000,
            }
        )
        yield state


def _github_service(
    store: Store, embedder: Embedder, settings: Settings, github: FakeGithub, **config: Any
) -> tuple[Actions, str]:
    options = {"timeout_seconds": 5, "max_file_bytes": 2000, "allow_private_urls": True}
    client = GithubClient(GithubConfig(api_url=github.base_url, **{**options, **config}))
    return make_service(
        store, embedder, settings, SourceSyncer(store, [GithubFetcher(client, 2000)])
    )


GITHUB_FAILURES: dict[str, tuple[str, dict[str, int], str]] = {
    "unknown-repository": ("acme/nothing", {}, "GitHub has no acme/nothing"),
    "unknown-ref": ("https://github.com/acme/widgets/tree/no-such-branch", {}, "at no-such-branch"),
    "bad-ref": ("https://github.com/acme/widgets/tree/..", {}, "not a valid git branch"),
    "bad-file-path": (
        "https://github.com/acme/widgets/blob/trunk/a/../../x",
        {},
        "not a file path",
    ),
    "not-github": ("https://gitlab.com/acme/widgets", {}, "is not a GitHub repository"),
    "garbage-location": ("not a repo!!", {}, "is not a GitHub repository"),
    "http-401": ("acme/widgets", {"/repos/acme/widgets": 401}, "GitHub rejected GITHUB_TOKEN"),
    "http-403": ("acme/widgets", {"/repos/acme/widgets": 403}, "GitHub answered HTTP 403"),
    "http-404": ("acme/widgets", {"/repos/acme/widgets": 404}, "GitHub has no acme/widgets"),
    "http-500": ("acme/widgets", {"/repos/acme/widgets": 500}, "GitHub answered HTTP 500"),
    "tarball-500": ("acme/widgets", {"/codeload": 500}, "GitHub answered HTTP 500"),
}


@pytest.mark.parametrize(
    "location,failing,message", GITHUB_FAILURES.values(), ids=GITHUB_FAILURES.keys()
)
def test_github_failures_are_source_errors(
    location: str,
    failing: dict[str, int],
    message: str,
    github: FakeGithub,
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
    corpus_ingestor: Ingestor,
) -> None:
    github.failing_paths = failing
    try:
        service, docset = _github_service(corpus_store, embedder, corpus_settings, github)
        kind = SourceKind.GITHUB_FILE if "/blob/" in location else SourceKind.GITHUB_REPO
        with pytest.raises(SourceError) as caught:
            service.sources.add(docset, kind, location)
        assert message in str(caught.value)
    finally:
        github.failing_paths = {}
    finish(service, docset, corpus_ingestor)


def test_github_rate_limit_429_names_the_reset(
    github: FakeGithub,
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
    corpus_ingestor: Ingestor,
) -> None:
    github.secondary_limited_paths = ("/repos/acme/widgets",)
    try:
        service, docset = _github_service(corpus_store, embedder, corpus_settings, github)
        with pytest.raises(SourceError, match=r"rate limit exceeded .* resets at"):
            service.sources.add(docset, SourceKind.GITHUB_REPO, "acme/widgets")
    finally:
        github.secondary_limited_paths = ()
    finish(service, docset, corpus_ingestor)


def test_github_timeout_is_a_source_error(
    github: FakeGithub,
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
    corpus_ingestor: Ingestor,
) -> None:
    github.delay_seconds = 1.5
    try:
        service, docset = _github_service(
            corpus_store, embedder, corpus_settings, github, timeout_seconds=1
        )
        with pytest.raises(SourceError, match="GitHub could not be reached for acme/widgets"):
            service.sources.add(docset, SourceKind.GITHUB_REPO, "acme/widgets")
    finally:
        github.delay_seconds = 0.0
    finish(service, docset, corpus_ingestor)


def test_bad_files_in_a_repository_do_not_stop_the_good_ones(
    github: FakeGithub,
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
    corpus_ingestor: Ingestor,
) -> None:
    service, docset = _github_service(corpus_store, embedder, corpus_settings, github)
    report = service.sources.add(docset, SourceKind.GITHUB_REPO, "acme/widgets")
    skipped = {item.path: item.reason for item in report.skipped}
    assert skipped["assets/logo.md"] == "binary content"
    assert skipped["docs/huge.md"] == "larger than 2,000 bytes"
    documents = finish(service, docset, corpus_ingestor)
    assert documents["acme/widgets/README.md"].embedding_status == "done"
    # a file in a repository that is not text is skipped with a reason, never an error
    assert skipped["docs/legacy.txt"] == "not UTF-8 text"
    assert "acme/widgets/docs/legacy.txt" not in documents


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"max_files": 2}, "has 3 files after filters; the limit is 2"),
        ({"max_archive_bytes": 100}, "is larger than 100 bytes"),
        ({"max_text_bytes": 30}, "hold more than 30 bytes of text together"),
    ],
    ids=["too-many-repository-files", "oversized-tarball", "too-much-text"],
)
def test_github_repository_limits_are_source_errors(
    config: dict[str, int],
    message: str,
    github: FakeGithub,
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
    corpus_ingestor: Ingestor,
) -> None:
    service, docset = _github_service(corpus_store, embedder, corpus_settings, github, **config)
    with pytest.raises(SourceError) as caught:
        service.sources.add(docset, SourceKind.GITHUB_REPO, "acme/widgets")
    assert message in str(caught.value)
    finish(service, docset, corpus_ingestor)


def _stored_text(store: Store, docset: str) -> dict[str, int]:
    """Characters of text stored per document path."""
    with store.pool.connection() as conn:
        rows = conn.execute(
            "select d.path, length(d.content) from documents d join docsets s"
            " on s.id = d.docset_id where s.name = %s",
            (docset,),
        ).fetchall()
    return {str(path): int(length) for path, length in rows}


def test_an_upload_has_one_text_budget_counted_while_decompressing(
    corpus_store: Store, embedder: Embedder, corpus_settings: Settings
) -> None:
    # each member is under the file cap and the archive's declared total is under its cap,
    # but together they are more text than one upload may bring
    limits = {"upload_text_budget_bytes": 150 * 1024, "max_chunks_per_document": 10_000}
    service, docset = make_service(corpus_store, embedder, corpus_settings.replace(**limits))
    members = {f"part{i}.txt": (f"part {i} " * 12_000).encode()[:80_000] for i in range(3)}
    bomb = _zip(members)
    assert len(bomb) < 10_000
    documents = {
        d.path: d for d in service.sources.add_files(docset, [UploadedFile("parts.zip", bomb)])
    }
    statuses = [documents[f"parts.zip/part{i}.txt"].embedding_status for i in range(3)]
    assert statuses == ["pending", "error", "error"]
    message = documents["parts.zip/part1.txt"].error_message or ""
    assert "RAGSPACE_UPLOAD_TEXT_BUDGET_BYTES" in message
    stored = _stored_text(corpus_store, docset)
    assert stored["parts.zip/part0.txt"] == 80_000
    assert "parts.zip/part1.txt" not in stored and "parts.zip/part2.txt" not in stored
    # the budget is per upload: the next upload starts afresh
    [again] = service.sources.add_files(docset, [UploadedFile("again.txt", members["part0.txt"])])
    assert again.embedding_status == "pending"


def test_a_document_over_the_chunk_limit_stores_no_text(
    corpus_store: Store, embedder: Embedder, corpus_settings: Settings
) -> None:
    service, docset = make_service(corpus_store, embedder, corpus_settings)
    long_text = ("A sentence of prose that goes on. " * 4000).encode()[:120_000]
    [document] = service.sources.add_files(docset, [UploadedFile("long.md", long_text)])
    assert document.embedding_status == "error"  # refused before any chunking
    assert "RAGSPACE_MAX_CHUNKS_PER_DOCUMENT" in (document.error_message or "")
    assert "long.md" not in _stored_text(corpus_store, docset)  # reported, not stored


def test_an_exception_while_extracting_fails_that_file_alone(
    corpus_store: Store,
    embedder: Embedder,
    corpus_settings: Settings,
    corpus_ingestor: Ingestor,
) -> None:
    service, docset = make_service(corpus_store, embedder, corpus_settings)
    deep = b'{"cells": ' + b"[" * 60_000 + b"]" * 60_000 + b"}"  # under the size cap
    sibling = UploadedFile("sibling.md", b"# Sibling\n\nStill added.\n")
    returned = service.sources.add_files(docset, [UploadedFile("deep.ipynb", deep), sibling])
    documents = finish(service, docset, corpus_ingestor)
    [deep_one] = [d for d in returned if d.path == "deep.ipynb"]
    assert deep_one.embedding_status == "error" and "deep.ipynb" not in documents
    assert "nested too deeply" in (deep_one.error_message or "")
    assert documents["sibling.md"].embedding_status == "done"
