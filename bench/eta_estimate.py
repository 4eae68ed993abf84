"""The status tab's ETA (issue 67): how wrong is it when a quarter of the chunks are embedded?

Each SWE-QA checkout (pytest, sphinx, pylint) is read as `ragspace add folder` reads it (the
folder rules, the same documents in the same order, so the queue's order) and every document
is chunked by the real chunker, which gives each one's true chunk count. Then ingestion is
replayed: when the documents done so far hold 5 %, 25 % and 50 % of all the chunks, both
estimators are asked for the total:
- `before`: chunks per finished document times the documents still queued (main before
  issue 67, `status_view.overall_progress` at commit ab2fbc0);
- `after`: per kind (prose, code), the chunks per byte of the files chunked so far that were
  split in several chunks, times each queued file's bytes (at least one chunk), with the
  range of their densities (`ragspace/models/estimates.py`). It was chosen among 12 variants
  (per document or per byte, one density or one per kind, small files counted or not) on
  these same three checkouts: there is no held-out set here.
Embedding time grows with the chunks, so at a steady rate the ETA's error is the error of
the chunks still to embed: `error` = estimated remaining / true remaining - 1 (negative: too
optimistic). The replay measures the estimator alone; a timed ingestion adds the rate's own
noise (and on a loaded machine much of it): `--timed` ingests a checkout for real (an
embedded Postgres, the local model, one worker thread), reads the documents every second as
the status tab does, and compares the ETA shown at 25 % done (each estimator's chunks left
over the tab's measured rate) with the time the ingestion then really took.

Usage (from the repository root):
    python bench/eta_estimate.py [--checkouts pytest sphinx pylint] [--json FILE]
    python bench/eta_estimate.py --timed pytest [--json FILE]   # a real, timed ingestion
    python bench/eta_estimate.py --report   # the table docs/benchmarks.md shows
"""

import argparse
import datetime
import json
import os
import statistics
import tarfile
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app_harness import commit_id, default_eval_dir

from ragspace.actions.sources import classify_folder
from ragspace.models import Document, EmbeddingStatus
from ragspace.models.estimates import estimate_chunks
from ragspace.runtime import archive_limits, build_chunker
from ragspace.settings import load_settings
from ragspace.sources.filters import FileFilter
from ragspace.sources.folder import read_folder

RESULTS = Path(__file__).parent / "results" / "eta_estimate.json"
CHECKPOINTS = (0.05, 0.25, 0.50)
NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


@dataclass(frozen=True)
class Queued:
    """A document as the queue holds it: its text's size and (once chunked) its chunks."""

    path: str
    language: str
    text_bytes: int
    chunks: int


def queued_documents(archive: Path) -> list[Queued]:
    """The checkout's documents as adding the folder queues them, each chunked."""
    settings = load_settings(env_file=None)
    chunker = build_chunker(settings)
    limit = settings.limits.max_upload_bytes
    with tempfile.TemporaryDirectory(prefix="ragspace-eta-") as folder:
        with tarfile.open(archive) as tar:
            tar.extractall(folder, filter="data")
        [root] = [p for p in Path(folder).iterdir() if p.is_dir()]
        listing = read_folder(root, FileFilter([], [], limit))
        documents, _ = classify_folder(listing, limit, archive_limits(settings))
    return [
        Queued(
            d.path,
            d.language,
            len(d.content.encode()),
            len(chunker.split(d.content, d.language, d.path)),
        )
        for d in documents
        if not d.error_message
    ]


def _document(number: int, queued: Queued, done: bool) -> Document:
    return Document(
        id=number,
        docset_id=1,
        docset_name="bench",
        source_id=1,
        path=queued.path,
        title=queued.path,
        language=queued.language,
        content_hash=str(number),
        embedding_status=EmbeddingStatus.DONE if done else EmbeddingStatus.PENDING,
        error_message=None,
        chunk_count=queued.chunks if done else 0,
        created_at=NOW,
        updated_at=NOW,
        text_bytes=queued.text_bytes,
    )


def before_total(done: Sequence[Queued], pending: int) -> int:
    """Main's estimate before issue 67: chunks per finished document times those queued."""
    known = sum(q.chunks for q in done)
    return known + round(known / len(done) * pending)


