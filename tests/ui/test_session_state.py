"""Gradio's per-session configuration is built entry by entry when read (issue 16, load)."""

import logging

import httpx
import pytest
from gradio.state_holder import SessionState

from ragspace.actions import Actions
from ragspace.settings import Settings
from ragspace_ui import session_state
from ragspace_ui.app import build_ui
from ragspace_ui.server import launch_on_localhost, launch_options
from ragspace_ui.session_state import BlockConfigs, build_session_configs_on_read
from tests.ui.test_sessions import call_api


def eager_session(demo: object) -> SessionState:
    """A session built by Gradio's own `SessionState.__init__` (every entry at once)."""
    state = object.__new__(SessionState)
    session_state._gradio_init(state, demo)
    return state


def test_installs_over_the_pinned_gradio_once() -> None:
    assert build_session_configs_on_read()
    assert build_session_configs_on_read()  # a second launch in the same process
    assert SessionState.__init__ is session_state._session_init


def test_another_gradio_keeps_its_own_init(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(SessionState, "__init__", session_state._gradio_init)
    with caplog.at_level(logging.WARNING, logger=session_state.__name__):
        assert not build_session_configs_on_read(expected_sha256="0" * 64)
    assert SessionState.__init__ is session_state._gradio_init
    assert "not the one RAGSpace was tested with" in caplog.text


def test_a_session_builds_what_is_read_and_the_same_as_gradio(
    service: Actions,
) -> None:
    build_session_configs_on_read()
    demo = build_ui(service)
    lazy = SessionState(demo)
    configs = lazy.config_values
    assert isinstance(configs, BlockConfigs)
    assert configs.built() == 0
    some_id = max(demo.blocks)  # read out of the app's order
    assert some_id in configs and configs.built() == 0
    assert configs[some_id]["id"] == some_id
    assert configs.built() == 1

    eager = eager_session(demo)
    assert len(configs) == len(eager.config_values) > 100
    assert list(lazy.components) == list(eager.components)  # deep links see the same, in order
    assert configs.built() == len(eager.config_values)


def test_an_api_call_builds_only_a_few_entries(service: Actions, settings: Settings) -> None:
    service.docsets.create("docs")
    demo = build_ui(service)
    url = launch_on_localhost(demo, **launch_options(settings, None, service))
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            [listing] = call_api(client, "list_docsets")  # type: ignore[misc]
        assert "docs" in listing
        [session] = demo.state_holder.session_data.values()
        configs = session.config_values
        assert isinstance(configs, BlockConfigs)
        assert configs.built() < 10 < len(configs)
    finally:
        demo.close()
