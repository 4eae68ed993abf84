"""Documentation sites: a polite, bounded crawl to markdown pages that keep heading anchors."""

import functools
import math
import re
import threading
import time
import urllib.robotparser
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from urllib.parse import urldefrag, urlsplit

import httpx

from ragspace.errors import SourceError
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
from ragspace.sources.site_map import robots_rules, sitemap_pages
from ragspace.sources.web_config import WebConfig
from ragspace.sources.web_pages import Page, PageReader

__all__ = ["CrawlScope", "WebConfig", "WebCrawler", "start_url"]

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

    kinds = (SourceKind.WEB,)

    def __init__(
        self, config: WebConfig, http: httpx.Client | None = None, guard: NetGuard | None = None
    ) -> None:
        self._config = config
        self._guard = guard or NetGuard(allow_private=config.allow_private_urls)
        self._pages = PageReader(
            config,
            http
            or guarded_client(
                self._guard,
                timeout=config.timeout_seconds,
                follow_redirects=True,
                max_redirects=config.max_redirects,
                headers={"User-Agent": config.user_agent},
            ),
        )

    def check(self, kind: SourceKind, location: str, options: WebOptions) -> None:  # noqa: ARG002
        """A location that is not an http(s) address is refused, not stored."""
        start_url(location)

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
        return self._crawl(location, options, previous, self._deadline())

    def _deadline(self) -> float:
        """When a crawl that starts now must end (RAGSPACE_WEB_MAX_SECONDS)."""
        return time.monotonic() + self._config.max_seconds

    def _crawl(
        self, location: str, options: WebOptions, previous: PreviousSync, deadline: float
    ) -> FetchResult:
        """The crawl of `fetch`, every request of it (robots.txt and sitemaps too) ending by
        `deadline`."""
        scope = self._scope(location, options)
        get = functools.partial(self._pages.get, until=deadline)
        robots = robots_rules(get, scope.origin)
        by_url = {
            str(d.metadata.get("fetched_url", d.path)): d for d in previous.documents.values()
        }
        crawl = _Crawl(deadline=deadline, text_left=self._config.max_text_bytes)
        frontier = [scope.start]
        seeds = sitemap_pages(get, scope.origin, robots) if scope.depth >= 1 else []
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
    ) -> list[Page]:
        def fetch(url: str) -> Page:
            if time.monotonic() > crawl.deadline:  # RAGSPACE_WEB_MAX_SECONDS: a crawl ends
                limit = f"over the crawl time limit of {self._config.max_seconds:g} s"
                return Page(url, unchanged=by_url.get(url), skip=limit)
            page = self._pages.read(url, by_url.get(url), until=crawl.deadline)
            return self._within_budget(page, crawl)

        with ThreadPoolExecutor(max_workers=self._config.concurrency) as pool:
            return list(pool.map(fetch, urls))

    def _within_budget(self, page: Page, crawl: _Crawl) -> Page:
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
        return Page(page.url, skip=reason)

    def _record(
        self, pages: list[Page], crawl: _Crawl, scope: CrawlScope, first: bool
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
