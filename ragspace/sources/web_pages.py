"""One page of a documentation site: a bounded, conditional GET, and its HTML as a markdown
document with its canonical URL, title and links."""

import math
import time
from dataclasses import dataclass, field
from urllib.parse import urldefrag, urljoin, urlsplit

import httpx
import lxml.etree
import lxml.html

from ragspace.errors import SourceError
from ragspace.models import NewDocument, StoredDocument
from ragspace.sources.deadlines import ended_by_deadline, within
from ragspace.sources.extract import html_to_markdown
from ragspace.sources.network_errors import host_of, network_problem
from ragspace.sources.secret_scan import REDACTED_LINES, redact_secrets
from ragspace.sources.url_credentials import without_credentials
from ragspace.sources.web_config import WebConfig
from ragspace.text.hashing import content_hash

_HTML_TYPES = ("text/html", "application/xhtml+xml")
_BODY_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
# transient failures keep the page as stored: the next sync asks again
_TRANSIENT = "temporarily unavailable"


class SlowPage(httpx.TimeoutException):
    """A response that did not arrive whole by its deadline (it kept trickling)."""


@dataclass
class Page:
    """The outcome of fetching one URL."""

    url: str
    document: NewDocument | None = None
    unchanged: StoredDocument | None = None
    links: list[str] = field(default_factory=list)
    skip: str | None = None


class PageReader:
    """Reads pages through one HTTP client (the SSRF guard's), never more than the page cap."""

    def __init__(self, config: WebConfig, http: httpx.Client) -> None:
        self._config = config
        self._http = http

    @property
    def http(self) -> httpx.Client:
        """The guarded client every read goes through (a reader of other formats shares it)."""
        return self._http

    def read(self, url: str, previous: StoredDocument | None, until: float = math.inf) -> Page:
        """The page at `url`, asked for conditionally when stored before; ends by `until`."""
        headers = {}
        if previous is not None and previous.embedding_status != "error":
            if previous.metadata.get("etag"):
                headers["If-None-Match"] = str(previous.metadata["etag"])
            if previous.metadata.get("last_modified"):
                headers["If-Modified-Since"] = str(previous.metadata["last_modified"])
        try:
            response = self.get(url, headers, until)
        except SourceError as exc:  # the guard refused this address or a redirect target
            return Page(url, skip=str(exc))
        except httpx.TooManyRedirects:
            limit = self._config.max_redirects
            return Page(url, skip=f"more than {limit} redirects (a redirect loop?)")
        except httpx.InvalidURL as exc:
            return Page(url, skip=f"not a valid web address ({exc})")
        except SlowPage as exc:
            return Page(url, unchanged=previous, skip=f"{_TRANSIENT} ({exc})")
        except httpx.TimeoutException:
            reason = f"{_TRANSIENT} (no answer within {self._config.timeout_seconds:g} s)"
            return Page(url, unchanged=previous, skip=reason)
        except httpx.HTTPError as exc:
            problem = network_problem(exc, host_of(url))
            return Page(url, unchanged=previous, skip=f"{_TRANSIENT}: {problem}")
        if response is None:
            return Page(url, skip=f"larger than {self._config.max_page_bytes:,} bytes")
        if response.status_code == 304 and previous is not None:
            return Page(url, unchanged=previous, links=list(previous.metadata.get("links", [])))
        if response.status_code >= 500 or response.status_code == 429:
            return Page(url, unchanged=previous, skip=f"{_TRANSIENT} (HTTP {response.status_code})")
        if response.status_code != 200:
            return Page(url, skip=f"HTTP {response.status_code}")
        return self._page(url, response)

    def get(
        self, url: str, headers: dict[str, str] | None = None, until: float = math.inf
    ) -> httpx.Response | None:
        """GET `url`, reading at most max_page_bytes of its (decompressed) body: None when
        it is longer, so an endless or huge page, robots.txt or sitemap is never held whole.

        The whole exchange (connecting, redirects, headers, body) ends by the request
        timeout, or by `until` (the crawl's end) if sooner: past it, `SlowPage`. The
        timeout alone bounds each wait for a byte, so a page dripping one byte a second
        would otherwise be read for as long as it dripped.
        """
        page_end = time.monotonic() + self._config.timeout_seconds
        deadline = min(page_end, until)
        try:
            with within(deadline):
                return self._bounded_get(url, headers)
        except httpx.TimeoutException as exc:
            if not ended_by_deadline(exc):
                raise  # an ordinary timeout: one wait was too long
            reason = (
                f"not received whole within {self._config.timeout_seconds:g} s"
                if page_end <= until
                else f"over the crawl time limit of {self._config.max_seconds:g} s"
            )
            raise SlowPage(reason) from exc

    def _bounded_get(self, url: str, headers: dict[str, str] | None) -> httpx.Response | None:
        limit = self._config.max_page_bytes
        with self._http.stream("GET", url, headers=headers) as streamed:
            body = bytearray()
            for piece in streamed.iter_bytes():
                body += piece
                if len(body) > limit:
                    return None
            kept = [
                (name, value)
                for name, value in streamed.headers.multi_items()
                if name.lower() not in _BODY_HEADERS  # the body is decoded already
            ]
            return httpx.Response(
                streamed.status_code, headers=kept, content=bytes(body), request=streamed.request
            )

    def _page(self, url: str, response: httpx.Response) -> Page:
        final = urldefrag(str(response.url))[0]
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind not in _HTML_TYPES:
            return Page(url, skip=f"not an HTML page ({kind or 'no content type'})")
        if len(response.content) > self._config.max_page_bytes:
            return Page(url, skip=f"larger than {self._config.max_page_bytes:,} bytes")
        html = response.text
        canonical, title, links = parse_html(html, final)
        markdown, anchors = html_to_markdown(html)
        if not markdown.strip():
            return Page(url, skip="no readable main content")
        metadata = {
            "cite": {"source": "web", "url": canonical},
            "anchors": anchors,
            "links": links,
            "fetched_url": url,
            "etag": response.headers.get("etag"),
            "last_modified": response.headers.get("last-modified"),
        }
        markdown, redactions = redact_secrets(markdown)  # a page may publish a token
        if redactions:
            metadata[REDACTED_LINES] = [[r.line, r.reason] for r in redactions]
        document = NewDocument(
            path=canonical,
            title=title or canonical,
            language="markdown",
            content=markdown,
            content_hash=content_hash(markdown),
            metadata=metadata,
        )
        return Page(url, document=document, links=links)


def parse_html(html: str, url: str) -> tuple[str, str, list[str]]:
    """Canonical URL (same site only), title and the page's links without fragments."""
    try:
        root = lxml.html.fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return url, "", []
    canonical = url
    for element in root.iter("link"):
        if "canonical" in (element.get("rel") or "").lower().split() and element.get("href"):
            candidate = urldefrag(urljoin(url, str(element.get("href"))))[0]
            if urlsplit(candidate).netloc == urlsplit(url).netloc:
                canonical = candidate
    title = " ".join((root.findtext(".//title") or "").split())
    links: list[str] = []
    for element in root.iter("a"):
        href = element.get("href")
        if not href:
            continue
        link = without_credentials(urldefrag(urljoin(url, str(href)))[0])
        if urlsplit(link).scheme in ("http", "https") and link not in links:
            links.append(link)
    return canonical, title, links
