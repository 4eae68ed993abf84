"""llms.txt / llms-full.txt against page-by-page crawling, on the same fake documentation site.

Run: python bench/llms_txt.py [--runs 3] [--json bench/results/llms_txt.json]

The site is tests/fakes/llms_site.py (12 pages of a job scheduler's docs, each as HTML with
a sidebar and as markdown, plus llms.txt and llms-full.txt) served on 127.0.0.1. Each mode
adds it as a website source (/docs/, depth 2, 50 pages) to a DocSet of its own in a
throwaway embedded Postgres, embeds it with the local model, then asks one question per page
(each answered by exactly that page) with `search`:

- crawl: the plain WebCrawler (robots.txt, sitemap, links followed page by page);
- llms.txt: LlmsTxtCrawler on the site with llms.txt (its markdown pages fetched);
- llms-full.txt: LlmsTxtCrawler on the site with only llms-full.txt (one file, split).

Reported per mode: HTTP requests the site received, bytes it sent, fetch time (median of
--runs fetches, no storing), documents, chunks, and retrieval (hit@1, hit@3: the page's
document among the first 1 / 3 hits; MRR@3). On a local site the network costs nothing, so
the time mostly measures parsing: a real site's latency multiplies the request counts.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app_harness import commit_id  # noqa: E402

from ragspace.embedding.embedders import LocalEmbedder  # noqa: E402
from ragspace.ingestion.worker import Ingestor  # noqa: E402
from ragspace.models import SearchQuery, SourceKind, WebOptions  # noqa: E402
from ragspace.runtime import build_actions, build_chunker  # noqa: E402
from ragspace.settings import Settings, load_settings  # noqa: E402
from ragspace.sources.fetcher import PreviousSync  # noqa: E402
from ragspace.sources.github_client import GithubClient, GithubConfig  # noqa: E402
from ragspace.sources.github_fetcher import GithubFetcher  # noqa: E402
from ragspace.sources.llms_txt import LlmsTxtCrawler  # noqa: E402
from ragspace.sources.sync import SourceSyncer  # noqa: E402
from ragspace.sources.web import WebConfig, WebCrawler  # noqa: E402
from ragspace.store import Database, Store  # noqa: E402
from tests.fakes.docs_site import DocsSite  # noqa: E402
from tests.fakes.llms_site import PAGES, running_llms_site  # noqa: E402

OPTIONS = WebOptions(depth=2, max_pages=50, path_prefix="/docs/")
CONFIG = WebConfig(timeout_seconds=10, concurrency=4, allow_private_urls=True)
# mode -> (crawler, site serves llms.txt, site serves llms-full.txt)
MODES: dict[str, tuple[Callable[[], WebCrawler], bool, bool]] = {
    "crawl": (lambda: WebCrawler(CONFIG), True, True),
    "llms.txt": (lambda: LlmsTxtCrawler(CONFIG), True, False),
    "llms-full.txt": (lambda: LlmsTxtCrawler(CONFIG), False, True),
}


def sent_bytes(site: DocsSite) -> int:
    """Bytes of the bodies the site served (by path; a 404 counts its short page)."""
    return sum(
        len(site.routes.get(path, (0, {}, b"<h1>Not found</h1>"))[2]) for path in site.requests
    )


def fetch_times(mode: str, runs: int) -> tuple[float, int, int]:
    """Median fetch seconds, requests and bytes of one fetch."""
    make, llms, full = MODES[mode]
    times, requests, sent = [], 0, 0
    for _ in range(runs):
        with running_llms_site(llms, full) as site:
            started = time.perf_counter()
            make().fetch(SourceKind.WEB, f"{site.origin}/docs/", OPTIONS, PreviousSync())
            times.append(time.perf_counter() - started)
            requests, sent = len(site.requests), sent_bytes(site)
    return statistics.median(times), requests, sent


def ingest_and_ask(
    mode: str, store: Store, embedder: LocalEmbedder, settings: Settings
) -> dict[str, Any]:
    """The mode's DocSet ingested and queried: documents, chunks, hit@1, hit@3, MRR@3."""
    make, llms, full = MODES[mode]
    github = GithubFetcher(GithubClient(GithubConfig(api_url="http://127.0.0.1:9")), 10**6)
    actions = build_actions(settings, store, embedder, syncer=SourceSyncer(store, [github, make()]))
    name = mode.replace(".", "-")
    actions.docsets.create(name)
    with running_llms_site(llms, full) as site:
        actions.sources.add(name, SourceKind.WEB, f"{site.origin}/docs/", OPTIONS)
    Ingestor(store, build_chunker(settings), embedder).process_all()
    documents = actions.documents.all(name)
    ranks = []
    for slug, (_, _, question) in PAGES.items():
        hits = actions.search.hits(
            SearchQuery(question=question, docsets=(name,), limit=3, floor=False)
        )
        paths = [h.path.rsplit("/", 1)[-1].split(".")[0] for h in hits]
        ranks.append(paths.index(slug) + 1 if slug in paths else None)
    return {
        "documents": len(documents),
        "chunks": sum(d.chunk_count for d in documents),
        "hit_at_1": round(sum(r == 1 for r in ranks) / len(ranks), 3),
        "hit_at_3": round(sum(r is not None for r in ranks) / len(ranks), 3),
        "mrr_at_3": round(sum(1 / r for r in ranks if r) / len(ranks), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ragspace-bench-llms-"))
    settings = load_settings(env_file=None, data_dir=folder / "data", allow_private_urls=True)
    database = Database.open(settings)
    embedder = LocalEmbedder()
    modes: dict[str, Any] = {}
    try:
        store = Store(database.pool)
        for mode in MODES:
            seconds, requests, sent = fetch_times(mode, args.runs)
            modes[mode] = {
                "requests": requests,
                "bytes_served": sent,
                "fetch_seconds": round(seconds, 3),
            } | ingest_and_ask(mode, store, embedder, settings)
    finally:
        database.close()
        shutil.rmtree(folder, ignore_errors=True)
    result = {
        "benchmark": "llms_txt",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": commit_id(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cores": os.cpu_count(),
        "site": f"tests/fakes/llms_site.py: {len(PAGES)} pages, questions: one per page",
        "modes": modes,
    }
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
