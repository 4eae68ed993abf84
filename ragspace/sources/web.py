"""Documentation sites: a polite, bounded crawl to markdown pages that keep heading anchors."""

import math
import re
import threading
import time
import urllib.robotparser
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from urllib.parse import urldefrag, urljoin, urlsplit

import httpx
import lxml.etree
import lxml.html

from ragspace.errors import SourceError
from ragspace.extract import html_to_markdown
from ragspace.hashing import content_hash
from ragspace.models import (
    NewDocument,
    SkippedItem,
    SourceKind,
    SourcePreview,
    StoredDocument,
    WebOptions,
)
from ragspace.sources.fetcher import FetchResult, PreviousSync
from ragspace.sources.netguard import NetGuard, guarded_client
from ragspace.sources.network_errors import host_of, network_problem
from ragspace.sources.secret_scan import REDACTED_LINES, redact_secrets
from ragspace.url_credentials import without_credentials

_HTML_TYPES = ("text/html", "application/xhtml+xml")
_TRANSIENT = "temporarily unavailable"
_BODY_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
_OTHER_SCHEME = re.compile(r"^(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*):(?!\d)")


def start_url(location: str) -> str:
    """The crawl's start URL (https:// added when no scheme is given); a SourceError when
    the location is not an http(s) address. Its form only: nothing is resolved or fetched."""
    start = location.strip()
    other = _OTHER_SCHEME.match(start)
    if "://" not in start and other and other["scheme"].lower() not in ("http", "https"):
        raise SourceError(
            f"{location!r} is not a web address: only http:// and https:// can be crawled."
        )
    if "://" not in start:
        start = f"https://{start}"
    parts = urlsplit(start)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SourceError(f"{location!r} is not a web address (http:// or https://).")
    return start


@dataclass(frozen=True)
class WebConfig:
    """Caps and manners for every crawl."""

    timeout_seconds: float = 30.0
    max_pages: int = 500
    concurrency: int = 4
    max_page_bytes: int = 5 * 1024 * 1024
    user_agent: str = "RAGSpaceBot/0.1"
    chunk_chars: int = 1000
    max_seconds: float = 600.0
    max_redirects: int = 5
    allow_private_urls: bool = False
    # the text of all pages one crawl reads, as for the files of one upload
    max_text_bytes: int = 64 * 1024 * 1024


@dataclass(frozen=True)
class CrawlScope:
    """Start URL, site origin, path prefix, depth and page budget of one crawl."""

    start: str
    origin: str
    prefix: str
    depth: int
    max_pages: int

    def contains(self, url: str) -> bool:
        """Same scheme and host as the start, under the path prefix."""
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}" == self.origin and (parts.path or "/").startswith(
            self.prefix
        )


@dataclass
class _Page:
    """The outcome of fetching one URL."""

    url: str
    document: NewDocument | None = None
    unchanged: StoredDocument | None = None
    links: list[str] = field(default_factory=list)
    skip: str | None = None


@dataclass
class _Crawl:
    documents: list[NewDocument] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    skipped: list[SkippedItem] = field(default_factory=list)
    seen_urls: set[str] = field(default_factory=set)
    seen_pages: set[str] = field(default_factory=set)
    deadline: float = math.inf
    text_left: int = 0  # bytes of page text the crawl may still read
    lock: threading.Lock = field(default_factory=threading.Lock)

    def take_text(self, size: int) -> bool:
        """Spend `size` bytes of the crawl's text budget; False (nothing spent) past it."""
        with self.lock:  # pages of a level are read by several threads
            if size > self.text_left:
                return False
            self.text_left -= size
            return True

    @property
    def pages(self) -> int:
        return len(self.documents) + len(self.kept)


