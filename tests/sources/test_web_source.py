"""Documentation sites against a local site: robots, sitemap, depth, prefix, redirects, anchors."""

from collections.abc import Iterator

import pytest

from ragspace.actions import Actions
from ragspace.answering.citations import cite_hit
from ragspace.chunking.chunker import Chunker
from ragspace.embedding.embedders import Embedder
from ragspace.errors import SourceError
from ragspace.ingestion.worker import Ingestor
from ragspace.models import SearchQuery, SourceKind, WebOptions
from ragspace.runtime import build_actions, build_syncer
from ragspace.settings import load_settings
from ragspace.sources.extract import html_to_markdown
from ragspace.sources.github_client import GithubClient, GithubConfig
from ragspace.sources.github_fetcher import GithubFetcher
from ragspace.sources.sync import SourceSyncer
from ragspace.sources.web import WebConfig, WebCrawler
from ragspace.store import Store
from tests.fakes.docs_site import INDEX, DocsSite, page, running_site
from tests.fakes.embedders import RecordingEmbedder

DOCS = WebOptions(depth=2, path_prefix="/docs/", max_pages=50)


@pytest.fixture
def site() -> Iterator[DocsSite]:
    """The running documentation site."""
    with running_site() as running:
        yield running


@pytest.fixture
def counting(embedder: Embedder) -> RecordingEmbedder:
    """Counts embedding calls."""
    return RecordingEmbedder(embedder)


@pytest.fixture
def web_service(store: Store, counting: RecordingEmbedder) -> Actions:
    """The service with a real crawler (GitHub points nowhere and is unused)."""
    syncer = SourceSyncer(
        store,
        [
            GithubFetcher(GithubClient(GithubConfig(api_url="http://127.0.0.1:9")), 10**6),
            WebCrawler(WebConfig(timeout_seconds=5, concurrency=2, allow_private_urls=True)),
        ],
    )
    service = build_actions(load_settings(env_file=None), store, counting, syncer=syncer)  # type: ignore[arg-type]
    service.docsets.create("lantern")
    return service


def test_crawl_documents_skips_and_requests(web_service: Actions, site: DocsSite) -> None:
    o = site.origin
    report = web_service.sources.add("lantern", SourceKind.WEB, f"{o}/docs/", DOCS)
    paths = {d.path for d in web_service.documents.all("lantern")}
    assert paths == {
        f"{o}/docs/",
        f"{o}/docs/guide/install.html",
        f"{o}/docs/guide/configure.html",  # reached only through the /docs/old-configure redirect
        f"{o}/docs/guide/deep/tuning.html",  # depth 2
        f"{o}/docs/faq.html",  # linked from nowhere, listed in sitemap.xml
    }
    reasons = {item.path: item.reason for item in report.skipped}
    assert reasons == {
        "https://elsewhere.example/": "on another site",
        f"{o}/private/secret.html": "outside the path prefix /docs/",
        f"{o}/blog/news.html": "outside the path prefix /docs/",
        f"{o}/docs/print/install.html": f"duplicate of {o}/docs/guide/install.html",
        f"{o}/docs/missing.html": "HTTP 404",
        f"{o}/docs/manual.pdf": "not an HTML page (application/pdf)",
        f"{o}/docs/guide/deep/deeper/internals.html": "beyond depth 2",
    }
    assert site.requests.count("/robots.txt") == 1 and site.requests.count("/sitemap.xml") == 1
    assert sorted(site.requests) == sorted(
        [
            "/robots.txt",
            "/sitemap.xml",
            "/docs/",
            "/docs/guide/install.html",
            "/docs/old-configure",
            "/docs/guide/configure.html",
            "/docs/print/install.html",
            "/docs/manual.pdf",
            "/docs/missing.html",
            "/docs/faq.html",
            "/docs/guide/deep/tuning.html",
        ]
    )


def test_robots_txt_is_respected_without_a_prefix(web_service: Actions, site: DocsSite) -> None:
    report = web_service.sources.add(
        "lantern", SourceKind.WEB, f"{site.origin}/docs/", WebOptions(depth=1, max_pages=50)
    )
    reasons = {item.path: item.reason for item in report.skipped}
    assert reasons[f"{site.origin}/private/secret.html"] == "disallowed by robots.txt"
    assert "/private/secret.html" not in site.requests
    assert f"{site.origin}/blog/news.html" in {d.path for d in web_service.documents.all()}


def test_page_anchors_make_citation_links(
    web_service: Actions, store: Store, counting: RecordingEmbedder, site: DocsSite
) -> None:
    web_service.sources.add("lantern", SourceKind.WEB, f"{site.origin}/docs/", DOCS)
    Ingestor(store, Chunker(1200, 200, 0), counting).process_all()  # type: ignore[arg-type]
    hit = web_service.search.hits(
        SearchQuery(
            question="verify the archive checksum with sha256sum",
            docsets=("lantern",),
            limit=1,
            floor=False,
        )
    )[0]
    assert hit.path == f"{site.origin}/docs/guide/install.html"
    assert "sha256sum" in hit.content
    assert cite_hit(hit, 1).url == f"{site.origin}/docs/guide/install.html#step-2"
    faq = web_service.search.hits(
        SearchQuery(question="why is it called lantern", docsets=("lantern",), limit=1, floor=False)
    )[0]
    assert cite_hit(faq, 1).url == f"{site.origin}/docs/faq.html#faq"


