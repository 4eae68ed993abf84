"""The job queue side by side: `store/jobs.py` against procrastinate, on the real embedded Postgres.

Run: PYTHONPATH=. python bench/experiments/job_queue.py [--jobs 2000] [--rounds 3]

procrastinate is not a dependency of RAGSpace (issue 18 item 5 evaluated it; see
docs/architecture.md, "Job queue: procrastinate evaluated"). Install it to run this:
    pip install 'procrastinate==3.10.0'

One throwaway embedded server (a temporary folder, Unix socket only) holds both queues in
one database: RAGSpace's migrations and procrastinate's schema. Every worker is a separate
process running this file with `--worker old|new`:
- old: the app's `WorkerPool` (one thread) around a `JobQueue` claim -> work -> complete
  loop with heartbeats, over the app's own pool (`Database.open`), like `ragspace worker`;
- new: `procrastinate.App.run_worker` (concurrency 1) on a `PsycopgConnector`, with a
  worker heartbeat every second and a periodic task that re-queues stalled jobs (the
  recovery procrastinate documents; it does not do it by itself).
Both use a 3 s lease / stalled timeout, as tests/worker/test_worker_processes.py does.

Sections (each bounded; the script stops its workers and the server by itself):
1. throughput: --jobs trivial jobs through two worker processes of each queue, queues
   alternated for --rounds rounds; medians and the old/new ratio. "old" jobs include the
   document bookkeeping jobs.py always does (status, progress, an empty chunk swap);
   "new" is a no-op task, and "new+status" a task that writes the document's status at
   start and end, the least the status tab would need.
2. SIGKILL recovery: a job sleeping 8 s, its worker killed mid-job; seconds until the other
   worker finished it, and how many times it started and finished.
3. retries: a job failing twice then succeeding; a job failing always (final state, and
   whether the error text is stored where a user could see it).
4. connections dropped: every backend of the workers terminated, the server staying up;
   whether each queue's workers are still alive and still work.
5. database down: the server stopped for --outage-seconds and started again (what the app's
   supervisor does after a crash); the same question.
6. a late writer: a job re-queued as stalled and taken by a second worker; whether the
   first worker can still finish it (jobs.py refuses: tests/worker/test_ingestion.py checks it).
7. periodic: two procrastinate workers with a task every second; runs per timestamp.
"""

import argparse
import asyncio
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool

from ragspace.ingestion.worker import WorkerPool
from ragspace.settings import load_settings
from ragspace.store import ClaimedJob, Database, JobQueue, JobResult
from ragspace.store.database import EmbeddedPostgres

ROOT = Path(__file__).resolve().parents[2]  # the checkout
LEASE_SECONDS = 3.0
POLL_SECONDS = 0.2
SLOW_SECONDS = 8.0
MAX_ATTEMPTS = 3  # jobs.py counts runs; procrastinate's RetryStrategy counts retries (2)
INSTALL = "pip install 'procrastinate==3.10.0'"


def _procrastinate() -> Any:
    """The procrastinate package, imported only when this benchmark runs."""
    try:
        import procrastinate
    except ImportError:
        raise SystemExit(
            f"This benchmark needs procrastinate, not a RAGSpace dependency: {INSTALL}"
        ) from None
    return procrastinate


def _record(pool: ConnectionPool[Any], queue: str, key: str, event: str) -> None:
    with pool.connection() as conn:
        conn.execute(
            "insert into bench_runs (queue, key, pid, event) values (%s, %s, %s, %s)",
            (queue, key, os.getpid(), event),
        )


def _runs(conn: psycopg.Connection[Any], queue: str, key: str, event: str) -> int:
    row = conn.execute(
        "select count(*) from bench_runs where queue = %s and key = %s and event = %s",
        (queue, key, event),
    ).fetchone()
    return int(row[0]) if row else 0


# The old queue: jobs.py under the app's WorkerPool