class WebCrawler:
    """Breadth-first crawl: robots.txt, sitemap, depth, prefix, page cap, conditional GETs."""

    def __init__(
        self, config: WebConfig, http: httpx.Client | None = None, guard: NetGuard | None = None
    ) -> None:
        self._config = config
        self._guard = guard or NetGuard(allow_private=config.allow_private_urls)
        self._http = http or guarded_client(
            self._guard,
            timeout=config.timeout_seconds,
            follow_redirects=True,
            max_redirects=config.max_redirects,
            headers={"User-Agent": config.user_agent},
        )

    def preview(self, kind: SourceKind, location: str, options: WebOptions) -> SourcePreview:
        """The pages a crawl would index, without storing anything."""
        crawled = self.fetch(kind, location, options, PreviousSync())
        documents = crawled.documents
        total = sum(len(d.content.encode()) for d in documents if not d.error_message)
        return SourcePreview(
            kind=SourceKind.WEB,
            location=location,
            resolved=crawled.resolved,
            items=[d.path for d in documents],
            skipped=crawled.skipped,
            total_bytes=total,
            estimated_chunks=math.ceil(total / self._config.chunk_chars),
        )

    def fetch(
        self,
        kind: SourceKind,  # noqa: ARG002 - always web; the Fetcher protocol serves GitHub's two
        location: str,
        options: WebOptions,
        previous: PreviousSync,
    ) -> FetchResult:
        """Changed pages, unchanged page paths, skipped URLs with reasons, and sync state.

        Pages stored before are asked for with their ETag / Last-Modified (a 304 keeps them).
        """
        scope = self._scope(location, options)
        robots = self._robots(scope)
        by_url = {
            str(d.metadata.get("fetched_url", d.path)): d for d in previous.documents.values()
        }
        crawl = _Crawl(
            deadline=time.monotonic() + self._config.max_seconds,
            text_left=self._config.max_text_bytes,
        )
        frontier = [scope.start]
        seeds = self._sitemap(scope, robots) if scope.depth >= 1 else []
        for depth in range(scope.depth + 1):
            level = self._admit(frontier, scope, robots, crawl, depth)
            pages = self._fetch_all(level, by_url, crawl)
            frontier = self._record(pages, crawl, scope, first=depth == 0)
            if depth == 0:
                frontier += seeds
        for url in frontier:
            if url not in crawl.seen_urls and scope.contains(url):
                crawl.skipped.append(SkippedItem(path=url, reason=f"beyond depth {scope.depth}"))
                crawl.seen_urls.add(url)
        state = {"start_url": scope.start, "pages": crawl.pages, "sitemap_urls": len(seeds)}
        return FetchResult(crawl.documents, crawl.kept, crawl.skipped, state, scope.start)

    def _scope(self, location: str, options: WebOptions) -> CrawlScope:
        start = start_url(location)
        parts = urlsplit(start)
        self._guard.check(start)  # a clear error for a private or malformed start address
        prefix = (options.path_prefix or "/").strip() or "/"
        if not prefix.startswith("/"):
            prefix = "/" + prefix
        depth = max(0, min(options.depth, 10))
        pages = max(1, min(options.max_pages, self._config.max_pages))
        return CrawlScope(
            urldefrag(start)[0], f"{parts.scheme}://{parts.netloc}", prefix, depth, pages
        )

    def _robots(self, scope: CrawlScope) -> urllib.robotparser.RobotFileParser:
        parser = urllib.robotparser.RobotFileParser(f"{scope.origin}/robots.txt")
        text = ""
        try:
            response = self._get(f"{scope.origin}/robots.txt")
            if response is not None and response.status_code == 200:
                text = response.text
        except (httpx.HTTPError, httpx.InvalidURL, SourceError):
            pass  # no robots.txt reachable: everything is allowed, as crawlers agree
        parser.parse(text.splitlines())
        return parser

    def _sitemap(self, scope: CrawlScope, robots: urllib.robotparser.RobotFileParser) -> list[str]:
        urls = list(robots.site_maps() or [f"{scope.origin}/sitemap.xml"])
        found: list[str] = []
        for sitemap in urls[:5]:
            for loc in self._sitemap_locations(sitemap):
                if loc.endswith(".xml") and len(urls) < 5:  # a sitemap index, one level deep
                    urls.append(loc)
                else:
                    found.append(urldefrag(loc)[0])
        return found

    def _sitemap_locations(self, url: str) -> list[str]:
        try:
            response = self._get(url)
            if response is None or response.status_code != 200:
                return []
            root = lxml.etree.fromstring(
                response.content, parser=lxml.etree.XMLParser(resolve_entities=False)
            )
        except (httpx.HTTPError, httpx.InvalidURL, SourceError, lxml.etree.XMLSyntaxError):
            return []
        return [str(el.text).strip() for el in root.iter("{*}loc") if el.text]

    def _admit(
        self,
        urls: list[str],
        scope: CrawlScope,
        robots: urllib.robotparser.RobotFileParser,
        crawl: _Crawl,
        depth: int,
    ) -> list[str]:
        """URLs of this level worth fetching; the others are recorded with their reason."""
        admitted: list[str] = []
        for url in urls:
            if url in crawl.seen_urls:
                continue
            crawl.seen_urls.add(url)
            reason = None
            if not url.startswith(scope.origin + "/"):
                reason = "on another site"
            elif not scope.contains(url):
                reason = f"outside the path prefix {scope.prefix}"
            elif not robots.can_fetch(self._config.user_agent, url):
                reason = "disallowed by robots.txt"
            elif crawl.pages + len(admitted) >= scope.max_pages:
                reason = f"over the limit of {scope.max_pages} pages"
            if reason is None:
                admitted.append(url)
            elif depth == 0 and url == scope.start:
                raise SourceError(f"{scope.start} cannot be crawled: {reason}.")
            else:
                crawl.skipped.append(SkippedItem(path=url, reason=reason))
        return admitted

    def _fetch_all(
        self, urls: list[str], by_url: dict[str, StoredDocument], crawl: _Crawl
    ) -> list[_Page]:
        def fetch(url: str) -> _Page:
            if time.monotonic() > crawl.deadline:  # RAGSPACE_WEB_MAX_SECONDS: a crawl ends
                limit = f"over the crawl time limit of {self._config.max_seconds:g} s"
                return _Page(url, unchanged=by_url.get(url), skip=limit)
            return self._within_budget(self._fetch(url, by_url.get(url)), crawl)

        with ThreadPoolExecutor(max_workers=self._config.concurrency) as pool:
            return list(pool.map(fetch, urls))

    def _within_budget(self, page: _Page, crawl: _Crawl) -> _Page:
        """The page, or a skip when its text is more than the crawl's budget has left: the
        pages of one crawl share one budget, as the files of one upload do."""
        if page.document is None or crawl.take_text(len(page.document.content.encode())):
            return page
        total = self._config.max_text_bytes
        reason = (
            f"not read: this crawl's pages together exceed {total:,} bytes of text "
            "(RAGSPACE_UPLOAD_TEXT_BUDGET_BYTES); narrow it with a path prefix, depth or "
            "page limit"
        )
        return _Page(page.url, skip=reason)

    def _fetch(self, url: str, previous: StoredDocument | None) -> _Page:
        headers = {}
        if previous is not None and previous.embedding_status != "error":
            if previous.metadata.get("etag"):
                headers["If-None-Match"] = str(previous.metadata["etag"])
            if previous.metadata.get("last_modified"):
                headers["If-Modified-Since"] = str(previous.metadata["last_modified"])
        try:
            response = self._get(url, headers)
        except SourceError as exc:  # the guard refused this address or a redirect target
            return _Page(url, skip=str(exc))
        except httpx.TooManyRedirects:
            limit = self._config.max_redirects
            return _Page(url, skip=f"more than {limit} redirects (a redirect loop?)")
        except httpx.InvalidURL as exc:
            return _Page(url, skip=f"not a valid web address ({exc})")
        except httpx.TimeoutException:
            reason = f"{_TRANSIENT} (no answer within {self._config.timeout_seconds:g} s)"
            return _Page(url, unchanged=previous, skip=reason)
        except httpx.HTTPError as exc:
            problem = network_problem(exc, host_of(url))
            return _Page(url, unchanged=previous, skip=f"{_TRANSIENT}: {problem}")
        if response is None:
            return _Page(url, skip=f"larger than {self._config.max_page_bytes:,} bytes")
        if response.status_code == 304 and previous is not None:
            return _Page(url, unchanged=previous, links=list(previous.metadata.get("links", [])))
        if response.status_code >= 500 or response.status_code == 429:
            return _Page(
                url, unchanged=previous, skip=f"{_TRANSIENT} (HTTP {response.status_code})"
            )
        if response.status_code != 200:
            return _Page(url, skip=f"HTTP {response.status_code}")
        return self._page(url, response)

    def _get(self, url: str, headers: dict[str, str] | None = None) -> httpx.Response | None:
        """GET `url`, reading at most max_page_bytes of its (decompressed) body: None when
        it is longer, so an endless or huge page, robots.txt or sitemap is never held whole."""
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

    def _page(self, url: str, response: httpx.Response) -> _Page:
        final = urldefrag(str(response.url))[0]
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind not in _HTML_TYPES:
            return _Page(url, skip=f"not an HTML page ({kind or 'no content type'})")
        if len(response.content) > self._config.max_page_bytes:
            return _Page(url, skip=f"larger than {self._config.max_page_bytes:,} bytes")
        html = response.text
        canonical, title, links = _parse_html(html, final)
        markdown, anchors = html_to_markdown(html)
        if not markdown.strip():
            return _Page(url, skip="no readable main content")
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
        return _Page(url, document=document, links=links)

    def _record(
        self, pages: list[_Page], crawl: _Crawl, scope: CrawlScope, first: bool
    ) -> list[str]:
        """Add fetched pages to the crawl (de-duplicated by canonical URL); next level's links."""
        links: list[str] = []
        for page in pages:
            if first and page.document is None and page.unchanged is None:
                raise SourceError(f"{scope.start} could not be crawled: {page.skip}.")
            if page.skip is not None:
                crawl.skipped.append(SkippedItem(path=page.url, reason=page.skip))
            key = (
                page.document.path
                if page.document
                else (page.unchanged.path if page.unchanged else None)
            )
            if key is None:
                continue
            if key in crawl.seen_pages:
                crawl.skipped.append(SkippedItem(path=page.url, reason=f"duplicate of {key}"))
                continue
            if page.document is not None and not scope.contains(key):
                crawl.skipped.append(
                    SkippedItem(
                        path=page.url, reason=f"redirects outside {scope.origin}{scope.prefix}"
                    )
                )
                continue
            crawl.seen_pages.add(key)
            if page.document is not None:
                crawl.documents.append(page.document)
            else:
                crawl.kept.append(key)
            links += page.links
        return links


def _parse_html(html: str, url: str) -> tuple[str, str, list[str]]:
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
