"""Run the real app in a subprocess on 127.0.0.1 for the load and memory benchmarks.

Shared by bench/load_test.py and bench/memory.py (not a benchmark itself). Everything it
starts (the fake OpenAI API, the app, the embedded Postgres the app starts) is stopped by
`AppUnderTest.stop()`, and the data folder is a temporary one, removed afterwards.
"""

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx
import psutil

from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder
from ragspace.eval.evaluation import Dataset, load_claude_docs, load_codebase
from ragspace.runtime import build_actions, build_embedder
from ragspace.settings import Settings, load_settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Database, Store

ROOT = Path(__file__).resolve().parents[1]
Backend = Literal["fake-openai", "local"]
BACKENDS: tuple[Backend, ...] = ("fake-openai", "local")


def default_eval_dir() -> Path:
    """`shared/eval` next to the checkout or one of its parents (worktrees live deeper)."""
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "eval"
        if candidate.is_dir():
            return candidate
    return ROOT.parent / "shared" / "eval"


def commit_id(checkout: Path = ROOT) -> str:
    """The checkout's commit (short), recorded with every result; "+changes" when tracked
    files differ from it (the figure is then not that commit's)."""
    found = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True, text=True
    )
    changed = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=checkout,
        capture_output=True,
        text=True,
    )
    commit = found.stdout.strip() or "unknown"
    return f"{commit}+changes" if changed.stdout.strip() else commit


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def corpus_files(dataset: Dataset, salt: str = "") -> list[UploadedFile]:
    """A data set's documents as uploads named by their paths."""
    return [UploadedFile(d.path, (d.content + salt).encode()) for d in dataset.documents]


def eval_datasets(eval_dir: Path) -> tuple[Dataset, Dataset]:
    """(claude-docs pages, codebase files) of the evaluation sets."""
    return load_claude_docs(eval_dir / "claude-docs"), load_codebase(eval_dir / "codebase")


@dataclass
class AppUnderTest:
    """The app (`python app.py`) and, for `fake-openai`, the fake API it talks to."""

    backend: Backend
    folder: Path
    port: int = field(default_factory=free_port)
    env: dict[str, str] = field(default_factory=dict)
    fake: subprocess.Popen[str] | None = None
    app: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    @property
    def url(self) -> str:
        """Where the app listens."""
        return f"http://127.0.0.1:{self.port}"

    def start(self, extra_env: dict[str, str] | None = None, timeout: float = 300.0) -> None:
        """Start the fake API (if any) and the app, and wait until the app answers."""
        self.env = {
            "RAGSPACE_DATA_DIR": str(self.folder / "data"),
            "RAGSPACE_HOST": "127.0.0.1",
            "RAGSPACE_PORT": str(self.port),
            "RAGSPACE_LOG_LEVEL": "WARNING",
            # the bench process queues ingestion work in the database; the app's workers
            # find it by polling, so poll often to keep them busy between rounds
            "RAGSPACE_WORKER_POLL_SECONDS": "0.5",
            "GRADIO_ANALYTICS_ENABLED": "False",
            **(extra_env or {}),
        }
        if self.backend == "fake-openai":
            self.env.update(OPENAI_API_KEY="sk-bench-fake", OPENAI_BASE_URL=self._start_fake())
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RAGSPACE_"))}
        env.pop("DATABASE_URL", None)
        self.log_path = self.folder / "app.log"
        with self.log_path.open("wb") as log:
            self.app = subprocess.Popen(
                [sys.executable, str(ROOT / "app.py")],
                cwd=self.folder,  # no stray .env is read
                env={**env, **self.env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._wait_ready(timeout)

    def _start_fake(self) -> str:
        fake_args = self.env.pop("BENCH_FAKE_ARGS", "").split()
        self.fake = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("fake_openai.py")), *fake_args],
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        assert self.fake.stdout is not None
        return self.fake.stdout.readline().strip()

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.app is not None
            if self.app.poll() is not None:
                raise RuntimeError(f"The app exited at start-up; see {self.log_tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/gradio_api/info", timeout=5).status_code == 200:
                    return
            time.sleep(0.5)
        raise RuntimeError(f"The app did not answer within {timeout:.0f} s: {self.log_tail()}")

    def log_tail(self) -> str:
        """The end of the app's log, for error messages."""
        if self.log_path is None or not self.log_path.exists():
            return "(no log)"
        return self.log_path.read_text(errors="replace")[-2000:]

    def settings(self) -> Settings:
        """The app's settings, for a second process joining its database."""
        return load_settings(env_file=None, **_settings_fields(self.env))

    @property
    def pgdata(self) -> Path:
        """The embedded Postgres data folder the app uses."""
        return (self.folder / "data" / "pgdata").resolve()

    def postmaster_pid(self) -> int | None:
        """The embedded Postgres server's pid, from its lock file."""
        lock = self.pgdata / "postmaster.pid"
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int(lock.read_text().splitlines()[0])
        return None

    def processes(self) -> dict[str, list[psutil.Process]]:
        """The app's processes (Python, any children) and the embedded Postgres processes."""
        assert self.app is not None
        postgres: list[psutil.Process] = []
        pid = self.postmaster_pid()
        with contextlib.suppress(psutil.NoSuchProcess):
            if pid is not None:
                postmaster = psutil.Process(pid)
                postgres = [postmaster, *postmaster.children(recursive=True)]
        ours = {p.pid for p in postgres}
        main = psutil.Process(self.app.pid)
        app = [main, *(p for p in main.children(recursive=True) if p.pid not in ours)]
        return {"app": app, "postgres": postgres}

    def stop(self) -> None:
        """Stop the app the way Ctrl-C does (it stops its Postgres), then the fake API."""
        postmaster = self.postmaster_pid()
        if self.app is not None and self.app.poll() is None:
            self.app.send_signal(signal.SIGINT)
            try:
                self.app.wait(60)
            except subprocess.TimeoutExpired:
                self.app.kill()
                self.app.wait()
        if postmaster is not None:
            _stop_postmaster(postmaster, self.pgdata)
        if self.fake is not None and self.fake.poll() is None:
            self.fake.terminate()
            self.fake.wait(10)


