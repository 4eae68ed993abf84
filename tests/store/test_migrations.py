"""Migrations run in order, once, on the real embedded Postgres."""

from pathlib import Path

import psycopg
import pytest

from ragspace.errors import DatabaseError
from ragspace.settings import PROJECT_ROOT
from ragspace.store.migrations import apply_migrations, discover

MIGRATIONS = PROJECT_ROOT / "supabase" / "migrations"


def test_fresh_database_gets_every_migration_once(empty_database_url: str) -> None:
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        first = apply_migrations(conn, MIGRATIONS)
        second = apply_migrations(conn, MIGRATIONS)
        recorded = [row[0] for row in conn.execute("select version from ragspace_migrations")]
        tables = {
            row[0]
            for row in conn.execute(
                "select table_name from information_schema.tables where table_schema = 'public'"
            )
        }
        indexes = {
            row[0]
            for row in conn.execute("select indexname from pg_indexes where tablename = 'chunks'")
        }
        vector = conn.execute(
            "select extversion from pg_extension where extname = 'vector'"
        ).fetchone()
    assert first == [m.version for m in discover(MIGRATIONS)]
    assert second == []
    assert recorded == first
    assert {"docsets", "sources", "documents", "chunks", "ragspace_migrations"} <= tables
    assert {"chunks_embedding_384_idx", "chunks_embedding_1536_idx", "chunks_fts_idx"} <= indexes
    assert vector is not None


def test_new_migration_is_applied_after_existing_ones(
    empty_database_url: str, tmp_path: Path
) -> None:
    for migration in discover(MIGRATIONS):
        (tmp_path / migration.path.name).write_text(migration.path.read_text())
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        apply_migrations(conn, tmp_path)
        (tmp_path / "29990101000000_add_note.sql").write_text(
            "alter table docsets add column if not exists note text;"
        )
        assert apply_migrations(conn, tmp_path) == ["29990101000000"]
        conn.execute("select note from docsets")


def test_failed_migration_is_not_recorded(empty_database_url: str, tmp_path: Path) -> None:
    (tmp_path / "20000101000000_broken.sql").write_text("create table ok (id int); select nope;")
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        with pytest.raises(DatabaseError, match=r"20000101000000_broken\.sql"):
            apply_migrations(conn, tmp_path)
        recorded = conn.execute("select count(*) from ragspace_migrations").fetchone()
        table = conn.execute("select to_regclass('ok')").fetchone()
    assert recorded == (0,)
    assert table == (None,)  # the whole file rolled back


def test_badly_named_migration_is_refused(tmp_path: Path) -> None:
    (tmp_path / "add_stuff.sql").write_text("select 1;")
    with pytest.raises(DatabaseError, match=r"add_stuff\.sql"):
        discover(tmp_path)


def test_two_migrations_of_one_version_are_refused(tmp_path: Path) -> None:
    # the applied set is keyed by version: the second file would silently never run
    (tmp_path / "20260101000000_first.sql").write_text("select 1;")
    (tmp_path / "20260101000000_second.sql").write_text("select 2;")
    with pytest.raises(DatabaseError, match="share a version"):
        discover(tmp_path)


def test_the_shipped_migrations_have_distinct_versions() -> None:
    versions = [migration.version for migration in discover(MIGRATIONS)]
    assert len(versions) == len(set(versions))


def test_dropping_the_fast_tier_keeps_keyword_searchable_documents(
    empty_database_url: str, tmp_path: Path
) -> None:
    # a database of the fast-tier era: a document searchable by its static vectors only
    for migration in discover(MIGRATIONS):
        if migration.version < "20261129000000":
            (tmp_path / migration.path.name).write_text(migration.path.read_text())
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        apply_migrations(conn, tmp_path)
        [(docset,)] = conn.execute(
            "insert into docsets (name, embedding_model, embedding_dimensions)"
            " values ('old', 'local/all-MiniLM-L6-v2-int8', 384) returning id"
        ).fetchall()
        conn.execute(
            "insert into documents (docset_id, path, content, content_hash, vector_tier)"
            " values (%s, 'a.md', 'text', 'h', 'fast'), (%s, 'b.md', 'text', 'h2', 'quality')",
            (docset, docset),
        )
        assert "20261129000000" in apply_migrations(conn, MIGRATIONS)
        tiers = dict(conn.execute("select path, vector_tier from documents").fetchall())
        columns = {
            row[0]
            for row in conn.execute(
                "select column_name from information_schema.columns where table_name = 'chunks'"
            )
        }
        indexes = {row[0] for row in conn.execute("select indexname from pg_indexes")}
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute("update documents set vector_tier = 'fast'")
    assert tiers == {"a.md": "keywords", "b.md": "quality"}
    assert "fast_embedding" not in columns and "embedding" in columns
    assert not {"chunks_fast_embedding_idx", "chunks_fast_only_idx"} & indexes
    assert "documents_unsearchable_idx" in indexes
