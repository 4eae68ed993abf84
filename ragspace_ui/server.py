"""Start the web app: compose the runtime, build the UI, serve until stopped."""

import logging
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import gradio as gr
import httpx
from gradio import http_server
from gradio.exceptions import ServerFailedToStartError
from starlette.middleware import Middleware

from ragspace.access import Credentials, LoginLimits, parse_auth
from ragspace.actions import Actions
from ragspace.errors import RagspaceError
from ragspace.runtime import open_runtime
from ragspace.settings import Settings
from ragspace_mcp.annotations import mcp_lifespan
from ragspace_mcp.http_server import RebindingCheck, rebinding_protected
from ragspace_ui.app import CSS, build_ui
from ragspace_ui.guard import guard_middleware
from ragspace_ui.routes import app_routes
from ragspace_ui.session_state import build_session_configs_on_read
from ragspace_ui.webhook_endpoint import webhook_middleware

log = logging.getLogger(__name__)

MCP_ROUTES = "/gradio_api/mcp"  # Gradio's streamable HTTP, SSE, messages and schema routes

# Gradio's launch() asks for its own page once with a 3-second limit and refuses to start
# ("When localhost is not accessible, a shareable link must be created") when that single
# request is slow: rendering this app's page took longer on a busy 2-core machine (the test
# suite beside two busy loops), which stopped the app from starting. Every launch here passes
# `_frontend=False`, the flag Gradio's own frontend-less `gr.Server` passes, which skips only
# that probe, and `check_page_served` asks for the page with a limit a busy machine meets.
PAGE_LIMIT_SECONDS = 120.0

# Gradio's queue looks for new events every 1 ms and for progress to send every 10 ms, also
# when nothing happens (on Linux; 50 and 100 ms on Windows): an idle app kept 7-9 % of a core
# busy, and so did every app a test launched. Looking every 10 ms and 50 ms costs an event at
# most 10 ms before it starts (docs/benchmarks-log.md, "An idle app's CPU").
QUEUE_POLL_SECONDS = 0.01
PROGRESS_POLL_SECONDS = 0.05


def calm_queue(demo: gr.Blocks) -> None:
    """Let the app's event queue (the last one `queue()` made) poll at the rates above."""
    demo._queue.sleep_when_free = QUEUE_POLL_SECONDS
    demo._queue.progress_update_sleep_when_free = PROGRESS_POLL_SECONDS


# Gradio gives its web server 5 seconds to start, then tries the next port with the same
# app and leaves the first server's thread running. That second start runs the app's
# lifespan again, where the MCP session manager refuses to run twice, so every later port
# fails as well and launch() ends in "Cannot find empty port in range: 7860-7959" (seen on
# a stalling test machine). Every launch here uses `PatientServer`, which waits longer.
START_LIMIT_SECONDS = 120.0


class PatientServer(http_server.Server):
    """Gradio's server, given as long to start as a busy machine needs: it still gives up
    on a port at once when its thread ends (the port was taken: Gradio tries the next), and
    one that has not started within START_LIMIT_SECONDS is told to stop and reported, not
    run a second time on another port."""

    def run_in_thread(self) -> None:
        if self.reloader:  # on Spaces, Gradio's file watcher (as its own run_in_thread)
            self.watch_thread = threading.Thread(target=self.watch, daemon=True)
            self.watch_thread.start()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + START_LIMIT_SECONDS
        while not self.started:
            if not self.thread.is_alive():
                raise ServerFailedToStartError(
                    f"The web server could not start on port {self.config.port}."
                )
            if time.monotonic() > deadline:
                self.should_exit = True  # it stops as soon as its start-up ends
                raise RagspaceError(
                    f"The web server did not start within {START_LIMIT_SECONDS:.0f} s; the "
                    "machine may be overloaded. Try again when it is less busy."
                )
            self.thread.join(0.01)


@contextmanager
def patient_start() -> Iterator[None]:
    """Launches inside this block start their server with `PatientServer`."""
    original = http_server.Server
    http_server.Server = PatientServer  # type: ignore[misc]
    try:
        yield
    finally:
        http_server.Server = original  # type: ignore[misc]


def free_local_port() -> int:
    """A port of 127.0.0.1 that nothing listens on now, from the kernel's ephemeral range.

    Left to choose, Gradio tries 7860 first, then the next: two processes launching at once
    (the test suite's two) both found 7860 free, the one that lost the bind retried on 7861
    with the same app, whose lifespan then ran a second time, and the MCP session manager
    refuses that, so every later port failed too ("Cannot find empty port in range").
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def check_page_served(url: str) -> None:
    """Return once the app's page at `url` answers; a clear error if it cannot."""
    try:
        # our own address, over plain HTTP: no certificate to check (the default context
        # would load the whole CA bundle first, about 25 ms of CPU)
        response = httpx.head(url, timeout=PAGE_LIMIT_SECONDS, verify=False)
    except httpx.HTTPError as exc:
        raise RagspaceError(
            f"The app started but its page at {url} did not answer ({exc}); check that "
            "nothing (a proxy, a firewall) stands between this process and its own address."
        ) from exc
    if response.status_code >= 500:
        raise RagspaceError(
            f"The app started but its page at {url} answered {response.status_code}."
        )