class TrivialIngestor:
    """`Ingestor.process_next` with the chunking and embedding left out: the queue alone."""

    def __init__(self, pool: ConnectionPool[Any]) -> None:
        self._pool = pool
        self._jobs = JobQueue(pool)
        self._owner = f"bench:{os.getpid()}"

    def process_next(self) -> bool:
        """Claim the next job, do its (trivial, slow or failing) work, finish it."""
        self._jobs.reclaim_expired()
        job = self._jobs.claim(self._owner, LEASE_SECONDS, MAX_ATTEMPTS)
        if job is None:
            return False
        with self._heartbeat(job):
            try:
                self._work(job)
            except RuntimeError as exc:
                retry = 0.0 if job.attempts < job.max_attempts else None
                self._jobs.fail(job, f"Attempt {job.attempts} failed: {exc}", retry)
                return True
        empty = JobResult([], np.zeros((0, 384), np.float32), [], job.embedding_model, {}, 0)
        self._jobs.complete(job, empty)
        return True

    def _work(self, job: ClaimedJob) -> None:
        kind, _, key = job.path.partition(":")
        if kind == "slow":
            _record(self._pool, "old", key, "start")
            time.sleep(SLOW_SECONDS)
            _record(self._pool, "old", key, "finish")
        elif kind in ("flaky", "failing"):
            _record(self._pool, "old", key, "start")
            if kind == "failing" or job.attempts <= 2:
                raise RuntimeError("the embedding API answered 500")

    @contextlib.contextmanager
    def _heartbeat(self, job: ClaimedJob) -> Iterator[None]:
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(LEASE_SECONDS / 3):
                with contextlib.suppress(Exception):
                    self._jobs.heartbeat(job, LEASE_SECONDS)

        thread = threading.Thread(target=beat, daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()


def run_old_worker(dsn: str, data_dir: Path) -> None:
    """A `ragspace worker`-like process: WorkerPool(1 thread) until SIGTERM."""
    database = Database.open(load_settings(env_file=None, database_url=dsn, data_dir=data_dir))
    pool = WorkerPool(TrivialIngestor(database.pool), threads=1, idle_seconds=POLL_SECONDS)  # type: ignore[arg-type]
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    pool.start()
    print("Worker running", flush=True)
    stopped.wait()
    pool.stop()
    database.close()


# The new queue: procrastinate


def procrastinate_app(dsn: str, periodic: bool) -> Any:
    """A procrastinate App with the benchmark's tasks (the same in every process)."""
    procrastinate = _procrastinate()
    # both of procrastinate's connectors check a pooled connection before handing it out
    app = procrastinate.App(
        connector=procrastinate.PsycopgConnector(conninfo=dsn, min_size=1, max_size=4)
    )
    state: dict[str, ConnectionPool[Any]] = {}

    def pool() -> ConnectionPool[Any]:
        if "pool" not in state:
            state["pool"] = ConnectionPool(dsn, min_size=1, max_size=2, open=True)
        return state["pool"]

    @app.task(name="noop")
    def noop() -> None:
        return None

    @app.task(name="noop_status")
    def noop_status(document_id: int) -> None:
        with pool().connection() as conn:
            conn.execute(
                "update documents set embedding_status = 'processing', updated_at = now()"
                " where id = %s",
                (document_id,),
            )
            conn.execute(
                "update documents set embedding_status = 'done', updated_at = now() where id = %s",
                (document_id,),
            )

    @app.task(name="slow")
    def slow(key: str) -> None:
        _record(pool(), "new", key, "start")
        time.sleep(SLOW_SECONDS)
        _record(pool(), "new", key, "finish")

    retry = procrastinate.RetryStrategy(max_attempts=MAX_ATTEMPTS - 1)

    @app.task(name="flaky", retry=retry, pass_context=True)
    def flaky(context: Any, key: str) -> None:
        _record(pool(), "new", key, "start")
        if context.job.attempts < 2:
            raise RuntimeError("the embedding API answered 500")

    @app.task(name="failing", retry=retry)
    def failing(key: str) -> None:
        _record(pool(), "new", key, "start")
        raise RuntimeError("the embedding API answered 500")

    # procrastinate's documented recovery of jobs whose worker died: a periodic task
    @app.periodic(cron="* * * * * *", periodic_id="stalled")
    @app.task(name="retry_stalled", queueing_lock="retry_stalled")
    async def retry_stalled(timestamp: int) -> None:
        del timestamp  # every periodic task is given its scheduled time
        stalled = await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=LEASE_SECONDS)
        for job in stalled:
            await app.job_manager.retry_job(job)

    if periodic:

        @app.periodic(cron="* * * * * *", periodic_id="tick")
        @app.task(name="tick")
        def tick(timestamp: int) -> None:
            _record(pool(), "new", f"tick-{timestamp}", "start")

    return app