def _settings_fields(env: dict[str, str]) -> dict[str, Any]:
    names = {
        "RAGSPACE_DATA_DIR": "data_dir",
        "OPENAI_API_KEY": "openai_api_key",
        "OPENAI_BASE_URL": "openai_base_url",
    }
    return {names[k]: v for k, v in env.items() if k in names}


def _stop_postmaster(pid: int, pgdata: Path) -> None:
    """Fast shutdown of the Postgres the app left running (e.g. after a kill), if any."""
    try:
        process = psutil.Process(pid)
        if str(pgdata) not in " ".join(process.cmdline()):
            return  # the server stopped and the pid now belongs to someone else
        process.send_signal(signal.SIGINT)
        process.wait(30)
    except psutil.NoSuchProcess:
        return
    except psutil.TimeoutExpired:
        process.kill()


@contextlib.contextmanager
def running_app(
    backend: Backend, extra_env: dict[str, str] | None = None, keep_log: Path | None = None
) -> Iterator[AppUnderTest]:
    """The app running in a temporary folder; everything stopped and removed on exit."""
    with tempfile.TemporaryDirectory(prefix="ragspace-bench-") as folder:
        app = AppUnderTest(backend, Path(folder))
        try:
            app.start(extra_env)
            yield app
        finally:
            app.stop()
            if keep_log is not None and app.log_path is not None and app.log_path.exists():
                shutil.copyfile(app.log_path, keep_log)


class SideActions:
    """The app's actions in this process on the app's database: queues ingestion work.

    The bench process joins the app's embedded Postgres (pgserver shares one server between
    processes) and calls the same actions the UI calls; the app's workers do the embedding.
    """

    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        self.database = Database.open(settings.replace(db_pool_max_size=2))
        self.store = Store(self.database.pool)
        self.actions: Actions = build_actions(
            settings, self.store, embedder or build_embedder(settings)
        )

    def progress(self, docset: str) -> tuple[int, int, int]:
        """(documents done or failed, documents in total, chunks) of one DocSet."""
        documents = self.actions.documents.all(docset)
        finished = sum(1 for d in documents if d.embedding_status in ("done", "error"))
        return finished, len(documents), self.actions.docsets.get(docset).chunk_count

    def wait_embedded(self, docset: str, timeout: float) -> None:
        """Block until every document of the DocSet is done (or failed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            finished, total, _ = self.progress(docset)
            if total and finished == total:
                return
            time.sleep(0.5)
        raise RuntimeError(f"DocSet {docset!r} was not embedded within {timeout:.0f} s")

    def close(self) -> None:
        """Close this process's connections (the app keeps its server running)."""
        self.database.close()


class GradioApi:
    """Calls the app's `gr.api` endpoints over HTTP the way curl and gradio_client do.

    `call`: POST /gradio_api/call/<name> for an event id, then read the SSE result from
    GET /gradio_api/call/<name>/<id> (through Gradio's queue). `run`: one POST to
    /gradio_api/run/<name>, which runs the endpoint directly (they are `queue=False`).
    """

    def __init__(self, client: httpx.AsyncClient, base_url: str, protocol: str = "call") -> None:
        self.client = client
        self.base = f"{base_url}/gradio_api"
        self.protocol = protocol

    async def __call__(self, name: str, *data: Any) -> Any:
        """The endpoint's result (our tools return JSON text, decoded here)."""
        if self.protocol == "run":
            response = await self.client.post(f"{self.base}/run/{name}", json={"data": data})
            response.raise_for_status()
            return json.loads(response.json()["data"][0])
        response = await self.client.post(f"{self.base}/call/{name}", json={"data": data})
        response.raise_for_status()
        event_id = response.json()["event_id"]
        event = ""
        async with self.client.stream("GET", f"{self.base}/call/{name}/{event_id}") as stream:
            stream.raise_for_status()
            async for line in stream.aiter_lines():
                if line.startswith("event:"):
                    event = line.removeprefix("event:").strip()
                elif line.startswith("data:") and event in ("complete", "error"):
                    payload = line.removeprefix("data:").strip()
                    if event == "error":
                        raise ApiError(f"{name}: {payload[:300]}")
                    return json.loads(json.loads(payload)[0])
        raise ApiError(f"{name}: the event stream ended without a result (last event {event!r})")

    async def search(self, query: str, docsets: list[str] | None, k: int) -> Any:
        """The `search` tool; over HTTP every argument is sent (query, docsets, k, max_tokens,
        ref, expand, show_hidden), or Gradio answers with an error event."""
        return await self("search", query, docsets, k, None, None, None, False)


class ApiError(Exception):
    """The app answered a call with an error event or no result."""
