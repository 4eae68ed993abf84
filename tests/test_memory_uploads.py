"""Big folders do not fill the app's memory: 30 files of 19 MB, from a browser and `add dir`.

Before, every file of a folder was read into memory before the upload's text budget (64 MB)
applied: 30 x 19 MB sent as a browser folder pushed the app from 459 to 1,005 MB while
nothing was stored. Files are now listed by their sizes and read one at a time, only while
the budget lasts. The app and the CLI run as their own processes; their peak RSS is the
kernel's high-water mark (`VmHWM`, reset before the upload), not a sample."""

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest

from ragspace.actions import Actions
from tests.ui.test_access import BrowserSession

pytestmark = pytest.mark.slow  # 570 MB through a real app and a real CLI

ROOT = Path(__file__).resolve().parent.parent
FILES, FILE_BYTES = 30, 19 * 1024 * 1024
HEADROOM_MB = 150
CLI = (sys.executable, "-m", "ragspace_cli")
DOCSET = "big"
# the CLI's child is measured by the kernel (its largest resident size, in KiB)
PEAK_OF_CHILD = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    "print(done.stdout[-2000:], done.stderr[-2000:], file=sys.stderr)\n"
)


def _status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/status")


@pytest.fixture(scope="module")
def big_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """30 text files of 19 MB each (hard links of one file: 19 MB of disk, 570 MB to read)."""
    root = tmp_path_factory.mktemp("memory") / "big"
    root.mkdir()
    line = b"The sprocket factory polishes widgets until they shine.\n"
    first = root / "part00.txt"
    first.write_bytes(line * (FILE_BYTES // len(line)))
    for number in range(1, FILES):
        os.link(first, root / f"part{number:02}.txt")
    return root


@pytest.fixture
def app(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The real app (`python app.py`) in its own process, on the test's database."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    from app_harness import AppUnderTest

    running = AppUnderTest("local", tmp_path)
    env = {"DATABASE_URL": database_url, "GRADIO_TEMP_DIR": str(tmp_path / "gradio")}
    running.start(env, timeout=180)
    try:
        yield running
    finally:
        running.stop()


def test_a_30_by_19_mb_browser_folder_keeps_the_app_within_150_mb_of_idle(
    service: Actions, app: Any, big_folder: Path
) -> None:
    service.docsets.create(DOCSET)
    assert app.app is not None
    pid = app.app.pid
    client = httpx.Client(base_url=app.url, timeout=300)
    with closing(client):
        session = BrowserSession(app.url, client)
        session.call("refresh_docset_lists", [None, [], None])  # what a page load does
        idle = _status_kib(pid, "VmRSS")
        Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM from here on
        files = sorted(big_folder.iterdir())
        handles = [path.open("rb") for path in files]
        try:
            uploaded = client.post(
                "/gradio_api/upload",
                files=[
                    ("files", (path.name, handle))
                    for path, handle in zip(files, handles, strict=True)
                ],
            )
        finally:
            for handle in handles:
                handle.close()
        copies = uploaded.json()
        assert len(copies) == FILES
        listing = json.dumps([{"path": f"big/{p.name}", "size": p.stat().st_size} for p in files])
        file_data = [
            {"path": copy, "orig_name": Path(copy).name, "meta": {"_type": "gradio.FileData"}}
            for copy in copies
        ]
        result = session.call("on_add_folder", [DOCSET, file_data, listing, "", ""])
        peak = _status_kib(pid, "VmHWM")
    assert result["success"], result
    documents = service.documents.all(DOCSET)
    assert len(documents) == FILES and all(d.error_message for d in documents)  # none stored
    refused = [d for d in documents if "UPLOAD_TEXT_BUDGET" in (d.error_message or "")]
    assert len(refused) >= FILES - 4  # past the 64 MB budget: never read
    growth_mb = (peak - idle) / 1024
    assert growth_mb <= HEADROOM_MB, f"idle {idle / 1024:.0f} MB, peak {peak / 1024:.0f} MB"


def _cli_peak_mb(database_url: str, folder: Path, workdir: Path) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGSPACE_")}
    env |= {
        "DATABASE_URL": database_url,
        "RAGSPACE_DATA_DIR": str(workdir / "data"),
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            PEAK_OF_CHILD,
            sys.executable,
            "-m",
            "ragspace_cli",
            "add",
            "dir",
            DOCSET,
            str(folder),
        ],
        capture_output=True,
        text=True,
        cwd=workdir,
        env=env,
        check=True,
    )
    code, kib = done.stdout.split()
    assert code in ("0", "1") and "Traceback" not in done.stderr, done.stderr  # 1: errors
    return int(kib) / 1024


def test_add_dir_of_the_same_files_stays_within_150_mb_of_adding_one_small_file(
    service: Actions, database_url: str, big_folder: Path, tmp_path: Path
) -> None:
    service.docsets.create(DOCSET)
    small = tmp_path / "small"
    small.mkdir()
    (small / "note.md").write_text("# A note\n\nOne small file.\n")

    baseline = _cli_peak_mb(database_url, small, tmp_path)
    peak = _cli_peak_mb(database_url, big_folder, tmp_path)

    assert peak - baseline <= HEADROOM_MB, f"one small file {baseline:.0f} MB, big {peak:.0f} MB"
    errors = [d for d in service.documents.all(DOCSET) if d.path.startswith("big/")]
    assert len(errors) == FILES and all(d.error_message for d in errors)  # nothing stored
