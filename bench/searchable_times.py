"""Time until an upload is keyword-searchable and until it has its vectors, per corpus.

Run: python bench/searchable_times.py [--repo tests/data/checkout] [--eval-dir ../shared/eval]
     [--corpora repo,codebase] [--workers 1] [--limit N] [--runs 3 --label after]
     python bench/searchable_times.py --report   # the table docs/benchmarks.md shows

With --label, the medians of the runs are written to bench/results/searchable_times.json
under that label (a row per label and corpus, replaced when measured again). To measure an
older commit with this script, put its checkout first on the path:
`PYTHONPATH=/tmp/old python bench/searchable_times.py ... --label before` (the row records
the commit of the code that ran).

For each corpus, in a throwaway embedded Postgres with the app's in-process workers:
upload it (a local checkout goes through `add_folder`, the codebase set through
`add_files`), then watch the documents until every one is searchable by keywords (its
keyword pass stored its chunks) and until every one has its vectors (full quality).
With the local model each new document gets the keyword pass first; with OpenAI it does not
(there, keyword-searchable = full quality). Formerly `two_tier.py` (the fast tier, removed in
issue 37).
"""

import argparse
import datetime
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from app_harness import commit_id, corpus_files, default_eval_dir

import ragspace
from ragspace.eval.evaluation import load_codebase
from ragspace.models import EmbeddingStatus, tier_counts
from ragspace.runtime import Runtime, open_runtime
from ragspace.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "searchable_times.json"

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


def _median(values: list[float | None]) -> float | None:
    """The median, or None when any run did not get there (a timeout is not a figure)."""
    if any(v is None for v in values):
        return None
    return statistics.median(v for v in values if v is not None)


def record(label: str, corpus: str, timings: list[Timing], args: argparse.Namespace) -> None:
    """Add (or replace) this label's row for the corpus in the results file."""
    results: dict[str, Any] = (
        json.loads(args.json.read_text(encoding="utf-8")) if args.json.exists() else {"rows": []}
    )
    code = Path(ragspace.__file__).resolve().parents[1]
    row = {
        "label": label,
        "corpus": corpus,
        "source": str(args.repo.name if corpus == "repo" else "codebase"),
        "documents": timings[0].documents,
        "chunks": timings[0].chunks,
        "workers": args.workers,
        "runs": [asdict(t) for t in timings],
        "upload_s": _median([t.upload_s for t in timings]),
        "all_searchable_s": _median([t.all_searchable_s for t in timings]),
        "full_quality_s": _median([t.full_quality_s for t in timings]),
        "commit": commit_id(code),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="minutes"),
        "command": "python bench/searchable_times.py " + " ".join(sys.argv[1:]),
        "load_before": args.load_before,
        "load_after": os.getloadavg()[0],
    }
    rows = [r for r in results["rows"] if (r["label"], r["corpus"]) != (label, corpus)]
    results["rows"] = [*rows, row]
    args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


def report(path: Path = RESULTS) -> str:
    """The results file as docs/benchmarks.md shows it: medians of the runs."""
    data = json.loads(path.read_text(encoding="utf-8"))
    lines = [
        "| build | corpus | documents | chunks | runs | upload s | all keyword-searchable s "
        "(after the upload) | from the command s | full quality s | commit | date (UTC) "
        "| load before / after |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for row in data["rows"]:
        searchable = row["all_searchable_s"]
        total = None if searchable is None else row["upload_s"] + searchable
        spread = ", ".join(_seconds(r["all_searchable_s"]) for r in row["runs"])
        lines.append(
            f"| {row['label']} | {row['source']} | {row['documents']:,} | {row['chunks']:,} "
            f"| {len(row['runs'])} | {row['upload_s']:.1f} | {_seconds(searchable)} ({spread}) "
            f"| {_seconds(total)} | {_seconds(row['full_quality_s'])} | `{row['commit']}` "
            f"| {row['date'].replace('T', ' ')[:16]} "
            f"| {row['load_before']:.2f} / {row['load_after']:.2f} |"
        )
    lines.append("")
    lines.append(
        "Commands: " + "; ".join(sorted({f"`{row['command']}`" for row in data["rows"]})) + "."
    )
    return "\n".join(lines) + "\n"


def main() -> None:
    """Time both milestones per corpus; print a table and (with --label) record the medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=ROOT / "tests" / "data" / "checkout")
    parser.add_argument("--eval-dir", type=Path, default=default_eval_dir())
    parser.add_argument("--corpora", default="repo,codebase", help="repo and/or codebase")
    parser.add_argument("--workers", type=int, default=1, help="in-process worker threads")
    parser.add_argument("--limit", type=int, help="only the first N codebase files (smoke)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per upload")
    parser.add_argument("--runs", type=int, default=1, help="uploads per corpus, each fresh")
    parser.add_argument("--label", help="record the medians under this label in --json")
    parser.add_argument("--json", type=Path, default=RESULTS, help="the results file")
    parser.add_argument("--report", action="store_true", help="print the table of --json")
    args = parser.parse_args()
    if args.report:
        print(report(args.json))
        return
    args.load_before = os.getloadavg()[0]
    timings = []
    for corpus in [c.strip() for c in args.corpora.split(",") if c.strip()]:
        if corpus not in ("repo", "codebase"):
            parser.error(f"unknown corpus {corpus!r}")
        runs = [measure(corpus, args) for _ in range(args.runs)]
        print_timings(runs)
        print()
        if args.label:
            record(args.label, corpus, runs, args)
        timings.extend(runs)
    print_timings(timings)


if __name__ == "__main__":
    main()
