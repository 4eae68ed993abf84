"""Time until an upload is keyword-searchable and until it has its vectors, per corpus.

Run: python bench/searchable_times.py [--repo tests/data/checkout] [--eval-dir ../shared/eval]
     [--corpora repo,codebase] [--workers 1] [--limit N]

For each corpus, in a throwaway embedded Postgres with the app's in-process workers:
upload it (a local checkout goes through `add_folder`, the codebase set through
`add_files`), then watch the documents until every one is searchable by keywords (its
keyword pass stored its chunks) and until every one has its vectors (full quality).
With the local model each new document gets the keyword pass first; with OpenAI it does not
(there, keyword-searchable = full quality). Formerly `two_tier.py` (the fast tier, removed in
issue 37).
"""

import argparse
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from app_harness import corpus_files, default_eval_dir

from ragspace.eval.evaluation import load_codebase
from ragspace.models import EmbeddingStatus, tier_counts
from ragspace.runtime import Runtime, open_runtime
from ragspace.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[1]

POLL_SECONDS = 0.25
FINAL = (EmbeddingStatus.DONE, EmbeddingStatus.ERROR)


@dataclass
class Timing:
    """What one upload measured (seconds from the end of the upload)."""

    corpus: str
    documents: int
    chunks: int
    upload_s: float
    first_searchable_s: float | None
    all_searchable_s: float | None
    full_quality_s: float | None
    errors: int


def _settings(data_dir: Path, workers: int) -> Settings:
    return load_settings(
        env_file=None,
        data_dir=data_dir,
        database_url=None,
        openai_api_key=None,
        worker_threads=workers,
    )


def _upload(runtime: Runtime, corpus: str, args: argparse.Namespace) -> None:
    actions = runtime.actions
    actions.docsets.create(corpus)
    if corpus == "repo":
        actions.sources.add_folder(corpus, args.repo)
    else:
        files = corpus_files(load_codebase(args.eval_dir / "codebase"))
        actions.sources.add_files(corpus, files[: args.limit] if args.limit else files)


def _watch(runtime: Runtime, corpus: str, started: float, timeout: float) -> dict[str, float]:
    """Poll the documents' tiers; the seconds at which each milestone was first seen."""
    seen: dict[str, float] = {}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        documents = runtime.actions.documents.all(corpus)
        counts = tier_counts(documents)
        errors = sum(d.embedding_status is EmbeddingStatus.ERROR for d in documents)
        now = time.monotonic() - started
        if counts["keywords"] and "first" not in seen:
            seen["first"] = now
        if counts["keywords"] + errors >= counts["documents"] and "all" not in seen:
            seen["all"] = now
        if all(d.embedding_status in FINAL for d in documents):
            seen["quality"] = now
            return seen
        time.sleep(POLL_SECONDS)
    return seen


def measure(corpus: str, args: argparse.Namespace) -> Timing:
    """Upload one corpus into a fresh database and time both milestones."""
    with tempfile.TemporaryDirectory(prefix="searchable-") as folder:
        runtime = open_runtime(_settings(Path(folder), args.workers))
        try:
            begun = time.monotonic()
            _upload(runtime, corpus, args)
            started = time.monotonic()
            seen = _watch(runtime, corpus, started, args.timeout)
            documents = runtime.actions.documents.all(corpus)
        finally:
            runtime.close()
    return Timing(
        corpus=corpus,
        documents=len(documents),
        chunks=sum(d.chunk_count for d in documents),
        upload_s=started - begun,
        first_searchable_s=seen.get("first"),
        all_searchable_s=seen.get("all"),
        full_quality_s=seen.get("quality"),
        errors=sum(d.embedding_status is EmbeddingStatus.ERROR for d in documents),
    )


def _seconds(value: float | None) -> str:
    return "timeout" if value is None else f"{value:.1f}"


def print_timings(timings: list[Timing]) -> None:
    """A markdown table of the milestones."""
    print(
        "| corpus | documents | chunks | upload s | first keyword-searchable s "
        "| all keyword-searchable s | full quality s | errors |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for t in timings:
        print(
            f"| {t.corpus} | {t.documents} | {t.chunks} | {t.upload_s:.1f} "
            f"| {_seconds(t.first_searchable_s)} | {_seconds(t.all_searchable_s)} "
            f"| {_seconds(t.full_quality_s)} | {t.errors} |"
        )


def main() -> None:
    """Time both milestones per corpus; print a table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=ROOT / "tests" / "data" / "checkout")
    parser.add_argument("--eval-dir", type=Path, default=default_eval_dir())
    parser.add_argument("--corpora", default="repo,codebase", help="repo and/or codebase")
    parser.add_argument("--workers", type=int, default=1, help="in-process worker threads")
    parser.add_argument("--limit", type=int, help="only the first N codebase files (smoke)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per upload")
    args = parser.parse_args()
    timings = []
    for corpus in [c.strip() for c in args.corpora.split(",") if c.strip()]:
        if corpus not in ("repo", "codebase"):
            parser.error(f"unknown corpus {corpus!r}")
        timings.append(measure(corpus, args))
        print_timings(timings[-1:])
        print()
    print_timings(timings)


if __name__ == "__main__":
    main()
