"""Two embedding tiers: time until searchable (fast tier) and until full quality, per corpus.

Run: python bench/two_tier.py [--repo tests/data/checkout] [--eval-dir ../shared/eval]
     [--corpora repo,codebase] [--workers 1] [--single-tier] [--quality] [--limit N]

For each corpus, in a throwaway embedded Postgres with the app's in-process workers:
upload it (a local checkout goes through `add_directory`, the codebase set through
`add_files`), then watch the documents until every one is searchable by vectors (fast
tier) and until every one has its quality vectors. `--single-tier` runs the same upload
with the fast tier off, for comparison (there, searchable = full quality). The static
table is loaded (or built, the first time: about a minute on 2 cores) into
`--static-dir` before the clock starts, as it is at the app's first start.

`--quality` also scores each tier's retrieval on both shared sets through `ragspace eval`
(`--tier fast` and `--tier quality` on one corpus DocSet that holds both vectors per
chunk), so quality and timing come from the same run on the same machine.
"""

import argparse
import json
import os
import sys
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
    tiers: str
    documents: int
    chunks: int
    upload_s: float
    first_searchable_s: float | None
    all_searchable_s: float | None
    full_quality_s: float | None
    errors: int


def _settings(data_dir: Path, static_dir: Path, fast: bool, workers: int) -> Settings:
    return load_settings(
        env_file=None,
        data_dir=data_dir,
        database_url=None,
        openai_api_key=None,
        fast_tier="on" if fast else "off",
        static_embedder_dir=static_dir,
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
        if counts["fast"] and "first" not in seen:
            seen["first"] = now
        if counts["fast"] + errors >= counts["documents"] and "all" not in seen:
            seen["all"] = now
        if all(d.embedding_status in FINAL for d in documents):
            seen["quality"] = now
            return seen
        time.sleep(POLL_SECONDS)
    return seen


def measure(corpus: str, fast: bool, args: argparse.Namespace) -> Timing:
    """Upload one corpus into a fresh database and time both milestones."""
    with tempfile.TemporaryDirectory(prefix="two-tier-") as folder:
        settings = _settings(Path(folder), args.static_dir, fast, args.workers)
        runtime = open_runtime(settings)
        try:
            if runtime.fast is not None:
                loading = time.monotonic()
                if runtime.fast.wait() is None:
                    raise SystemExit("the static table did not load; see the log")
                print(f"static table ready in {time.monotonic() - loading:.1f} s", file=sys.stderr)
            begun = time.monotonic()
            _upload(runtime, corpus, args)
            started = time.monotonic()
            seen = _watch(runtime, corpus, started, args.timeout)
            documents = runtime.actions.documents.all(corpus)
        finally:
            runtime.close()
    return Timing(
        corpus=corpus,
        tiers="fast + quality" if fast else "quality only",
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
        "| corpus | tiers | documents | chunks | upload s | first searchable s "
        "| all searchable s | full quality s | errors |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for t in timings:
        print(
            f"| {t.corpus} | {t.tiers} | {t.documents} | {t.chunks} | {t.upload_s:.1f} "
            f"| {_seconds(t.first_searchable_s)} | {_seconds(t.all_searchable_s)} "
            f"| {_seconds(t.full_quality_s)} | {t.errors} |"
        )


def tier_quality(args: argparse.Namespace) -> None:
    """Each tier's retrieval quality on both shared sets via `ragspace eval --tier`."""
    from ragspace_cli.main import main

    os.environ["RAGSPACE_FAST_TIER"] = "on"
    os.environ["RAGSPACE_STATIC_EMBEDDER_DIR"] = str(args.static_dir)
    os.environ.pop("OPENAI_API_KEY", None)
    sets = [str(args.eval_dir / "claude-docs"), str(args.eval_dir / "codebase")]
    data_dir = args.eval_data_dir or Path(tempfile.mkdtemp(prefix="two-tier-eval-"))
    rows = []
    for tier in ("fast", "quality", "best"):
        out = data_dir / f"eval-{tier}.json"
        command = ["eval", *sets, "--tier", tier, "--no-grade", "--modes", "vector,keyword,hybrid"]
        command += ["--data-dir", str(data_dir), "--json", str(out)]
        if args.eval_limit:
            command += ["--limit", str(args.eval_limit)]
        print("ragspace " + " ".join(command), file=sys.stderr)
        if main(command) != 0:
            raise SystemExit(f"ragspace eval --tier {tier} failed")
        for report in json.loads(out.read_text())["reports"]:
            for mode in report["modes"]:
                rows.append((report["dataset"], tier, mode))
    print("\n| set | tier | mode | chunk R@5 | chunk R@10 | file R@5 | p50 ms |")
    print("|---|---|---|---:|---:|---:|---:|")
    for dataset, tier, mode in rows:
        chunk, file = mode["chunk"], mode["file"]
        print(
            f"| {dataset} | {tier} | {mode['mode']} | {chunk['recall@5']:.3f} "
            f"| {chunk['recall@10']:.3f} | {file['recall@5']:.3f} | {mode['p50_ms']:.1f} |"
        )


def main() -> None:
    """Time both milestones per corpus (and optionally score each tier); print tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=ROOT / "tests" / "data" / "checkout")
    parser.add_argument("--eval-dir", type=Path, default=default_eval_dir())
    parser.add_argument("--corpora", default="repo,codebase", help="repo and/or codebase")
    parser.add_argument("--workers", type=int, default=1, help="in-process worker threads")
    parser.add_argument("--single-tier", action="store_true", help="also time fast tier off")
    parser.add_argument("--limit", type=int, help="only the first N codebase files (smoke)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per upload")
    parser.add_argument(
        "--static-dir",
        type=Path,
        default=load_settings(env_file=None).static_table_dir,
        help="the static table's folder (built there once if missing)",
    )
    parser.add_argument("--quality", action="store_true", help="also score each tier (eval)")
    parser.add_argument("--eval-limit", type=int, help="only the first N questions per set")
    parser.add_argument("--eval-data-dir", type=Path, help="keep the eval corpus DocSets here")
    args = parser.parse_args()
    timings = []
    for corpus in [c.strip() for c in args.corpora.split(",") if c.strip()]:
        if corpus not in ("repo", "codebase"):
            parser.error(f"unknown corpus {corpus!r}")
        for fast in (True, False) if args.single_tier else (True,):
            timings.append(measure(corpus, fast, args))
            print_timings(timings[-1:])
    print()
    print_timings(timings)
    if args.quality:
        tier_quality(args)


if __name__ == "__main__":
    main()