def run_new_worker(dsn: str, periodic: bool) -> None:
    """A procrastinate worker process until SIGTERM (its own signal handling)."""
    app = procrastinate_app(dsn, periodic)
    print("Worker running", flush=True)
    app.run_worker(
        concurrency=1,
        update_heartbeat_interval=1.0,
        stalled_worker_timeout=LEASE_SECONDS,
        fetch_job_polling_interval=POLL_SECONDS,
        install_signal_handlers=True,
    )
    print("Worker stopped", flush=True)


# The orchestration


@dataclass
class Bench:
    """The throwaway server, its database and the worker processes started on it."""

    dsn: str
    folder: Path
    processes: list[subprocess.Popen[bytes]]

    def start(self, kind: str, name: str, periodic: bool = False) -> subprocess.Popen[bytes]:
        """Start a worker process of the old or new queue."""
        args = [sys.executable, __file__, "--worker", kind, "--dsn", self.dsn]
        args += ["--data-dir", str(self.folder / name)] + (["--periodic"] if periodic else [])
        log = (self.folder / f"{name}.log").open("ab")
        env = {**os.environ, "PYTHONPATH": str(ROOT), "RAGSPACE_FAST_TIER": "off"}
        process = subprocess.Popen(args, env=env, stdout=log, stderr=log, cwd=self.folder)
        self.processes.append(process)
        return process

    def stop(self, process: subprocess.Popen[bytes]) -> None:
        """SIGTERM, then SIGKILL after 20 s."""
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows of one statement on the bench database."""
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            cursor = conn.execute(sql.encode(), params)
            return cursor.fetchall() if cursor.description else []

    def value(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        """The single value of one statement."""
        return self.query(sql, params)[0][0]


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> float:
    """Seconds until the condition held; raises after `timeout`."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.02)
    return time.monotonic() - started


def wait_ready(bench: Bench, names: list[str]) -> None:
    """Until each named worker printed that it runs (and procrastinate ones registered)."""
    logs = [bench.folder / f"{name}.log" for name in names]
    wait_for(
        lambda: all(p.exists() and "Worker running" in p.read_text() for p in logs),
        120,
        f"workers {names} to start",
    )
    time.sleep(1.0)  # procrastinate registers and LISTENs after the print


def new_docset(bench: Bench) -> int:
    """A DocSet of its own for each batch of documents."""
    return int(
        bench.value(
            "insert into docsets (name, embedding_model, embedding_dimensions)"
            " values (%s, 'bench/none', 384) returning id",
            (f"bench-{time.monotonic_ns()}",),
        )
    )


def enqueue_old(bench: Bench, paths: list[str]) -> None:
    """Pending documents with these paths; the documents' trigger queues one job each."""
    bench.query(
        "insert into documents (docset_id, path, content, content_hash)"
        " select %s, p, 'x', md5(p) from unnest(%s::text[]) p",
        (new_docset(bench), paths),
    )


def old_open(bench: Bench) -> int:
    return int(
        bench.value("select count(*) from ingestion_jobs where state in ('queued', 'running')")
    )


