"""The test server's folder in memory (tests/conftest.py `memory_folder`)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import MEMORY_FOLDER_MIN_FREE, SERVER_PREFIX, memory_folder


def test_folders_of_ended_sessions_go_and_running_ones_stay(tmp_path: Path) -> None:
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    gone = tmp_path / f"{SERVER_PREFIX}{ended.stdout.strip()}-abc"
    running = tmp_path / f"{SERVER_PREFIX}{os.getpid()}-def"
    unrelated = tmp_path / "something-else"
    for folder in (gone, running, unrelated):
        (folder / "pgdata").mkdir(parents=True)

    chosen = memory_folder(tmp_path)

    assert not gone.exists()
    assert running.exists() and unrelated.exists()
    roomy = shutil.disk_usage(tmp_path).free >= MEMORY_FOLDER_MIN_FREE
    assert chosen == (tmp_path if roomy else None)


def test_a_missing_folder_is_not_chosen(tmp_path: Path) -> None:
    assert memory_folder(tmp_path / "missing") is None
