"""Database supervision: health state, a fail-fast pool and a thread that restarts the server."""

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from ragspace.errors import DatabaseUnavailableError

log = logging.getLogger(__name__)

# SQLSTATEs meaning the server went away: connection exceptions and shutdowns
_GONE_STATES = ("08", "57P01", "57P02", "57P03")


class DatabaseHealth:
    """Whether the database is reachable; changes are logged once, not on every failure."""

    def __init__(self) -> None:
        self._up = threading.Event()
        self._up.set()
        self.wake = threading.Event()  # the supervisor checks at once when set
        self._reason = ""

    @property
    def available(self) -> bool:
        """True unless the last contact with the database failed."""
        return self._up.is_set()

    def problem(self) -> str | None:
        """A message for users while the database is down, else None."""
        return None if self.available else str(self.error())

    def error(self) -> DatabaseUnavailableError:
        """The error every request raises while the database is down."""
        return DatabaseUnavailableError()

    def mark_down(self, reason: str) -> None:
        """Record an outage (logged on the first failure only) and wake the supervisor."""
        if self._up.is_set():
            self._up.clear()
            log.warning("Database unavailable (%s); requests fail fast until it returns", reason)
        self._reason = reason
        self.wake.set()

    def mark_up(self) -> None:
        """Record that the database answers again."""
        if not self._up.is_set():
            log.warning("Database reachable again")
            self._up.set()

    def wait_until_up(self, timeout: float) -> bool:
        """Block until the database is back or the timeout passes."""
        return self._up.wait(timeout)


def is_connection_failure(exc: BaseException) -> bool:
    """True for errors that mean the server is unreachable rather than a bad query."""
    if isinstance(exc, PoolTimeout):
        return True
    if not isinstance(exc, psycopg.OperationalError):
        return False
    state = exc.sqlstate
    return state is None or state.startswith(_GONE_STATES)


class SupervisedPool(ConnectionPool[psycopg.Connection[Any]]):
    """A pool that refuses at once while the database is down and reports connection failures."""

    def __init__(self, conninfo: str, health: DatabaseHealth, **kwargs: Any) -> None:
        super().__init__(conninfo, **kwargs)
        self.health = health

    @contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection; DatabaseUnavailableError when the server cannot be reached."""
        if not self.health.available:
            raise self.health.error()
        try:
            with super().connection(timeout) as conn:
                yield conn
        except (psycopg.OperationalError, PoolTimeout) as exc:
            if not is_connection_failure(exc):
                raise
            self.health.mark_down(_first_line(exc))
            raise self.health.error() from exc


class Supervisor:
    """Watches the database; restarts the embedded server with backoff when it dies."""

    def __init__(
        self,
        pool: SupervisedPool,
        probe: Callable[[], None],
        restart: Callable[[], None] | None = None,
        is_alive: Callable[[], bool] | None = None,
        interval: float = 1.0,
        max_backoff: float = 15.0,
    ) -> None:
        self._pool = pool
        self._health = pool.health
        self._probe = probe
        self._restart = restart
        self._is_alive = is_alive
        self._interval = interval
        self._max_backoff = max_backoff
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="db-supervisor", daemon=True)
        self.restarts = 0
        self._attempts = 0

    def start(self) -> None:
        """Start watching."""
        self._thread.start()

    def stop(self) -> None:
        """Stop watching (before the server is stopped on purpose)."""
        self._stop.set()
        self._health.wake.set()
        if self._thread.is_alive():
            self._thread.join(60)

    def _run(self) -> None:
        backoff = self._interval
        while not self._stop.is_set():
            self._health.wake.clear()
            if self._healthy():
                backoff = self._interval
                self._health.wake.wait(self._interval)
                continue
            if self._recover():
                continue  # check the fresh server at once
            self._stop.wait(backoff)
            backoff = min(backoff * 2, self._max_backoff)

    def _healthy(self) -> bool:
        """Cheap while up (a process check); a real connection once something failed."""
        if self._is_alive is not None and not self._is_alive():
            self._health.mark_down("the embedded Postgres process is not running")
            return False
        if self._health.available:
            return True
        try:
            self._probe()
        except Exception as exc:
            self._health.mark_down(_first_line(exc))
            return False
        self._pool.check()  # drop connections that died with the old server
        self._health.mark_up()
        return True

    def _recover(self) -> bool:
        """Restart a dead embedded server; True when it was restarted."""
        if self._restart is None or (self._is_alive is not None and self._is_alive()):
            return False
        self._attempts += 1
        try:
            self._restart()
        except Exception as exc:
            # the first failure is worth a warning; the retries that follow are routine
            level = logging.WARNING if self._attempts == 1 else logging.INFO
            log.log(
                level, "Restarting the embedded Postgres failed, will retry: %s", _first_line(exc)
            )
            return False
        self._attempts = 0
        self.restarts += 1
        log.warning("Restarted the embedded Postgres (restart %d)", self.restarts)
        return True


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
