"""The embedded Postgres server takes its tuning from our settings file at each start."""

import shutil
import tempfile
from pathlib import Path

import psycopg

from ragspace.store.database import EmbeddedPostgres


def _shared_buffers(folder: Path, value: str) -> str:
    server = EmbeddedPostgres(folder, shared_buffers=value)
    try:
        with psycopg.connect(server.start()) as conn:
            row = conn.execute("show shared_buffers").fetchone()
    finally:
        server.stop()
    assert row is not None
    return str(row[0])


def test_shared_buffers_setting_applies_at_first_and_later_starts() -> None:
    folder = Path(tempfile.mkdtemp(prefix="ragspace-test-tuning-"))  # see conftest: not tmp_path
    try:
        assert _shared_buffers(folder, "192MB") == "192MB"
        assert _shared_buffers(folder, "256MB") == "256MB"
        config = (folder / "pgdata" / "postgresql.conf").read_text(encoding="utf-8")
        assert config.count("include_if_exists = 'ragspace.conf'") == 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)
