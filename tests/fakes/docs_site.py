"""A small documentation site on 127.0.0.1: nested pages, sitemap, robots.txt, redirect, 404."""

import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.fakes.serving import serving


def page(title: str, body: str, head: str = "") -> bytes:
    """A realistic docs page: navigation and footer around the main content."""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>{head}</head>
<body>
<header><nav><a href="/docs/">Docs home</a> <a href="https://elsewhere.example/">Elsewhere</a></nav></header>
<main>{body}</main>
<footer><p>Copyright Example Docs Project. Built with a static site generator.</p></footer>
</body></html>""".encode()


INDEX = page(
    "Lantern docs",
    """<h1 id="lantern">Lantern documentation</h1>
<p>Lantern is a tiny tool that lights up dark data pipelines with clear telemetry.</p>
<ul>
<li><a href="guide/install.html">Install</a></li>
<li><a href="guide/install.html#step-2">Install, step 2</a></li>
<li><a href="/docs/old-configure">Configure (old link)</a></li>
<li><a href="/docs/print/install.html">Printable install guide</a></li>
<li><a href="/docs/missing.html">A page that is gone</a></li>
<li><a href="/docs/manual.pdf">PDF manual</a></li>
<li><a href="/private/secret.html">Internal notes</a></li>
<li><a href="/blog/news.html">News</a></li>
</ul>""",
)
INSTALL_BODY = """<h1 id="install">Installing Lantern</h1>
<p>Lantern ships as a single binary for every major operating system and architecture.</p>
<h2 id="step-1">Step 1: download</h2>
<p>Download the archive that matches your platform from the releases page of the project.</p>
<h2 id="step-2">Step 2: verify the checksum</h2>
<p>Verify the downloaded archive with sha256sum against the published checksum file before use.</p>
<p>Next read about <a href="deep/tuning.html">tuning the beam</a>.</p>"""
INSTALL = page("Install", INSTALL_BODY)
PRINT_INSTALL = page(
    "Install (print)",
    INSTALL_BODY,
    head='<link rel="canonical" href="/docs/guide/install.html">',
)
CONFIGURE = page(
    "Configure",
    """<h1 id="configure">Configuring Lantern</h1>
<p>Configuration lives in lantern.toml; every key has a sensible default value.</p>
<h2 id="beam-width">Beam width</h2>
<p>The beam_width key controls how many pipeline stages are traced at the same time.</p>""",
)
TUNING = page(
    "Tuning",
    """<h1 id="tuning">Tuning the beam</h1>
<p>Tuning trades trace detail against overhead; start with the defaults and measure.</p>
<p>Experts may read <a href="deeper/internals.html">the internals</a>.</p>""",
)
INTERNALS = page("Internals", "<h1>Internals</h1><p>The internals are beyond depth two.</p>")
FAQ = page(
    "FAQ",
    """<h1 id="faq">Frequently asked questions</h1>
<h2 id="why-lantern">Why is it called Lantern?</h2>
<p>Because it shines a light on the dark corners of nightly batch jobs and their failures.</p>""",
)
ROBOTS = b"User-agent: *\nDisallow: /private/\n\nSitemap: {origin}/sitemap.xml\n"
SITEMAP = """<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>{origin}/docs/</loc></url>
<url><loc>{origin}/docs/faq.html</loc><lastmod>2026-11-01</lastmod></url>
<url><loc>{origin}/blog/news.html</loc></url>
</urlset>"""


@dataclass
class DocsSite:
    """Routes (path -> (status, headers, body)) and every request received."""

    origin: str = ""
    routes: dict[str, tuple[int, dict[str, str], bytes]] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    not_modified: list[str] = field(default_factory=list)
    delays: dict[str, float] = field(default_factory=dict)  # path -> seconds before answering
    # path -> bytes of an HTML page sent without Content-Length, in 64 KB pieces, until the
    # client hangs up; `sent` counts what was written
    floods: dict[str, int] = field(default_factory=dict)
    sent: dict[str, int] = field(default_factory=dict)

    def html(self, path: str, body: bytes) -> None:
        """Serve an HTML page with an ETag."""
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        self.routes[path] = (200, {"Content-Type": "text/html; charset=utf-8", "ETag": etag}, body)

    def remove(self, path: str) -> None:
        """The page is gone: 404 from now on."""
        self.routes.pop(path, None)


def build_site(site: DocsSite) -> None:
    """Fill the routes of the lantern documentation site."""
    origin = site.origin
    site.routes["/robots.txt"] = (
        200,
        {"Content-Type": "text/plain"},
        ROBOTS.replace(b"{origin}", origin.encode()),
    )
    site.routes["/sitemap.xml"] = (
        200,
        {"Content-Type": "application/xml"},
        SITEMAP.format(origin=origin).encode(),
    )
    site.html("/docs/", INDEX)
    site.html("/docs/guide/install.html", INSTALL)
    site.html("/docs/print/install.html", PRINT_INSTALL)
    site.html("/docs/guide/configure.html", CONFIGURE)
    site.html("/docs/guide/deep/tuning.html", TUNING)
    site.html("/docs/guide/deep/deeper/internals.html", INTERNALS)
    site.html("/docs/faq.html", FAQ)
    site.html("/private/secret.html", page("Secret", "<h1>Secret</h1><p>Do not crawl.</p>"))
    site.html("/blog/news.html", page("News", "<h1>News</h1><p>Outside the docs prefix.</p>"))
    site.routes["/docs/old-configure"] = (301, {"Location": "/docs/guide/configure.html"}, b"")
    site.routes["/docs/manual.pdf"] = (
        200,
        {"Content-Type": "application/pdf"},
        b"%PDF-1.4\n%%EOF\n",
    )


@contextmanager
def running_site() -> Iterator[DocsSite]:
    """Serve the site on a free port."""
    site = DocsSite()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(site))
    site.origin = f"http://127.0.0.1:{server.server_address[1]}"
    build_site(site)
    with serving(server):
        yield site


def _handler(site: DocsSite) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

        def do_GET(self) -> None:
            """Serve a route; answer 304 when the client's ETag still matches."""
            path = urlsplit(self.path).path
            site.requests.append(path)
            time.sleep(site.delays.get(path, 0.0))
            if path in site.floods:
                self._flood(path, site.floods[path])
                return
            status, headers, body = site.routes.get(
                path, (404, {"Content-Type": "text/html"}, b"<h1>Not found</h1>")
            )
            if (
                status == 200
                and headers.get("ETag")
                and self.headers.get("If-None-Match") == headers["ETag"]
            ):
                site.not_modified.append(path)
                self.send_response(304)
                self.send_header("ETag", headers["ETag"])
                self.end_headers()
                return
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _flood(self, path: str, total: int) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Connection", "close")
            self.end_headers()
            piece = b"<p>" + b"flood " * 10_922 + b"</p>"  # 64 KB
            site.sent[path] = 0
            try:
                while site.sent[path] < total:
                    self.wfile.write(piece)
                    site.sent[path] += len(piece)
            except OSError:  # the client hung up
                pass
            self.close_connection = True

    return Handler