def checkpoint(queue: Sequence[Queued], share: float) -> dict[str, Any]:
    """Both estimates when the documents done hold `share` of all the chunks."""
    total = sum(q.chunks for q in queue)
    running, count = 0, 0
    while running < share * total:
        running += queue[count].chunks
        count += 1
    done, rest = queue[:count], queue[count:]
    remaining = total - running
    estimate = estimate_chunks([_document(i, q, i < count) for i, q in enumerate(queue)])

    def error(estimated_total: int) -> float:
        return (estimated_total - running) / remaining - 1 if remaining else 0.0

    return {
        "share": share,
        "documents_done": count,
        "documents": len(queue),
        "chunks_done": running,
        "chunks_total": total,
        "before_total": before_total(done, len(rest)),
        "before_error": error(before_total(done, len(rest))),
        "after_total": estimate.expected,
        "after_range": [estimate.low, estimate.high],
        "after_error": error(estimate.expected),
        "after_range_error": [error(estimate.low), error(estimate.high)],
        "after_stable": estimate.stable,
        "in_range": estimate.low <= total <= estimate.high,
    }


def before_total_of(documents: Sequence[Document]) -> int:
    """Main's estimate before issue 67 on live documents: the chunks known (done, and those
    processing) plus chunks per finished document times the documents still queued."""
    done = [d for d in documents if d.embedding_status is EmbeddingStatus.DONE]
    known = sum(d.chunk_count for d in done) + sum(
        d.chunks_total for d in documents if d.embedding_status is EmbeddingStatus.PROCESSING
    )
    pending = sum(d.embedding_status is EmbeddingStatus.PENDING for d in documents)
    return known + (round(sum(d.chunk_count for d in done) / len(done) * pending) if done else 0)


def timed(name: str) -> dict[str, Any]:
    """A real ingestion of the checkout, the ETA of both estimators at 25 % done against the
    time it then took (seconds), and the load."""
    from ragspace.embedding.embedders import LocalEmbedder
    from ragspace.ingestion.worker import Ingestor, WorkerPool
    from ragspace.models.progress_report import embedding_rate
    from ragspace.runtime import build_actions
    from ragspace.store import Database, Store

    [archive] = (default_eval_dir() / "sweqa-dev").glob(f"{name}-*.tar.gz")
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="ragspace-eta-timed-") as folder:
        with tarfile.open(archive) as tar:
            tar.extractall(folder, filter="data")
        [root] = [p for p in Path(folder).iterdir() if p.is_dir()]
        settings = load_settings(env_file=None, data_dir=Path(folder) / "data")
        database = Database.open(settings)
        store = Store(database.pool)
        embedder = LocalEmbedder(batch_size=settings.embedding.local_embedding_batch_size)
        workers = WorkerPool(Ingestor(store, build_chunker(settings), embedder), 1, 0.2)
        actions = build_actions(settings, store, embedder, on_new_work=workers.wake)
        actions.docsets.create("bench")
        started = time.monotonic()
        actions.sources.add_folder("bench", root)
        workers.start()
        snapshots = []
        try:
            while True:
                documents = actions.documents.all("bench")
                now = datetime.datetime.now(datetime.UTC)
                estimate = estimate_chunks(documents)
                rate = embedding_rate(documents, now)
                snapshots.append(
                    (time.monotonic() - started, estimate, before_total_of(documents), rate)
                )
                if all(d.embedding_status.value in ("done", "error") for d in documents):
                    break
                time.sleep(1.0)  # a bench's poll, as the status tab's timer ticks
        finally:
            workers.stop()
            database.close()
    return _timed_row(archive.name.removesuffix(".tar.gz"), snapshots, load_before)


def _timed_row(checkout: str, snapshots: list[Any], load_before: float) -> dict[str, Any]:
    end, final = snapshots[-1][0], snapshots[-1][1]
    at, estimate, before, rate = next(
        s for s in snapshots if s[1].embedded >= 0.25 * final.expected and s[3]
    )
    actual = end - at
    after_eta = (estimate.expected - estimate.embedded) / rate
    before_eta = (before - estimate.embedded) / rate
    return {
        "checkout": checkout,
        "chunks_total": final.expected,
        "seconds_total": end,
        "at_seconds": at,
        "actual_left": actual,
        "before_eta": before_eta,
        "before_error": before_eta / actual - 1,
        "after_eta": after_eta,
        "after_range": [
            (estimate.low - estimate.embedded) / rate,
            (estimate.high - estimate.embedded) / rate,
        ],
        "after_error": after_eta / actual - 1,
        "after_stable": estimate.stable,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "commit": commit_id(),
    }


