"""Sites that publish `llms.txt` / `llms-full.txt`: their list of pages instead of a crawl.

`llms.txt` (https://llmstxt.org) is a markdown file at a site's root (or its docs folder): a
title, a summary and lists of links to the pages that matter, usually their markdown
versions; `llms-full.txt` is the pages' text in one file. A website source whose site has one
takes its pages from it: the links of `llms.txt` are fetched as the crawl fetches pages (the
same guarded HTTP client, so the SSRF guard and the size caps apply, the same robots.txt,
same-site and path-prefix rules, page limit, text budget and conditional GETs) and no link is
followed further; without `llms.txt`, `llms-full.txt` is read in one request and split at its
headings into one document per page. A site without either is crawled page by page. The
preview and the sync report name the file (`resolved`).
"""

import functools
import re
import urllib.robotparser
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

import httpx

from ragspace.errors import SourceError
from ragspace.models import NewDocument, SkippedItem, SourceKind, WebOptions
from ragspace.sources.extract import slugify
from ragspace.sources.fetcher import FetchResult, PreviousSync
from ragspace.sources.secret_scan import REDACTED_LINES, redact_secrets
from ragspace.sources.site_map import robots_rules

# the crawl's own record of budgets: this crawler is the web crawler, extended
from ragspace.sources.web import CrawlScope, WebCrawler, _Crawl
from ragspace.sources.web_pages import Page, PageReader
from ragspace.text.hashing import content_hash

LLMS = "llms.txt"
LLMS_FULL = "llms-full.txt"
MARKDOWN_TYPES = ("text/markdown", "text/x-markdown", "text/plain")
_LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SOURCE_LINE = re.compile(r"^\s*(?:Source|URL):\s*(https?://\S+)\s*$", re.IGNORECASE)


def candidates(scope: CrawlScope) -> list[str]:
    """Where the files may be: the start page's folder first, then the site's root."""
    folder = urljoin(scope.start, ".")
    places = [folder, scope.origin + "/"] if folder != scope.origin + "/" else [folder]
    return [urljoin(place, name) for name in (LLMS, LLMS_FULL) for place in places]


def links_of(text: str, base: str) -> list[str]:
    """The http(s) links of a markdown text, absolute, without fragments, each once."""
    found: list[str] = []
    for match in _LINK.finditer(text):
        link = urldefrag(urljoin(base, match.group(1)))[0]
        if urlsplit(link).scheme in ("http", "https") and link not in found:
            found.append(link)
    return found


def headings(text: str) -> list[tuple[int, int, str]]:
    """(line number, level, title) of the markdown headings outside fenced code."""
    found: list[tuple[int, int, str]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line)):
            found.append((number, len(match.group(1)), match.group(2).strip()))
    return found


def anchors_of(text: str) -> list[list[Any]]:
    """[line, anchor] of each heading, as HTML pages record theirs for citation links."""
    return [[number, slugify(title)] for number, _, title in headings(text)]


def sections(text: str) -> list[tuple[str, str]]:
    """(title, text) of each page of an llms-full.txt: cut at its top heading level that
    occurs more than once (one heading per page); text before the first is dropped."""
    found = headings(text)
    levels = sorted({level for _, level, _ in found})
    level = next((lv for lv in levels if sum(h[1] == lv for h in found) > 1), None)
    if level is None:
        return [(found[0][2] if found else LLMS_FULL, text)] if text.strip() else []
    lines = text.splitlines(keepends=True)
    starts = [(number, title) for number, lv, title in found if lv == level]
    ends = [number - 1 for number, _ in starts[1:]] + [len(lines)]
    return [
        (title, "".join(lines[start - 1 : end]))
        for (start, title), end in zip(starts, ends, strict=True)
    ]


def is_llms_file(response: httpx.Response | None, url: str) -> bool:
    """A 200 answer that is markdown text, not a site's catch-all HTML page."""
    if response is None or response.status_code != 200:
        return False
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in MARKDOWN_TYPES and kind != "application/octet-stream":
        return False
    text = response.text.lstrip("\ufeff").lstrip()
    if url.endswith(LLMS_FULL):
        return bool(headings(text))
    return text.startswith("# ") and bool(_LINK.search(text))


class MarkdownPageReader(PageReader):
    """The crawl's page reader, keeping a markdown page (what llms.txt links to) as it is."""

    def _page(self, url: str, response: httpx.Response) -> Page:
        """A markdown page as it is (a page llms.txt links to); HTML as the crawl reads it."""
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind not in MARKDOWN_TYPES:
            return super()._page(url, response)
        final = urldefrag(str(response.url))[0]
        facts = {
            "fetched_url": url,
            "etag": response.headers.get("etag"),
            "last_modified": response.headers.get("last-modified"),
            "links": [],
        }
        document = markdown_document(final, response.text, facts)
        if document is None:
            return Page(url, skip="no readable main content")
        return Page(url, document=document)


