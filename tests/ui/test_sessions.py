"""Starting the app: session state is bounded (every HTTP API call is a Gradio session of its
own), and a page slower than Gradio's own 3-second probe does not stop the app from starting."""

import json

import httpx
import pytest

from ragspace.actions import Actions
from ragspace.settings import Settings
from ragspace_ui.app import build_ui
from ragspace_ui.server import launch_on_localhost, launch_options


def call_api(client: httpx.Client, name: str) -> object:
    """One call over Gradio's plain HTTP API (POST, then read the event stream), as curl does."""
    posted = client.post(f"/gradio_api/call/{name}", json={"data": []})
    assert posted.status_code == 200, posted.text
    event_id = posted.json()["event_id"]
    with client.stream("GET", f"/gradio_api/call/{name}/{event_id}") as stream:
        lines = list(stream.iter_lines())
    assert "event: complete" in lines, lines
    return json.loads(lines[lines.index("event: complete") + 1].removeprefix("data: "))


def test_api_calls_keep_at_most_the_configured_sessions(
    service: Actions, settings: Settings
) -> None:
    service.docsets.create("docs")
    demo = build_ui(service)
    capacity = 3
    bounded = settings.replace(session_capacity=capacity)
    url = launch_on_localhost(demo, **launch_options(bounded, None, service))
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            for _ in range(capacity + 5):
                [listing] = call_api(client, "list_docsets")  # type: ignore[misc]
                assert "docs" in listing
        sessions = demo.state_holder.session_data
        assert len(sessions) == capacity  # the oldest were forgotten, the newest kept
    finally:
        demo.close()


def test_a_page_slower_than_gradios_probe_still_starts(
    service: Actions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gradio asks for its page once with a 3 s limit and refuses to start when that is
    missed (under load it was); RAGSpace skips that probe and waits for the page itself."""
    monkeypatch.setattr("gradio.networking.url_ok", lambda _url: False)  # a missed probe
    demo = build_ui(service)
    url = launch_on_localhost(demo)
    try:
        assert httpx.get(url, timeout=60).status_code == 200
    finally:
        demo.close()
