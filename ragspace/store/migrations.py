"""Apply `supabase/migrations/*.sql` in order, once each, recorded in a table."""

import logging
import re
from dataclasses import dataclass
from pathlib import Path

import psycopg

from ragspace.errors import DatabaseError

log = logging.getLogger(__name__)

_FILE_NAME = re.compile(r"^(?P<version>\d{14})_(?P<name>[a-z0-9_]+)\.sql$")
# Any constant works; it only has to be the same in every RAGSpace process.
_ADVISORY_LOCK_KEY = 0x5241475350414345  # "RAGSPACE"


@dataclass(frozen=True)
class Migration:
    """One SQL file of `supabase/migrations/`."""

    version: str
    name: str
    path: Path


def discover(migrations_dir: Path) -> list[Migration]:
    """The migrations in `migrations_dir`, oldest first."""
    if not migrations_dir.is_dir():
        raise DatabaseError(f"Migrations folder not found: {migrations_dir}")
    found: list[Migration] = []
    for path in sorted(migrations_dir.glob("*.sql")):
        match = _FILE_NAME.match(path.name)
        if match is None:
            raise DatabaseError(
                f"Migration file {path.name!r} must be named <14-digit timestamp>_<name>.sql"
            )
        if found and found[-1].version == match["version"]:
            raise DatabaseError(
                f"Migrations {found[-1].path.name!r} and {path.name!r} share a version: "
                "the second would never be applied"
            )
        found.append(Migration(match["version"], match["name"], path))
    return found


def apply_migrations(
    conn: psycopg.Connection[tuple[object, ...]], migrations_dir: Path
) -> list[str]:
    """Apply every migration not yet recorded; return the versions applied now."""
    applied_now: list[str] = []
    conn.execute("select pg_advisory_lock(%s)", (_ADVISORY_LOCK_KEY,))
    try:
        conn.execute(
            "create table if not exists ragspace_migrations ("
            " version text primary key, name text not null,"
            " applied_at timestamptz not null default now())"
        )
        done = {row[0] for row in conn.execute("select version from ragspace_migrations")}
        for migration in discover(migrations_dir):
            if migration.version in done:
                continue
            _apply_one(conn, migration)
            applied_now.append(migration.version)
    finally:
        conn.execute("select pg_advisory_unlock(%s)", (_ADVISORY_LOCK_KEY,))
    return applied_now


def _apply_one(conn: psycopg.Connection[tuple[object, ...]], migration: Migration) -> None:
    log.info("Applying migration %s_%s", migration.version, migration.name)
    sql = migration.path.read_text(encoding="utf-8")
    try:
        with conn.transaction():
            # bytes, because a file is not a LiteralString; no parameters, so the
            # whole multi-statement script runs as one simple query
            conn.execute(sql.encode())
            conn.execute(
                "insert into ragspace_migrations (version, name) values (%s, %s)",
                (migration.version, migration.name),
            )
    except psycopg.Error as exc:
        raise DatabaseError(f"Migration {migration.path.name} failed: {exc}") from exc