class LlmsTxtCrawler(WebCrawler):
    """The web crawler, taking a site's pages from its llms.txt or llms-full.txt when it
    publishes one (`use_llms_txt=False`: always page by page)."""

    def __init__(self, *args: Any, use_llms_txt: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._use_llms_txt = use_llms_txt
        # the same guarded client, reading markdown pages as they are
        self._pages = MarkdownPageReader(self._config, self._pages.http)

    def fetch(
        self,
        kind: SourceKind,  # noqa: ARG002 - always web, as the web crawler's
        location: str,
        options: WebOptions,
        previous: PreviousSync,
    ) -> FetchResult:
        """Pages listed by llms.txt (or split from llms-full.txt); else the usual crawl.
        Every request, the crawl's too, ends by one deadline (RAGSPACE_WEB_MAX_SECONDS)."""
        deadline = self._deadline()
        if self._use_llms_txt:
            scope = self._scope(location, options)
            robots = robots_rules(functools.partial(self._pages.get, until=deadline), scope.origin)
            for url in candidates(scope):
                response = self._try(url, robots, deadline)
                if response is None:
                    continue
                if url.endswith(LLMS_FULL):
                    result = self._from_full(url, response.text, scope, previous)
                else:
                    result = self._from_list(url, response.text, scope, robots, previous, deadline)
                if result.documents or result.unchanged_paths:
                    return result
        return self._crawl(location, options, previous, deadline)

    def _try(
        self, url: str, robots: urllib.robotparser.RobotFileParser, deadline: float
    ) -> httpx.Response | None:
        """The file at url when robots.txt allows it and it is one (None otherwise)."""
        if not robots.can_fetch(self._config.user_agent, url):
            return None
        try:
            response = self._pages.get(url, until=deadline)
        except (httpx.HTTPError, httpx.InvalidURL, SourceError):
            return None
        return response if is_llms_file(response, url) else None

    def _from_list(
        self,
        url: str,
        text: str,
        scope: CrawlScope,
        robots: urllib.robotparser.RobotFileParser,
        previous: PreviousSync,
        deadline: float,
    ) -> FetchResult:
        """The pages llms.txt links to, fetched as crawled pages are, no link followed."""
        by_url = {
            str(d.metadata.get("fetched_url", d.path)): d for d in previous.documents.values()
        }
        crawl = _Crawl(deadline=deadline, text_left=self._config.max_text_bytes)
        level = self._admit(links_of(text, url), scope, robots, crawl, depth=1)
        pages = self._fetch_all(level, by_url, crawl)
        self._record(pages, crawl, scope, first=False)
        state = {"start_url": scope.start, "llms_txt": url, "pages": crawl.pages}
        return FetchResult(crawl.documents, crawl.kept, crawl.skipped, state, url)

    def _from_full(
        self, url: str, text: str, scope: CrawlScope, previous: PreviousSync
    ) -> FetchResult:
        """llms-full.txt split at its headings: one document per page, within the caps."""
        documents: list[NewDocument] = []
        unchanged: list[str] = []
        skipped: list[SkippedItem] = []
        seen: set[str] = set()
        text_left = self._config.max_text_bytes
        for title, body in sections(text.lstrip("\ufeff")):
            path = _section_path(url, title, body, seen)
            size = len(body.encode())
            if not scope.contains(path):
                reason = f"outside {scope.origin}{scope.prefix}"
            elif len(documents) + len(unchanged) >= scope.max_pages:
                reason = f"over the limit of {scope.max_pages} pages"
            elif size > text_left:
                reason = f"over this crawl's text budget of {self._config.max_text_bytes:,} bytes"
            else:
                reason = None
            if reason is not None:
                skipped.append(SkippedItem(path=path, reason=reason))
                continue
            seen.add(path)
            text_left -= size
            document = markdown_document(path, body, {"fetched_url": url, "title": title})
            if document is None:
                continue
            stored = previous.documents.get(path)
            if stored is not None and stored.content_hash == document.content_hash:
                unchanged.append(path)
            else:
                documents.append(document)
        state = {"start_url": scope.start, "llms_full_txt": url, "pages": len(seen)}
        return FetchResult(documents, unchanged, skipped, state, url)


def _section_path(url: str, title: str, body: str, seen: set[str]) -> str:
    """A page's address: the `Source:` line under its heading, else the file's URL with the
    heading's anchor (numbered when repeated)."""
    for line in body.splitlines()[1:4]:
        if match := _SOURCE_LINE.match(line):
            return urldefrag(match.group(1))[0]
    anchor = slugify(title) or "section"
    path, number = f"{url}#{anchor}", 1
    while path in seen:
        path, number = f"{url}#{anchor}-{number}", number + 1
    return path


def markdown_document(path: str, text: str, metadata: dict[str, Any]) -> NewDocument | None:
    """A markdown page as a document (None when it holds no text), secrets redacted."""
    text = text.replace("\r\n", "\n").lstrip("\ufeff").strip() + "\n"
    if not text.strip():
        return None
    found = headings(text)
    title = str(metadata.pop("title", "") or (found[0][2] if found else path))
    text, redactions = redact_secrets(text)
    meta: dict[str, Any] = {"cite": {"source": "web", "url": path}, "anchors": anchors_of(text)}
    if redactions:
        meta[REDACTED_LINES] = [[r.line, r.reason] for r in redactions]
    return NewDocument(
        path=path,
        title=title,
        language="markdown",
        content=text,
        content_hash=content_hash(text),
        metadata=meta | metadata,
    )