def run(checkouts: Sequence[str]) -> dict[str, Any]:
    eval_dir = default_eval_dir() / "sweqa-dev"
    rows = []
    for name in checkouts:
        [archive] = eval_dir.glob(f"{name}-*.tar.gz")
        queue = queued_documents(archive)
        for share in CHECKPOINTS:
            rows.append(
                {"checkout": archive.name.removesuffix(".tar.gz"), **checkpoint(queue, share)}
            )
            print(json.dumps(rows[-1]))
    return {
        "date": datetime.date.today().isoformat(),
        "commit": commit_id(),
        "load": os.getloadavg()[0],
        "rows": rows,
    }


def report(path: Path = RESULTS) -> str:
    """The results as docs/benchmarks.md shows them."""
    data = json.loads(path.read_text(encoding="utf-8"))
    lines = [
        "| checkout | done | documents done | chunks (true) | before: estimate, error "
        "| after: estimate (range), error | true total in range | after: ETA shown |",
        "|---|--:|--:|--:|--:|--:|:-:|:-:|",
    ]
    for row in data["rows"]:
        low, high = row["after_range"]
        lines.append(
            f"| {row['checkout']} | {row['share']:.0%} | {row['documents_done']:,} of "
            f"{row['documents']:,} | {row['chunks_total']:,} | {row['before_total']:,}, "
            f"{row['before_error']:+.0%} | {row['after_total']:,} ({low:,}-{high:,}), "
            f"{row['after_error']:+.0%} | {'yes' if row['in_range'] else 'no'} | "
            f"{'a range' if row['after_stable'] else 'estimating…'} |"
        )
    quarter = [row for row in data["rows"] if row["share"] == 0.25]
    median_before = statistics.median(abs(r["before_error"]) for r in quarter)
    median_after = statistics.median(abs(r["after_error"]) for r in quarter)
    lines += _timed_lines(data.get("timed", []))
    lines.append("")
    lines.append(
        f"Median absolute error of the ETA at 25 % done over the {len(quarter)} checkouts: "
        f"before {median_before:.0%}, after {median_after:.0%} (a steady embedding rate "
        f"assumed: the estimator's own error). {data['date']}, commit {data['commit']}, "
        f"load {data['load']:.1f} (the replay is not timed: load does not change it)."
    )
    return "\n".join(lines) + "\n"


def _timed_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The timed ingestions: the ETA shown at 25 % done against the time it then took."""
    if not rows:
        return []
    lines = [
        "",
        "Timed (a real ingestion, one worker thread, the local model; the rate as the tab "
        "measures it):",
        "",
        "| checkout | chunks | ingestion s | 25 % done at s | then took s | before: ETA s, "
        "error | after: ETA s (range), error | load before / after |",
        "|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for row in rows:
        low, high = row["after_range"]
        lines.append(
            f"| {row['checkout']} | {row['chunks_total']:,} | {row['seconds_total']:.0f} | "
            f"{row['at_seconds']:.0f} | {row['actual_left']:.0f} | {row['before_eta']:.0f}, "
            f"{row['before_error']:+.0%} | {row['after_eta']:.0f} ({low:.0f}-{high:.0f}), "
            f"{row['after_error']:+.0%} | {row['load_before']:.1f} / {row['load_after']:.1f} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkouts", nargs="+", default=["pytest", "sphinx", "pylint"])
    parser.add_argument("--json", type=Path, default=RESULTS, help="the results file")
    parser.add_argument("--report", action="store_true", help="print the table of --json")
    parser.add_argument("--timed", nargs="+", metavar="CHECKOUT", help="real, timed ingestions")
    args = parser.parse_args()
    if args.report:
        print(report(args.json))
        return
    if args.timed:  # added to the results file's replay
        data = json.loads(args.json.read_text(encoding="utf-8"))
        data["timed"] = [timed(name) for name in args.timed]
        args.json.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(report(args.json))
        return
    data = run(args.checkouts)
    args.json.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(report(args.json))


if __name__ == "__main__":
    main()
