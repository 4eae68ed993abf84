"""The benchmarks call the app's HTTP tools with the arguments the tools take.

Over Gradio's HTTP API every argument is sent positionally, and a call with one missing is
answered by an error event: when `search` gained `expand`, every search of the load, memory
and big-repository benchmarks failed until this was caught by hand."""

import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest

from ragspace_mcp import read_tools as mcp_read_tools

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_the_harness_search_sends_every_argument_of_the_search_tool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    import app_harness

    sent: list[tuple[str, tuple[Any, ...]]] = []

    async def record(_api: object, name: str, *data: Any) -> None:
        sent.append((name, data))

    monkeypatch.setattr(app_harness.GradioApi, "__call__", record)
    api = app_harness.GradioApi(None, "http://127.0.0.1:1")  # type: ignore[arg-type]
    asyncio.run(api.search("how are chunks split?", ["docs"], 8))

    # what Gradio sees of the tool: its parameters but `actions` and `app_url` (mcp_tools.bind)
    public = [
        name
        for name in inspect.signature(mcp_read_tools.search).parameters
        if name not in ("actions", "app_url")
    ]
    [(name, data)] = sent
    assert name == "search"
    assert len(data) == len(public)
    assert dict(zip(public, data, strict=True)) == {
        "query": "how are chunks split?",
        "docsets": ["docs"],
        "k": 8,
        "max_tokens": None,
        "ref": None,
        "expand": None,
        "show_hidden": False,
    }
