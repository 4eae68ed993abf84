"""Starting the web server: Gradio's 5-second start limit replaced by a patient one that
still moves on from a taken port at once and reports a start that never ends."""

import asyncio
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import gradio as gr
import httpx
import pytest
import uvicorn
from gradio import http_server
from gradio.exceptions import ServerFailedToStartError

from ragspace.errors import RagspaceError
from ragspace_ui import server as server_module
from ragspace_ui.server import PatientServer, free_local_port, launch_on_localhost

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def app_starting_when(released: threading.Event) -> Callable[..., Awaitable[None]]:
    """A bare ASGI app whose start-up (its lifespan) ends once `released` is set."""

    async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await send({"type": "http.response.start", "status": 204, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await asyncio.to_thread(released.wait)
                await send({"type": "lifespan.startup.complete"})
            else:
                await send({"type": "lifespan.shutdown.complete"})
                return

    return app


@pytest.fixture
def listening() -> Iterator[int]:
    """A port some other program is listening on."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield int(taken.getsockname()[1])


def patient_server(app: Callable[..., Awaitable[None]], port: int) -> PatientServer:
    config = uvicorn.Config(app=app, host="127.0.0.1", port=port, log_level="critical")
    return PatientServer(config)


def test_launches_start_with_the_patient_server_and_leave_gradio_as_it_was() -> None:
    with gr.Blocks() as demo:
        gr.Markdown("hello")
    url = launch_on_localhost(demo)
    try:
        assert isinstance(demo.server, PatientServer)
        assert httpx.get(url).status_code == 200
    finally:
        demo.close()
    assert http_server.Server is not PatientServer


# the MCP package's pydantic models get their schemas built from two threads at once here
# (only at its first import): pydantic then warns about an alias, harmlessly
@pytest.mark.filterwarnings("ignore::pydantic.warnings.UnsupportedFieldAttributeWarning")
def test_apps_launched_at_the_same_moment_each_get_a_port() -> None:
    """Two launches at once (as two test processes do) used to both try port 7860; the loser
    retried the next port with the same app, whose MCP server cannot start twice."""
    demos = []
    for n in range(2):
        with gr.Blocks() as demo:
            gr.Markdown(f"app {n}")
        demos.append(demo)
    ready = threading.Barrier(2)

    def launch(demo: gr.Blocks) -> str:
        ready.wait()
        return launch_on_localhost(demo, mcp_server=True)

    with ThreadPoolExecutor(2) as pool:
        urls = list(pool.map(launch, demos))
    try:
        assert len(set(urls)) == 2
        for n, url in enumerate(urls):
            assert f"app {n}" in httpx.get(url).text
            assert httpx.get(f"{url}gradio_api/mcp/schema").status_code == 200
    finally:
        for demo in demos:
            demo.close()


# uvicorn reports a port it cannot bind by ending its thread with SystemExit
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_taken_port_fails_at_once_so_that_gradio_tries_the_next(listening: int) -> None:
    released = threading.Event()
    released.set()
    server = patient_server(app_starting_when(released), listening)
    with pytest.raises(ServerFailedToStartError, match=f"port {listening}"):
        server.run_in_thread()
    assert not server.thread.is_alive()


def test_a_start_that_outlasts_the_limit_is_reported_and_the_server_then_stops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(server_module, "START_LIMIT_SECONDS", 0.05)
    released = threading.Event()
    port = free_local_port()
    server = patient_server(app_starting_when(released), port)
    with pytest.raises(RagspaceError, match="did not start within"):
        server.run_in_thread()
    assert server.thread.is_alive()  # still in its start-up
    released.set()
    server.thread.join(timeout=30)
    assert not server.thread.is_alive()
    with pytest.raises(httpx.ConnectError):  # it did not go on to serve
        httpx.get(f"http://127.0.0.1:{port}/")