def test_max_pages_caps_the_crawl(web_service: Actions, site: DocsSite) -> None:
    report = web_service.sources.add(
        "lantern", SourceKind.WEB, f"{site.origin}/docs/", DOCS.model_copy(update={"max_pages": 2})
    )
    assert len(web_service.documents.all("lantern")) == 2
    assert any(item.reason == "over the limit of 2 pages" for item in report.skipped)


def test_resync_uses_etags_reembeds_changed_pages_and_drops_deleted(
    web_service: Actions, store: Store, counting: RecordingEmbedder, site: DocsSite
) -> None:
    o = site.origin
    report = web_service.sources.add("lantern", SourceKind.WEB, f"{o}/docs/", DOCS)
    ingestor = Ingestor(store, Chunker(1200, 1000, 100), counting)  # type: ignore[arg-type]
    assert ingestor.process_all() == 5
    site.html(
        "/docs/faq.html",
        page("FAQ", "<h1 id='faq'>FAQ</h1><p>Lantern now also glows in the dark, on request.</p>"),
    )
    site.remove("/docs/guide/deep/tuning.html")
    site.not_modified.clear()
    resync = web_service.sources.resync(report.source_id)
    assert resync.changed == [f"{o}/docs/faq.html"]
    assert resync.removed == [f"{o}/docs/guide/deep/tuning.html"]
    assert set(site.not_modified) == {
        "/docs/",
        "/docs/guide/install.html",
        "/docs/guide/configure.html",
    }
    counting.calls.clear()
    assert ingestor.process_all() == 1 and len(counting.calls) == 1


def test_unreachable_start_page_is_a_clear_error(web_service: Actions, site: DocsSite) -> None:
    with pytest.raises(SourceError, match=r"/docs/nowhere\.html could not be crawled: HTTP 404"):
        web_service.sources.add("lantern", SourceKind.WEB, f"{site.origin}/docs/nowhere.html")
    [source] = web_service.sources.all("lantern")
    assert "HTTP 404" in (source.error_message or "")
    assert web_service.documents.all("lantern") == []


def test_preview_lists_pages_without_storing(web_service: Actions, site: DocsSite) -> None:
    preview = web_service.sources.preview(SourceKind.WEB, f"{site.origin}/docs/", DOCS)
    assert len(preview.items) == 5 and preview.total_bytes > 500
    assert preview.estimated_chunks >= 1
    assert preview.skipped_counts["HTTP 404"] == 1
    assert web_service.documents.all("lantern") == []


@pytest.mark.parametrize("location", ["ftp://example.com/docs", "mailto:a@example.com", "https://"])
def test_a_location_that_is_no_web_address_leaves_no_source_behind(
    web_service: Actions, location: str
) -> None:
    web_service.docsets.create("refused")
    with pytest.raises(SourceError) as refused:
        web_service.sources.add("refused", SourceKind.WEB, location)
    assert location in str(refused.value)
    assert web_service.sources.all("refused") == []


def test_a_page_or_sitemap_larger_than_the_cap_is_not_read_to_its_end(
    web_service: Actions, site: DocsSite
) -> None:
    flood = 64 * 1024 * 1024
    site.floods["/docs/flood.html"] = flood
    with pytest.raises(SourceError) as refused:
        web_service.sources.add("lantern", SourceKind.WEB, f"{site.origin}/docs/flood.html")
    assert "larger than 5,242,880 bytes" in str(refused.value)
    assert site.sent["/docs/flood.html"] < 16 * 1024 * 1024  # not the whole 64 MB

    site.floods["/sitemap.xml"] = flood
    site.floods["/robots.txt"] = flood
    report = web_service.sources.add("lantern", SourceKind.WEB, f"{site.origin}/docs/", DOCS)
    assert "docs/faq.html" not in " ".join(report.changed)  # found only through the sitemap
    assert site.sent["/sitemap.xml"] < 16 * 1024 * 1024
    assert site.sent["/robots.txt"] < 16 * 1024 * 1024


def test_a_crawl_counts_its_pages_text_against_the_upload_budget(
    store: Store, counting: RecordingEmbedder, site: DocsSite
) -> None:
    start_text, _ = html_to_markdown(INDEX.decode())
    budget = len(start_text.encode()) + 100  # the start page, and no other page of the site
    settings = load_settings(
        env_file=None,
        allow_private_urls=True,
        upload_text_budget_bytes=budget,
        web_concurrency=1,
    )
    service = build_actions(settings, store, counting, syncer=build_syncer(settings, store))
    service.docsets.create("lantern")
    o = site.origin
    report = service.sources.add("lantern", SourceKind.WEB, f"{o}/docs/", DOCS)
    assert [d.path for d in service.documents.all("lantern")] == [f"{o}/docs/"]
    over = [
        item.path for item in report.skipped if "RAGSPACE_UPLOAD_TEXT_BUDGET_BYTES" in item.reason
    ]
    assert f"{o}/docs/guide/install.html" in over and f"{o}/docs/faq.html" in over
    [reason] = {item.reason for item in report.skipped if item.path in over}
    assert f"together exceed {budget:,} bytes of text" in reason

    small = load_settings(env_file=None, allow_private_urls=True, upload_text_budget_bytes=10)
    crawler = build_actions(small, store, counting, syncer=build_syncer(small, store))
    with pytest.raises(SourceError) as refused:  # the start page alone is over the budget
        crawler.sources.add("lantern", SourceKind.WEB, f"{o}/docs/faq.html")
    assert "RAGSPACE_UPLOAD_TEXT_BUDGET_BYTES" in str(refused.value)
