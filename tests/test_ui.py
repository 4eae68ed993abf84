"""The Gradio app builds, serves its page, and shows readable errors."""

import urllib.request
from collections.abc import Iterator

import gradio as gr
import pytest
from gradio_client import Client

from ragspace.errors import NotFoundError
from ui.errors import UNEXPECTED, user_errors


def test_service_errors_become_readable_messages() -> None:
    @user_errors
    def missing() -> None:
        raise NotFoundError("DocSet 'ghost' does not exist.")

    @user_errors
    def broken() -> None:
        raise KeyError("internal detail")

    with pytest.raises(gr.Error, match="ghost"):
        missing()
    with pytest.raises(gr.Error) as caught:
        broken()
    assert caught.value.message == UNEXPECTED


def test_generator_handlers_are_translated_too() -> None:
    @user_errors
    def stream() -> Iterator[str]:
        yield "partial"
        raise NotFoundError("gone")

    results = stream()
    assert next(results) == "partial"
    with pytest.raises(gr.Error, match="gone"):
        next(results)


def test_app_serves_three_tabs(served: str) -> None:
    with urllib.request.urlopen(served, timeout=10) as response:
        page = response.read().decode()
    assert response.status == 200
    assert "RAGSpace" in page
    config = Client(served, verbose=False).config
    labels = {c.get("props", {}).get("label") for c in config["components"]}
    assert {"DocSets", "Embedding status", "Chat"} <= labels
