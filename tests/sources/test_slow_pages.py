"""Slow-drip pages: a site that answers one byte at a time, each byte well within the
request timeout, never finishing. Every page, robots.txt and sitemap has one deadline in
all (RAGSPACE_HTTP_TIMEOUT_SECONDS, within the crawl's RAGSPACE_WEB_MAX_SECONDS): the
crawl ends soon after it, the dripping pages skipped with the reason and the connection
closed, instead of running as long as the site keeps dripping."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ragspace.embedding.embedders import Embedder
from ragspace.models import SourceKind, WebOptions
from ragspace.runtime import build_actions
from ragspace.settings import Settings
from ragspace.store import Store
from tests.fakes.docs_site import page
from tests.fakes.serving import serving
from tests.waiting import wait_for

DRIP_SECONDS = 0.02  # the attack's pace: one byte, then this long
DRIP_BYTES = 500  # then the page would end (10 s of dripping): more than the test waits
# the test's request timeout: room for a busy machine, where the pages that do not drip
# must still arrive within it
DEADLINE = 1.5

START = page(
    "Start",
    '<h1>Start</h1><p>The pages below are served slowly.</p><a href="body.html">Body</a> '
    '<a href="headers.html">Headers</a> <a href="fast.html">Fast</a>',
)
FAST = page("Fast", "<h1>Fast</h1><p>This page arrives at once and is indexed.</p>")


@dataclass
class DrippingSite:
    """Counts the bytes each dripped path got out, and which gave up (client gone)."""

    origin: str = ""
    dripping: frozenset[str] = frozenset({"/docs/body.html", "/robots.txt", "/sitemap.xml"})
    sent: dict[str, int] = field(default_factory=dict)
    gone: dict[str, threading.Event] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)


def _handler(site: DrippingSite) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.path in ("/docs/", "/docs/fast.html"):
                body = START if self.path == "/docs/" else FAST
                self._head(len(body))
                self.wfile.write(body)
            elif self.path in site.dripping:
                self._head(10**6)  # declares a long body, then drips it
                self._drip(self.path, b"<html><body><main><h1>Drip</h1><p>", b"a")
            elif self.path == "/docs/body.html":
                body = page("Body", "<h1>Body</h1><p>Served at once this time.</p>")
                self._head(len(body))
                self.wfile.write(body)
            elif self.path == "/docs/headers.html":
                self._drip(self.path, b"HTTP/1.1 200 OK\r\nX-Slow: ", b"a")  # never ends
            else:
                self.send_error(404)

        def _head(self, length: int) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(length))
            self.end_headers()

        def _drip(self, path: str, first: bytes, byte: bytes) -> None:
            site.gone.setdefault(path, threading.Event())
            site.sent[path] = 0
            try:
                self.wfile.write(first)
                self.wfile.flush()
                for _ in range(DRIP_BYTES):
                    if site.stop.wait(DRIP_SECONDS):
                        return
                    self.wfile.write(byte)
                    self.wfile.flush()
                    site.sent[path] += 1
            except OSError:  # the client closed the connection
                site.gone[path].set()
                return
            self.close_connection = True

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@contextmanager
def dripping_site(**options: frozenset[str]) -> Iterator[DrippingSite]:
    """The dripping site on 127.0.0.1."""
    site = DrippingSite(**options)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(site))
    server.daemon_threads = True
    site.origin = f"http://127.0.0.1:{server.server_address[1]}"
    with serving(server):
        try:
            yield site
        finally:
            site.stop.set()


def _crawl(site: DrippingSite, settings: Settings, store: Store, embedder: Embedder) -> Any:
    """Add the site as a web source of a new DocSet with the app's own crawler (built from
    `settings`, as the app builds it); the sync's report and the DocSet's paths."""
    service = build_actions(settings, store, embedder)
    service.docsets.create("slow")
    options = WebOptions(depth=1, path_prefix="/docs/", max_pages=10)
    report = service.sources.add("slow", SourceKind.WEB, f"{site.origin}/docs/", options)
    reasons = {item.path.removeprefix(site.origin): item.reason for item in report.skipped}
    paths = {d.path.removeprefix(site.origin) for d in service.documents.all("slow")}
    return reasons, paths


def _hung_up(site: DrippingSite, paths: tuple[str, ...]) -> None:
    """The crawler closed each dripping connection long before the site would have."""
    for path in paths:
        wait_for(lambda p=path: p in site.gone and site.gone[p].is_set(), f"{path} cut", 30)
        assert site.sent[path] < DRIP_BYTES, path


def test_a_page_that_keeps_dripping_is_cut_at_its_deadline(
    settings: Settings, store: Store, embedder: Embedder
) -> None:
    with dripping_site() as site:
        tuned = settings.replace(http_timeout_seconds=DEADLINE, web_max_seconds=60)
        reasons, paths = _crawl(site, tuned, store, embedder)
        for path in ("/docs/body.html", "/docs/headers.html"):
            assert path in reasons, (path, reasons)
            assert f"not received whole within {DEADLINE:g} s" in reasons[path], reasons[path]
        assert paths == {"/docs/", "/docs/fast.html"}
        _hung_up(site, ("/docs/body.html", "/docs/headers.html", "/robots.txt", "/sitemap.xml"))


def test_a_crawl_ends_by_its_time_limit_while_pages_drip(
    settings: Settings, store: Store, embedder: Embedder
) -> None:
    """RAGSPACE_WEB_MAX_SECONDS ends the requests under way too, not only the next ones."""
    with dripping_site(dripping=frozenset({"/docs/body.html"})) as site:
        tuned = settings.replace(http_timeout_seconds=30, web_max_seconds=DEADLINE)
        reasons, paths = _crawl(site, tuned, store, embedder)
        for path in ("/docs/body.html", "/docs/headers.html"):
            assert f"over the crawl time limit of {DEADLINE:g} s" in reasons[path], reasons
        assert paths == {"/docs/", "/docs/fast.html"}
        _hung_up(site, ("/docs/body.html", "/docs/headers.html"))
