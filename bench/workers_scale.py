"""Ingestion across processes: chunks/s with N `ragspace worker` processes on one database.

Run (from the repository root, on a quiet machine):
    python bench/workers_scale.py                          # flask checkout, 1 then 2 workers
    python bench/workers_scale.py --folder /tmp/pool/pylint --processes 1,2,4
    python bench/workers_scale.py --processes 1 --embedding-threads 2 --worker-threads 1,2
Smoke check that it works (a few files, results not kept):
    python bench/workers_scale.py --limit 8 --out /tmp/workers_scale.json

For each worker count, a fresh database on one embedded Postgres (standing in for Supabase:
the workers reach it through DATABASE_URL like any external server, each with its own data
folder) receives the same folder upload, with no worker running; then N `ragspace worker`
processes start and the clock runs until no job is queued or running. Each worker runs the
local model with `--embedding-threads` inference threads (default 1, so N workers model N
one-core machines; on one machine, N x threads should not exceed its cores) and
`--worker-threads` ingestion threads (`ragspace worker --threads`: with two, one thread writes
a document while the other's is embedded). Writes
`bench/results/workers_scale.json`: every run's documents, chunks, seconds and chunks/s, the
speed-up over one worker (chunks/s from the first job claimed to the last one done, so
model loading is left out; seconds from the workers' start are recorded too), the machine's
cores and its load average before and after.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from app_harness import commit_id

from ragspace.runtime import open_runtime
from ragspace.settings import load_settings
from ragspace.store.database import EmbeddedPostgres

ROOT = Path(__file__).resolve().parents[1]
POLL_SECONDS = 0.2
WATCH_SECONDS = 0.05  # how often this script looks at the jobs


def _database(server_uri: str, name: str) -> str:
    with psycopg.connect(server_uri, autocommit=True) as conn:
        conn.execute(f"create database {name}".encode())
    return server_uri.replace("/postgres?", f"/{name}?")


def _upload(url: str, folder: Path, limit: int | None, data_dir: Path) -> None:
    """The folder as a DocSet, stored and queued (migrations run here), no worker started."""
    settings = load_settings(
        env_file=None, database_url=url, data_dir=data_dir, openai_api_key=None
    )
    runtime = open_runtime(settings, worker_threads=0, load_models=False)
    try:
        runtime.actions.docsets.create("scale")
        if limit is None:
            runtime.actions.sources.add_folder("scale", folder)
        else:  # the first files only: a smoke run
            picked = Path(tempfile.mkdtemp(prefix="workers-scale-pick-", dir=data_dir))
            files = sorted(p for p in folder.rglob("*.py") if p.is_file())[:limit]
            for path in files:
                target = picked / path.relative_to(folder)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
            runtime.actions.sources.add_folder("scale", picked)
    finally:
        runtime.close()


def _open_jobs(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "select count(*) from ingestion_jobs where state in ('queued', 'running')"
        ).fetchone()
    return int(row[0]) if row else 0


def _claimed(url: str) -> bool:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "select exists (select 1 from ingestion_jobs where state <> 'queued' or attempts > 0)"
        ).fetchone()
    return bool(row and row[0])


def _totals(url: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "select count(*), coalesce(sum(chunk_count), 0),"
            " count(*) filter (where embedding_status = 'error') from documents"
        ).fetchone()
        owners = conn.execute(
            "select count(distinct split_part(lease_owner, ':', 2)) from ingestion_jobs"
            " where state = 'done'"
        ).fetchone()
    assert row is not None and owners is not None
    return {
        "documents": int(row[0]),
        "chunks": int(row[1]),
        "errors": int(row[2]),
        "processes_that_finished_jobs": int(owners[0]),
    }


def _start_workers(
    url: str, count: int, threads: int, worker_threads: int, home: Path
) -> list[subprocess.Popen[bytes]]:
    processes = []
    for number in range(count):
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "RAGSPACE_DATA_DIR": str(home / f"worker-{number}"),
            "RAGSPACE_LOCAL_EMBEDDING_THREADS": str(threads),
            "RAGSPACE_WORKER_POLL_SECONDS": str(POLL_SECONDS),
            "PYTHONPATH": str(ROOT),
        }
        env.pop("OPENAI_API_KEY", None)
        log = (home / f"worker-{number}.log").open("wb")
        processes.append(
            subprocess.Popen(
                [sys.executable, "-m", "ragspace_cli", "worker", "--threads", str(worker_threads)],
                env=env,
                cwd=home,
                stdout=log,
                stderr=log,
            )
        )
    return processes


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()


def run(
    server: str, count: int, worker_threads: int, args: argparse.Namespace, home: Path
) -> dict[str, Any]:
    """Upload into a fresh database, then time `count` workers until every job is done."""
    url = _database(server, f"scale_{count}_{worker_threads}_{int(time.time())}")
    _upload(url, args.folder, args.limit, home)
    started = time.monotonic()
    workers = _start_workers(url, count, args.embedding_threads, worker_threads, home)
    first_claim = None
    try:
        while _open_jobs(url):
            if first_claim is None and _claimed(url):
                first_claim = time.monotonic()
            if any(w.poll() is not None for w in workers):
                raise SystemExit(f"a worker exited; see its log in {home}")
            if time.monotonic() - started > args.timeout:
                raise SystemExit(f"{count} worker(s) did not finish in {args.timeout:.0f} s")
            time.sleep(WATCH_SECONDS)
        ended = time.monotonic()
    finally:
        _stop(workers)
    totals = _totals(url)
    # throughput from the first claim: model loading (about a second a process) is left out
    working = ended - (first_claim or started)
    result = {
        "processes": count,
        "worker_threads": worker_threads,
        "embedding_threads": args.embedding_threads,
        **totals,
    }
    result |= {
        "seconds_from_start": round(ended - started, 1),
        "seconds_from_first_claim": round(working, 1),
        "chunks_per_second": totals["chunks"] / working,
    }
    print(json.dumps(result), file=sys.stderr)
    return result


def main() -> None:
    """Time each worker count; write the results file."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=ROOT / "tests" / "data" / "checkout")
    parser.add_argument("--processes", default="1,2", help="worker counts to time, in order")
    parser.add_argument("--embedding-threads", type=int, default=1, help="per worker process")
    parser.add_argument(
        "--worker-threads", default="1", help="ingestion threads per process, each timed in order"
    )
    parser.add_argument("--limit", type=int, help="only the first N .py files (smoke)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per run")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "workers_scale.json"
    )
    args = parser.parse_args()
    counts = [int(value) for value in args.processes.split(",")]
    thread_counts = [int(value) for value in args.worker_threads.split(",")]
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="workers-scale-") as folder:
        home = Path(folder)
        server = EmbeddedPostgres(home / "server")
        uri = server.start()
        try:
            runs = [
                run(uri, count, threads, args, home)
                for count in counts
                for threads in thread_counts
            ]
        finally:
            server.stop()
    base = runs[0]["chunks_per_second"]  # the speed-up is over the first configuration
    for entry in runs:
        entry["speedup"] = round(entry["chunks_per_second"] / base, 2) if base else None
        entry["chunks_per_second"] = round(entry["chunks_per_second"], 1)
    report = {
        "command": "python bench/workers_scale.py " + " ".join(sys.argv[1:]),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": commit_id(),
        "cores": os.cpu_count(),
        "loadavg_before": load_before,
        "loadavg_after": os.getloadavg(),
        "folder": str(args.folder),
        "runs": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
