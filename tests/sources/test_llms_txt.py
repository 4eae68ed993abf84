"""Website sources whose site publishes llms.txt / llms-full.txt, against a local site."""

from collections.abc import Callable, Iterator

import pytest

from ragspace.models import SourceKind, StoredDocument, WebOptions
from ragspace.sources.fetcher import PreviousSync
from ragspace.sources.llms_txt import LlmsTxtCrawler, headings, links_of, sections
from ragspace.sources.netguard import NetGuard
from ragspace.sources.web import WebConfig
from tests.fakes.docs_site import DocsSite, running_site
from tests.fakes.llms_site import PAGES, running_llms_site

DOCS = WebOptions(depth=2, path_prefix="/docs/", max_pages=50)
Crawler = Callable[..., LlmsTxtCrawler]


@pytest.fixture
def site() -> Iterator[DocsSite]:
    """The lantern site, which publishes no llms files."""
    with running_site() as running:
        yield running


@pytest.fixture
def crawler() -> Crawler:
    """A crawler with the guard on but 127.0.0.1 trusted (the fake site lives there), so a
    redirect to `localhost` meets the SSRF guard as a private address would."""

    def make(**config: object) -> LlmsTxtCrawler:
        guard = NetGuard(trusted_hosts=frozenset({"127.0.0.1"}))
        return LlmsTxtCrawler(WebConfig(timeout_seconds=5, concurrency=2, **config), guard=guard)  # type: ignore[arg-type]

    return make


def test_links_and_sections_of_markdown() -> None:
    text = '# T\n\n- [A](a.md): x\n- [B](<https://h/b.md> "t")\n- [A again](a.md#top)\n'
    assert links_of(text, "https://h/docs/llms.txt") == ["https://h/docs/a.md", "https://h/b.md"]
    full = "intro\n# One\ntext\n```\n# not a heading\n```\n## Sub\n# Two\nmore\n"
    assert [h[2] for h in headings(full)] == ["One", "Sub", "Two"]
    assert sections(full) == [
        ("One", "# One\ntext\n```\n# not a heading\n```\n## Sub\n"),
        ("Two", "# Two\nmore\n"),
    ]


def test_llms_txt_pages_are_fetched_with_the_usual_rules(crawler: Crawler) -> None:
    with running_llms_site() as site:
        o = site.origin
        result = crawler().fetch(SourceKind.WEB, f"{o}/docs/", DOCS, PreviousSync())
        assert result.resolved == f"{o}/llms.txt"
        assert {d.path for d in result.documents} == {f"{o}/docs/{s}.md" for s in PAGES}
        reasons = {item.path: item.reason for item in result.skipped}
        assert reasons[f"{o}/private/runbook.md"] == "outside the path prefix /docs/"
        assert reasons["https://elsewhere.example/beacon.md"] == "on another site"
        assert reasons[f"{o}/blog/launch.md"] == "outside the path prefix /docs/"
        assert "Refused to fetch" in reasons[f"{o}/docs/moved.md"]  # the SSRF guard
        # markdown pages as they are: no HTML page fetched, no link followed, no sitemap
        assert not [r for r in site.requests if r.endswith(".html")]
        assert "/sitemap.xml" not in site.requests and "/docs/faq.md" in site.requests
        install = next(d for d in result.documents if d.path.endswith("/install.md"))
        assert install.title == "Installing Beacon" and install.language == "markdown"
        assert install.content.startswith("# Installing Beacon\n")
        assert install.metadata["cite"]["url"] == install.path
        assert [2 for line, anchor in install.metadata["anchors"] if anchor == "requirements"]


def test_robots_txt_applies_to_the_listed_pages(crawler: Crawler) -> None:
    with running_llms_site() as site:
        site.routes["/robots.txt"] = (200, {}, b"User-agent: *\nDisallow: /docs/secrets.md\n")
        o = site.origin
        result = crawler().fetch(SourceKind.WEB, f"{o}/", WebOptions(), PreviousSync())
        reasons = {item.path: item.reason for item in result.skipped}
        assert reasons[f"{o}/docs/secrets.md"] == "disallowed by robots.txt"
        assert "/docs/secrets.md" not in site.requests


def test_llms_full_txt_is_split_at_its_headings_in_one_request(crawler: Crawler) -> None:
    with running_llms_site(llms=False) as site:
        o = site.origin
        result = crawler().fetch(SourceKind.WEB, f"{o}/docs/", DOCS, PreviousSync())
        assert result.resolved == f"{o}/llms-full.txt"
        assert {d.path for d in result.documents} == {f"{o}/docs/{s}.html" for s in PAGES}
        assert site.requests == [
            "/robots.txt",
            "/docs/llms.txt",
            "/llms.txt",
            "/docs/llms-full.txt",
            "/llms-full.txt",
        ]
        cron = next(d for d in result.documents if d.path.endswith("/cron.html"))
        assert cron.title == "Cron schedules" and "IANA zone name" in cron.content
        assert "Retry policy" not in cron.content
        # a re-sync of the same file: every page unchanged
        stored = {d.path: _stored(d.path, d.content_hash) for d in result.documents}
        again = crawler().fetch(SourceKind.WEB, f"{o}/docs/", DOCS, PreviousSync(stored))
        assert again.documents == [] and len(again.unchanged_paths) == len(PAGES)


def test_caps_and_limits_hold(crawler: Crawler) -> None:
    with running_llms_site(llms=False) as site:
        o = site.origin
        few = crawler().fetch(SourceKind.WEB, f"{o}/docs/", WebOptions(max_pages=3), PreviousSync())
        assert len(few.documents) == 3
        assert sum("over the limit of 3 pages" in s.reason for s in few.skipped) == len(PAGES) - 3
        # an llms-full.txt over the page size cap is not read: the site is crawled instead
        small = crawler(max_page_bytes=2000).fetch(
            SourceKind.WEB, f"{o}/docs/", DOCS, PreviousSync()
        )
        assert small.resolved == f"{o}/docs/"
        assert {d.path for d in small.documents} >= {f"{o}/docs/install.html"}


def test_a_site_without_llms_files_is_crawled_page_by_page(
    crawler: Crawler, site: DocsSite
) -> None:
    # the lantern site answers 404 for both files
    o = site.origin
    result = crawler().fetch(SourceKind.WEB, f"{o}/docs/", DOCS, PreviousSync())
    assert result.resolved == f"{o}/docs/" and f"{o}/docs/faq.html" in {
        d.path for d in result.documents
    }


def test_a_catch_all_html_answer_is_not_taken_for_llms_txt(crawler: Crawler) -> None:
    with running_llms_site(llms=False, full=False) as site:
        html = {"Content-Type": "text/html"}
        site.routes["/llms.txt"] = (200, html, b"<html><body># Beacon [x](/docs/)</body></html>")
        o = site.origin
        result = crawler().fetch(SourceKind.WEB, f"{o}/docs/", DOCS, PreviousSync())
        assert result.resolved == f"{o}/docs/"


def test_the_preview_names_the_file(crawler: Crawler) -> None:
    with running_llms_site() as site:
        o = site.origin
        preview = crawler().preview(SourceKind.WEB, f"{o}/docs/", DOCS)
        assert preview.resolved == f"{o}/llms.txt" and len(preview.items) == len(PAGES)


def _stored(path: str, digest: str) -> StoredDocument:
    return StoredDocument(
        id=1, path=path, content_hash=digest, embedding_status="done", metadata={}
    )
