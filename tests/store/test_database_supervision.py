"""Supervision of the real embedded Postgres: killed servers come back, stops stay clean.

Each test runs its own embedded server (not the session one), because it kills it.
"""

import contextlib
import logging
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import psycopg
import pytest

from ragspace.errors import DatabaseUnavailableError
from ragspace.models import SearchQuery
from ragspace.runtime import Runtime, open_runtime
from ragspace.settings import load_settings
from ragspace.sources.files import UploadedFile
from ragspace.store.database import EmbeddedPostgres
from ragspace_ui.status_view import status_outputs
from tests.waiting import wait_for

pytestmark = pytest.mark.slow  # kills Postgres and apps, restarts them

ROOT = Path(__file__).resolve().parent.parent.parent
DOCUMENTS = 10


@pytest.fixture
def folder() -> Iterator[Path]:
    """A data folder outside tmp_path (the server may run as another user; see conftest)."""
    path = Path(tempfile.mkdtemp(prefix="ragspace-test-super-"))
    yield path
    _kill_postmaster(path / "pgdata")
    shutil.rmtree(path, ignore_errors=True)


def _postmaster_pid(pgdata: Path) -> int | None:
    try:
        return int((pgdata / "postmaster.pid").read_text().splitlines()[0])
    except (OSError, ValueError, IndexError):
        return None


def _kill_postmaster(pgdata: Path) -> None:
    """SIGKILL the server and its backends, and return once they are all gone: a backend
    outlives its postmaster for a moment and could still answer a query sent right after
    the kill (a search right after it once succeeded)."""
    pid = _postmaster_pid(pgdata)
    if pid is None:
        return
    try:
        postmaster = psutil.Process(pid)
        processes = [postmaster, *postmaster.children(recursive=True)]
    except psutil.NoSuchProcess:
        return
    for process in processes:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.send_signal(signal.SIGKILL)
    wait_for(lambda: all(map(_exited, processes)), "the killed Postgres processes to exit")


def _exited(process: psutil.Process) -> bool:
    """Gone, or a zombie no one has reaped yet (it can answer nothing either)."""
    try:
        return bool(process.status() == psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return True


def _document(number: int) -> UploadedFile:
    sections = [
        f"## Topic {number}.{part}\n\nThe harbour crane {number}-{part} lifts "
        f"{part * 7} containers per hour when the wind stays below {part + 10} knots. "
        "Maintenance crews inspect the cables every morning and log wear in the ledger.\n"
        for part in range(60)
    ]
    return UploadedFile(f"crane-{number}.md", f"# Crane {number}\n\n{''.join(sections)}".encode())


def _counts(runtime: Runtime) -> dict[str, int]:
    with runtime.database.pool.connection() as conn:
        rows = conn.execute(
            "select embedding_status, count(*) from documents group by embedding_status"
        ).fetchall()
    return {str(status): int(n) for status, n in rows}


def test_killed_server_is_restarted_and_ingestion_completes_exactly_once(
    folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = load_settings(
        env_file=None,
        data_dir=folder / "data",
        embedded_shared_buffers="128MB",
        embedding_batch_size=4,
        worker_poll_seconds=0.2,
        job_lease_seconds=30,
    )
    runtime = open_runtime(settings, worker_threads=1)
    try:
        service = runtime.actions
        service.docsets.create("cranes")
        service.sources.add_files("cranes", [_document(n) for n in range(DOCUMENTS)])
        wait_for(lambda: _counts(runtime).get("done", 0) >= 1, "the first document to finish")
        assert _counts(runtime).get("done", 0) < DOCUMENTS, "ingestion ended before the kill"

        caplog.clear()
        with caplog.at_level(logging.INFO):
            _kill_postmaster(runtime.settings.database.data_dir.resolve() / "pgdata")
            started = time.monotonic()
            with pytest.raises(DatabaseUnavailableError) as caught:
                service.search.hits(
                    SearchQuery(
                        question="How many containers does the crane lift?",
                        docsets=("cranes",),
                        floor=False,
                    )
                )
            # at once, not after a 30 s pool timeout
            assert time.monotonic() - started < settings.database.db_timeout_seconds
            assert "database is unavailable" in str(caught.value)
            assert "retrying" in str(caught.value)
            banner = status_outputs(service, None, None, None)[0]
            assert "Database unavailable" in banner and "retrying" in banner

            wait_for(lambda: runtime.database.restarts >= 1, "the supervisor to restart Postgres")
            wait_for(
                lambda: service.docsets.database_problem() is None, "the database to be reachable"
            )
            wait_for(
                lambda: _counts(runtime).get("done", 0) == DOCUMENTS,
                "every document to be ingested after the restart",
            )
        flood = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(flood) < 15, [r.getMessage() for r in flood]
        assert not any(r.exc_info for r in caplog.records), "stack traces were logged"

        with runtime.database.pool.connection() as conn:
            per_document = conn.execute(
                """
                select d.path, d.chunk_count, count(c.id),
                       count(distinct c.ordinal),
                       (select count(*) from ingestion_jobs j
                        where j.document_id = d.id and j.state = 'done')
                from documents d left join chunks c on c.document_id = d.id
                group by d.id
                """
            ).fetchall()
        assert len(per_document) == DOCUMENTS
        for path, chunk_count, stored, distinct, done_jobs in per_document:
            assert chunk_count > 0, path
            assert stored == chunk_count == distinct, f"{path}: duplicate or missing chunks"
            assert done_jobs == 1, f"{path} was ingested {done_jobs} times"
        hits = service.search.hits(
            SearchQuery(
                question="How many containers does the crane lift?",
                docsets=("cranes",),
                floor=False,
            )
        )
        assert hits, "search did not recover after the restart"
    finally:
        runtime.close()
    assert _wait_gone(folder / "data" / "pgdata"), "a clean stop left Postgres running"


def _wait_gone(pgdata: Path) -> bool:
    server = EmbeddedPostgres(pgdata.parent)
    end = time.monotonic() + 60
    while server.is_alive():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


_HOLDER = """
import sys, time
from pathlib import Path
from ragspace.store.database import EmbeddedPostgres
from ragspace_ui.status_view import status_outputs
print(EmbeddedPostgres(Path(sys.argv[1])).start(), flush=True)
time.sleep(600)
"""


def test_clean_stop_after_a_sigkilled_app_stops_postgres(folder: Path) -> None:
    crashed = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(folder)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert crashed.stdout is not None
    uri = crashed.stdout.readline().strip()  # the server is up once the URI is printed
    crashed.kill()  # SIGKILL: no atexit, its PID stays in pgserver's handle list
    crashed.wait()
    with psycopg.connect(uri) as conn:
        assert conn.execute("select 1").fetchone() == (1,), "the server died with the app"

    restarted = EmbeddedPostgres(folder)
    assert restarted.start() == uri
    restarted.stop()
    assert _wait_gone(folder / "pgdata"), "the dead app's PID kept Postgres running"


def test_stopping_a_server_that_died_first_is_not_an_error(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = EmbeddedPostgres(folder)
    server.start()
    _kill_postmaster(folder / "pgdata")
    # the moment between its death and psutil seeing it: pgserver asks pg_ctl to stop a
    # server that is gone, then signals a process that no longer exists
    monkeypatch.setattr(psutil.Process, "is_running", lambda _process: True)
    server.stop()  # the app closing while Postgres is down stops cleanly
    assert not server.is_alive()