def new_open(bench: Bench, task: str) -> int:
    return int(
        bench.value(
            "select count(*) from procrastinate_jobs where task_name = %s"
            " and status in ('todo', 'doing')",
            (task,),
        )
    )


def throughput(bench: Bench, app: Any, jobs: int, rounds: int) -> dict[str, list[float]]:
    """Jobs per second, enqueue committed to the last job finished, queues alternated.

    Also counts runs: a job started more than once (a false stalled/lease expiry under
    load) would show as more runs than jobs.
    """
    rates: dict[str, list[float]] = {"old": [], "new": [], "new+status": []}
    for number in range(rounds):
        runs: dict[str, int] = {}
        enqueue_old(bench, [f"trivial:{number}-{i}" for i in range(jobs)])
        rates["old"].append(jobs / wait_for(lambda: old_open(bench) == 0, 600, "old jobs"))
        runs["old"] = int(
            bench.value(
                "select sum(j.attempts) from ingestion_jobs j join documents d"
                " on d.id = j.document_id where d.path like %s",
                (f"trivial:{number}-%",),
            )
        )
        for name, task, kwargs in (
            ("new", "noop", [{} for _ in range(jobs)]),
            (
                "new+status",
                "noop_status",
                [{"document_id": i} for i in status_documents(bench, jobs)],
            ),
        ):
            with app.open():
                ids = app.tasks[task].batch_defer(*kwargs)
            seconds = wait_for(lambda task=task: new_open(bench, task) == 0, 600, task)
            rates[name].append(jobs / seconds)
            runs[name] = int(
                bench.value(
                    "select count(*) from procrastinate_events"
                    " where type = 'started' and job_id = any(%s)",
                    (ids,),
                )
            )
        print(
            f"  round {number + 1}: "
            + ", ".join(f"{k} {v[-1]:,.0f} jobs/s ({runs[k]} runs)" for k, v in rates.items())
            + f", load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    return rates


def status_documents(bench: Bench, count: int) -> list[int]:
    """Ids of `count` documents (done, so the trigger queues nothing) for new+status."""
    docset = new_docset(bench)
    rows = bench.query(
        "insert into documents (docset_id, path, content, content_hash, embedding_status)"
        " select %s, 'p' || g, 'x', 'h' || g, 'done' from generate_series(1, %s) g returning id",
        (docset, count),
    )
    return [int(row[0]) for row in rows]


def kill_holder(bench: Bench, app: Any, workers: dict[str, list[Any]], queue: str) -> str:
    """Kill the worker holding a slow job; time until the other worker finished it."""
    key = f"kill-{queue}"
    if queue == "old":
        enqueue_old(bench, [f"slow:{key}"])
    else:
        with app.open():
            app.tasks["slow"].defer(key=key)

    def runs(event: str) -> int:
        with psycopg.connect(bench.dsn, autocommit=True) as conn:
            return _runs(conn, queue, key, event)

    wait_for(lambda: runs("start") == 1, 60, f"{queue} slow job to start")
    [(pid,)] = bench.query("select pid from bench_runs where key = %s", (key,))
    [victim] = [p for p in workers[queue] if p.pid == pid]
    time.sleep(1.0)  # well inside the job
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(10)
    killed = time.monotonic()
    wait_for(lambda: runs("finish") >= 1, 120, f"{queue} slow job to finish elsewhere")
    seconds = time.monotonic() - killed
    if queue == "old":
        state = bench.query(
            "select j.state, j.attempts from ingestion_jobs j join documents d"
            " on d.id = j.document_id where d.path = %s",
            (f"slow:{key}",),
        )
    else:
        wait_for(lambda: new_open(bench, "slow") == 0, 30, "the slow job to be recorded")
        state = bench.query(
            "select status::text, attempts from procrastinate_jobs where task_name = 'slow'"
        )
    workers[queue].remove(victim)
    workers[queue].append(bench.start(queue, f"{queue}-replacement"))
    return (
        f"finished {seconds:.1f} s after the kill (job runs {SLOW_SECONDS:.0f} s; "
        f"lease/stalled timeout {LEASE_SECONDS:.0f} s); started {runs('start')}x, "
        f"finished {runs('finish')}x; job row (state, attempts) {state}"
    )


def retries(bench: Bench, app: Any) -> dict[str, str]:
    """A job failing twice then succeeding; a job failing always: final states."""
    for kind in ("flaky", "failing"):
        enqueue_old(bench, [f"{kind}:{kind}-old"])
        with app.open():
            app.tasks[kind].defer(key=f"{kind}-new")
    wait_for(lambda: old_open(bench) == 0, 60, "old retries")
    wait_for(lambda: new_open(bench, "flaky") + new_open(bench, "failing") == 0, 60, "new")
    results: dict[str, str] = {}
    for kind in ("flaky", "failing"):
        [(state, attempts, error, status, message)] = bench.query(
            "select j.state, j.attempts, j.last_error, d.embedding_status, d.error_message"
            " from ingestion_jobs j join documents d on d.id = j.document_id where d.path = %s",
            (f"{kind}:{kind}-old",),
        )
        results[f"old {kind}"] = (
            f"job {state}, attempts {attempts}, last_error {error!r}; "
            f"document {status}, error_message {message!r}"
        )
        [(job_id, status, attempts)] = bench.query(
            "select id, status::text, attempts from procrastinate_jobs where task_name = %s",
            (kind,),
        )
        events = [
            row[0]
            for row in bench.query(
                "select type::text from procrastinate_events where job_id = %s order by id",
                (job_id,),
            )
        ]
        with psycopg.connect(bench.dsn, autocommit=True) as conn:
            runs = _runs(conn, "new", f"{kind}-new", "start")
        results[f"new {kind}"] = (
            f"job {status}, attempts {attempts}, runs {runs}; events {events}; "
            "no column holds the error text"
        )
    return results


def periodic(bench: Bench, seconds: float) -> str:
    """Two workers with a task every second: how often each timestamp ran."""
    workers = [bench.start("new", f"tick-{n}", periodic=True) for n in range(2)]
    try:
        wait_ready(bench, ["tick-0", "tick-1"])
        time.sleep(seconds)
    finally:
        for process in workers:
            bench.stop(process)
    rows = bench.query(
        "select key, count(*), count(distinct pid) from bench_runs"
        " where key like 'tick-%%' group by key order by key"
    )
    pids = bench.value("select count(distinct pid) from bench_runs where key like 'tick-%%'")
    counts = [int(count) for _, count, _ in rows]
    deferred = bench.value("select count(*) from procrastinate_jobs where task_name = 'tick'")
    return (
        f"{len(rows)} timestamps ran in {seconds:.0f} s; runs per timestamp: "
        f"min {min(counts, default=0)}, max {max(counts, default=0)}; "
        f"jobs deferred {deferred}; worker processes that ran ticks: {pids}"
    )


def still_working(
    bench: Bench, app: Any, workers: dict[str, list[Any]], what: str
) -> dict[str, str]:
    """Queue 20 trivial jobs per queue: are the workers alive, and do they run them?"""
    enqueue_old(bench, [f"trivial:{what}-{i}" for i in range(20)])
    with app.open():
        app.tasks["noop"].batch_defer(*({} for _ in range(20)))
    results: dict[str, str] = {}
    for queue, count in (
        ("old", lambda: old_open(bench)),
        ("new", lambda: new_open(bench, "noop")),
    ):
        try:
            seconds = wait_for(lambda count=count: count() == 0, 60, queue)
            done = f"the 20 jobs done {seconds:.1f} s after queueing"
        except TimeoutError:
            done = f"{count()} of 20 jobs still open after 60 s"
        alive = sum(1 for p in workers[queue] if p.poll() is None)
        results[queue] = f"{alive} of {len(workers[queue])} worker processes alive; {done}"
    return results


def drop_connections(bench: Bench, app: Any, workers: dict[str, list[Any]]) -> dict[str, str]:
    """Terminate every worker backend (the server stays up), then queue jobs."""
    terminated = bench.value(
        "select count(pg_terminate_backend(pid)) from pg_stat_activity"
        " where datname = current_database() and pid <> pg_backend_pid()"
        " and backend_type = 'client backend'"
    )
    time.sleep(3.0)
    results = still_working(bench, app, workers, "after-drop")
    return {queue: f"{terminated} backends terminated; {text}" for queue, text in results.items()}


def outage(
    bench: Bench, app: Any, workers: dict[str, list[Any]], server: EmbeddedPostgres, seconds: float
) -> dict[str, str]:
    """Stop the server (fast shutdown) for `seconds`, start it again, then queue jobs."""
    pid = server.postmaster_pid()
    assert pid is not None
    os.kill(pid, signal.SIGINT)  # fast shutdown: clients are disconnected, data is safe
    wait_for(lambda: not server.is_alive(), 60, "the server to stop")
    time.sleep(seconds)
    server.restart()
    wait_for(lambda: _reachable(bench.dsn), 60, "the server to accept connections")
    time.sleep(3.0)  # the app's supervisor probes after a failure; give both a moment
    return still_working(bench, app, workers, "after-outage")


def _reachable(dsn: str) -> bool:
    try:
        with psycopg.connect(dsn, connect_timeout=2):
            return True
    except psycopg.OperationalError:
        return False


def late_writer_old(bench: Bench) -> str:
    """The same with jobs.py: an expired lease reclaimed and claimed again."""
    enqueue_old(bench, ["trivial:fence"])
    with ConnectionPool(bench.dsn, min_size=1, max_size=2, configure=register_vector) as pool:
        jobs = JobQueue(pool)
        first = jobs.claim("first", 0.1, MAX_ATTEMPTS)
        time.sleep(0.3)  # the first worker stops heartbeating
        jobs.reclaim_expired()
        second = jobs.claim("second", LEASE_SECONDS, MAX_ATTEMPTS)
        assert first is not None and second is not None and first.id == second.id
        empty = JobResult([], np.zeros((0, 384), np.float32), [], first.embedding_model, {}, 0)
        late = "accepted" if jobs.complete(first, empty) else "refused"
        owner = "accepted" if jobs.complete(second, empty) else "refused"
    return f"the first worker's late finish was {late}; the second worker's finish was {owner}"


async def late_writer(app: Any) -> str:
    """procrastinate's stalled-job recovery, then the first worker's late finish."""
    procrastinate = _procrastinate()
    succeeded = procrastinate.jobs.Status.SUCCEEDED
    async with app.open_async():
        manager = app.job_manager
        first_worker, second_worker = (
            await manager.register_worker(),
            await manager.register_worker(),
        )
        job_id = await app.tasks["noop"].configure(queue="fence").defer_async()
        first = await manager.fetch_job(queues=["fence"], worker_id=first_worker)
        await manager.retry_job(first)  # what the recovery does once the heartbeat is stale
        second = await manager.fetch_job(queues=["fence"], worker_id=second_worker)
        assert first.id == second.id == job_id
        try:
            await manager.finish_job(first, succeeded, delete_job=False)
            late = "the first worker's late finish was accepted"
        except Exception as exc:  # what a fenced queue would do
            late = f"the first worker's late finish was refused ({type(exc).__name__})"
        status = await manager.get_job_status_async(job_id)
        try:
            await manager.finish_job(second, succeeded, delete_job=False)
            owner = "the second worker's finish was accepted"
        except Exception as exc:
            owner = f"the second worker's own finish then failed ({type(exc).__name__})"
    return f"{late} (status {status.value} while the second worker still runs it); {owner}"


def orchestrate(args: argparse.Namespace) -> None:
    """Start the server, run every section, stop everything."""
    procrastinate = _procrastinate()
    print(f"# {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, procrastinate {procrastinate.__version__}")
    print(f"# uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    folder = Path(tempfile.mkdtemp(prefix="ragspace-bench-queue-"))
    server = EmbeddedPostgres(folder / "pg")
    dsn = server.start()
    bench: Bench | None = None
    try:
        # migrations only: the benchmark's own queries use fresh connections, which the
        # dropped-connections section cannot leave broken
        Database.open(load_settings(env_file=None, database_url=dsn, data_dir=folder)).close()
        bench = Bench(dsn, folder, [])
        app = procrastinate_app(dsn, periodic=False)
        with app.open():
            app.schema_manager.apply_schema()
        bench.query(
            "create table bench_runs (queue text, key text, pid int, event text,"
            " at timestamptz default clock_timestamp())"
        )
        workers = {q: [bench.start(q, f"{q}-{n}") for n in range(2)] for q in ("old", "new")}
        wait_ready(bench, ["old-0", "old-1", "new-0", "new-1"])

        print(f"\n## 1. throughput: {args.jobs:,} trivial jobs, 2 worker processes each")
        rates = throughput(bench, app, args.jobs, args.rounds)
        medians = {k: statistics.median(v) for k, v in rates.items()}
        for name, median in medians.items():
            print(f"  median {name}: {median:,.0f} jobs/s")
        print(f"  ratio new/old: {medians['new'] / medians['old']:.2f}x,", end=" ")
        print(f"new+status/old: {medians['new+status'] / medians['old']:.2f}x")

        print("\n## 2. SIGKILL of the worker holding a job")
        for queue in ("old", "new"):
            print(f"  {queue}: {kill_holder(bench, app, workers, queue)}")
        wait_ready(bench, ["old-replacement", "new-replacement"])

        print("\n## 3. retries")
        for name, text in retries(bench, app).items():
            print(f"  {name}: {text}")

        print("\n## 4. every worker connection terminated")
        for queue, text in drop_connections(bench, app, workers).items():
            print(f"  {queue}: {text}")

        print(f"\n## 5. database down for {args.outage_seconds:.0f} s (fast shutdown, restart)")
        for queue, text in outage(bench, app, workers, server, args.outage_seconds).items():
            print(f"  {queue}: {text}")

        for process in [p for ps in workers.values() for p in ps]:
            bench.stop(process)
        print("\n## 6. a stalled job's first worker finishes it after a second worker took it")
        print(f"  new: {asyncio.run(late_writer(app))}")
        print(f"  old: {late_writer_old(bench)}")

        print("\n## 7. periodic task every second, two procrastinate workers")
        print(f"  {periodic(bench, args.periodic_seconds)}")
        print(
            f"# uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}"
        )
    finally:
        if bench is not None:
            for process in bench.processes:
                bench.stop(process)
        server.stop()
        if not args.keep:
            import shutil

            shutil.rmtree(folder, ignore_errors=True)
        else:
            print(f"# logs kept in {folder}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--jobs", type=int, default=2000, help="jobs per throughput round")
    parser.add_argument("--rounds", type=int, default=3, help="throughput rounds per queue")
    parser.add_argument("--periodic-seconds", type=float, default=8.0)
    parser.add_argument("--outage-seconds", type=float, default=5.0)
    parser.add_argument("--keep", action="store_true", help="keep the folder with worker logs")
    parser.add_argument("--worker", choices=["old", "new"], help=argparse.SUPPRESS)
    parser.add_argument("--dsn", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--periodic", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker == "old":
        run_old_worker(args.dsn, args.data_dir)
    elif args.worker == "new":
        run_new_worker(args.dsn, args.periodic)
    else:
        orchestrate(args)


if __name__ == "__main__":
    main()