def launch_options(
    settings: Settings, credentials: Credentials | None, actions: Actions | None = None
) -> dict[str, Any]:
    """`Blocks.launch` arguments for access control, MCP and uploads (not host and port).

    With `actions`, also RAGSpace's own routes (a document's original file) and, with
    RAGSPACE_GITHUB_WEBHOOK_SECRET set, POST /webhooks/github.
    """
    webhook = webhook_middleware(actions, settings.access.github_webhook_secret)
    routes = app_routes(actions) if actions is not None else []
    host = settings.server.host
    rebinding = (
        [Middleware(RebindingCheck, host=host, prefix=MCP_ROUTES)]
        if settings.access.mcp_server and rebinding_protected(host)
        else []
    )
    return {
        "auth": list(credentials.pairs) if credentials else None,
        "auth_message": "Sign in with a RAGSpace account." if credentials else None,
        "mcp_server": settings.access.mcp_server,
        "max_file_size": settings.limits.max_upload_bytes,
        "show_error": False,
        "css": CSS,
        # Gradio's English has no `common.complete` (nor `common.error`): its screen-reader
        # live region announced the key itself after every event
        "i18n": gr.I18n(en={"common.complete": "Done", "common.error": "Error"}),
        # Gradio keeps a copy of every block's config per session, and every HTTP API or
        # MCP call is a session of its own: at Gradio's default of 10,000 that is gigabytes
        "state_session_capacity": settings.limits.session_capacity,
        "app_kwargs": {
            # on loopback, the MCP routes answer only loopback Host and Origin headers (DNS
            # rebinding); the webhook next: GitHub cannot sign in, it proves itself with the
            # signature; then the guard refuses anonymous clients (logins on) and uploads
            # (read-only) before any route
            "middleware": rebinding
            + webhook
            + guard_middleware(
                credentials, settings.access.read_only, LoginLimits.from_settings(settings)
            ),
            "routes": routes,
            # tool annotations and server instructions, which Gradio cannot set itself
            "lifespan": mcp_lifespan,
        },
    }


def launch_on_localhost(demo: gr.Blocks, **options: Any) -> str:
    """Start `demo` on 127.0.0.1 on a free port without blocking; its URL (tests, screenshots)."""
    build_session_configs_on_read()
    calm_queue(demo)  # the queue is on: `gr.Blocks` starts one by default
    with patient_start():
        _, url, _ = demo.launch(
            server_name="127.0.0.1",
            server_port=free_local_port(),
            prevent_thread_lock=True,
            quiet=True,
            _frontend=False,  # see PAGE_LIMIT_SECONDS
            **options,
        )
    check_page_served(str(url))
    return str(url)


def _interrupt(signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def serve(settings: Settings) -> None:
    """Run the app on the configured host and port; stop everything cleanly on exit.

    SIGTERM (`kill`, container stops) ends it like Ctrl+C, so the embedded Postgres and
    the workers are stopped instead of left behind.
    """
    credentials = parse_auth(
        settings.access.auth
    )  # a malformed RAGSPACE_AUTH stops us before start-up
    previous = signal.signal(signal.SIGTERM, _interrupt)
    # the app's in-process workers also run scheduled re-syncs (none without workers)
    runtime = open_runtime(settings, scheduled_syncs=settings.ingestion.worker_threads > 0)
    try:
        build_session_configs_on_read()
        demo = build_ui(runtime.actions, credentials)
        demo.queue(default_concurrency_limit=8)
        calm_queue(demo)
        if settings.access.read_only:
            log.info("Read-only mode: every change is refused (RAGSPACE_READ_ONLY)")
        elif credentials is None and settings.server.host not in ("127.0.0.1", "localhost"):
            log.warning(
                "Listening on %s with neither RAGSPACE_AUTH nor RAGSPACE_READ_ONLY: anyone "
                "who can reach it may change or delete DocSets.",
                settings.server.host,
            )
        with patient_start():
            _, url, _ = demo.launch(
                server_name=settings.server.host,
                server_port=settings.server.port,
                prevent_thread_lock=True,
                _frontend=False,  # see PAGE_LIMIT_SECONDS
                **launch_options(settings, credentials, runtime.actions),
            )
        check_page_served(str(url))
        demo.block_thread()  # until Ctrl+C or SIGTERM, as launch() itself would
    finally:
        runtime.close()
        signal.signal(signal.SIGTERM, previous)
