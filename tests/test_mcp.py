"""The MCP server: an `mcp` client lists the tools and calls them against the running app."""

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import httpx
import pytest
from gradio_client import Client
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from ragspace.embeddings import LocalEmbedder
from ragspace.services import RagspaceService
from ragspace.store import Store
from ragspace.worker import Ingestor
from ragspace_ui.mcp_tools import CHANGE_TOOLS, READ_TOOLS
from tests.fakes.github_server import FakeGithub, FakeRepo, running_github
from tests.test_github_source import FILES, make_service

T = TypeVar("T")


def with_mcp(
    url: str,
    action: Callable[[ClientSession], Awaitable[T]],
    headers: dict[str, str] | None = None,
) -> T:
    """Run `action` in an initialised MCP session over streamable HTTP."""

    async def run() -> T:
        endpoint = url.rstrip("/") + "/gradio_api/mcp/"
        async with (
            httpx.AsyncClient(headers=headers, timeout=30) as http,
            streamable_http_client(endpoint, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await action(session)

    return asyncio.run(run())


def call(
    url: str, tool: str, arguments: dict[str, Any], headers: dict[str, str] | None = None
) -> CallToolResult:
    """One tool call in its own session."""

    async def action(session: ClientSession) -> CallToolResult:
        return await session.call_tool(tool, arguments)

    return with_mcp(url, action, headers)


def result_json(result: CallToolResult) -> Any:
    """The JSON a successful tool call returned."""
    assert not result.isError, result.content
    [content] = result.content
    assert content.type == "text"
    return json.loads(content.text)


def error_text(result: CallToolResult) -> str:
    """The message of a failed tool call."""
    assert result.isError
    return " ".join(getattr(c, "text", "") for c in result.content)


@pytest.fixture
def github() -> Iterator[FakeGithub]:
    with running_github() as state:
        yield state


@pytest.fixture
def repo(github: FakeGithub) -> FakeRepo:
    repo = github.add_repo("acme", "widgets", default_branch="trunk")
    repo.commit(FILES)
    return repo


def test_tools_are_listed_with_descriptions_and_schemas(
    store: Store,
    embedder: LocalEmbedder,
    github: FakeGithub,
    launch_app: Callable[..., str],
) -> None:
    url = launch_app(make_service(store, embedder, github))

    async def list_tools(session: ClientSession) -> Any:
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in with_mcp(url, list_tools)}
    # exactly the tools: no UI event handler leaks into MCP
    assert set(tools) == {*READ_TOOLS, *CHANGE_TOOLS}
    search = tools["search"]
    assert search.description and "passages" in search.description
    assert "url" in search.description  # the Returns section tells the assistant the fields
    properties = search.inputSchema["properties"]
    assert set(properties) == {"query", "docsets", "k", "ref"}
    assert search.inputSchema["required"] == ["query"]
    assert properties["k"]["type"] == "integer" and properties["k"]["default"] == 8
    assert "DocSets" in properties["docsets"]["description"]
    assert set(tools["ask"].inputSchema["properties"]) == {"question", "docsets", "ref"}
    assert "version" in properties["ref"]["description"]
    assert "ref" in tools["read_document"].inputSchema["properties"]
    assert all(tool.description for tool in tools.values())
    # the Gradio HTTP API offers the same endpoints and nothing else
    endpoints = Client(url, verbose=False).view_api(print_info=False, return_format="dict")
    assert set(endpoints["named_endpoints"]) == {f"/{name}" for name in tools}


def test_ingest_search_and_ask_over_mcp(
    store: Store,
    embedder: LocalEmbedder,
    github: FakeGithub,
    repo: FakeRepo,
    ingestor: Ingestor,
    launch_app: Callable[..., str],
) -> None:
    url = launch_app(make_service(store, embedder, github))
    created = result_json(call(url, "create_docset", {"name": "widgets"}))
    assert created["name"] == "widgets" and created["documents"] == 0
    report = result_json(
        call(
            url,
            "add_github_source",
            {"docset": "widgets", "location": "acme/widgets", "include": "src/**, docs/*.md"},
        )
    )
    assert report["new_or_changed"] == 2 and report["resolved"] == repo.refs["trunk"]
    assert ingestor.process_all() == 2

    [docset] = result_json(call(url, "list_docsets", {}))
    assert docset["documents"] == 2 and docset["chunks"] >= 2 and docset["searchable"]
    assert docset["sources"][0]["id"] == report["source_id"]

    hits = result_json(
        call(url, "search", {"query": "polish a widget until it shines", "docsets": ["widgets"]})
    )
    best = hits[0]
    commit = repo.refs["trunk"]
    assert best["path"] == "acme/widgets/src/widgets/app.py"
    assert "Polish a widget until it shines" in best["snippet"]
    assert best["start_line"] <= 9 <= best["end_line"]  # `def polish` is line 9
    assert best["url"] == (
        f"https://github.com/acme/widgets/blob/{commit}/src/widgets/app.py"
        f"#L{best['start_line']}-L{best['end_line']}"
    )
    assert best["number"] == 1 and best["docset"] == "widgets" and best["score"] > 0
    one = result_json(call(url, "search", {"query": "polish a widget until it shines", "k": 1}))
    assert one == hits[:1]  # no DocSets named = all

    answer = result_json(call(url, "ask", {"question": "How do I polish widgets?"}))
    assert answer["citations"], answer
    for citation in answer["citations"]:
        assert f"[{citation['number']}]" in answer["answer"]
        assert citation["url"].startswith(f"https://github.com/acme/widgets/blob/{commit}/")
    cited_paths = {c["path"] for c in answer["citations"]}
    assert cited_paths & {"acme/widgets/src/widgets/app.py", "acme/widgets/docs/guide.md"}

    documents = result_json(call(url, "list_documents", {"docset": "widgets"}))
    assert {d["path"] for d in documents} == {
        "acme/widgets/src/widgets/app.py",
        "acme/widgets/docs/guide.md",
    }
    assert all(d["status"] == "done" and d["chunks"] >= 1 for d in documents)
    read = result_json(
        call(
            url,
            "read_document",
            {
                "docset": "widgets",
                "path": best["path"],
                "start_line": best["start_line"],
                "end_line": best["end_line"],
            },
        )
    )
    assert read["start_line"] == best["start_line"] and read["end_line"] == best["end_line"]
    assert "def polish" in read["text"]
    assert len(read["text"].split("\n")) == best["end_line"] - best["start_line"] + 1
    whole = result_json(call(url, "read_document", {"docset": "widgets", "path": best["path"]}))
    assert whole["start_line"] == 1 and whole["end_line"] == whole["total_lines"]
    assert read["text"] in whole["text"]
    missing = error_text(
        call(url, "read_document", {"docset": "widgets", "path": "acme/widgets/ghost.py"})
    )
    assert "ghost.py" in missing and "Traceback" not in missing

    resynced = result_json(call(url, "resync_source", {"source_id": report["source_id"]}))
    assert resynced["unchanged"] == 2 and resynced["new_or_changed"] == 0

    guide = "acme/widgets/docs/guide.md"
    removed = result_json(call(url, "remove_documents", {"docset": "widgets", "paths": [guide]}))
    assert removed == {"removed": [guide]}
    left = result_json(call(url, "list_documents", {"docset": "widgets"}))
    assert [d["path"] for d in left] == ["acme/widgets/src/widgets/app.py"]
    hits = result_json(call(url, "search", {"query": "polish a widget", "docsets": ["widgets"]}))
    assert all(hit["path"] != guide for hit in hits)
    gone = error_text(call(url, "remove_documents", {"docset": "widgets", "paths": [guide]}))
    assert "guide.md" in gone and "Traceback" not in gone


def test_tool_errors_are_readable(
    store: Store, embedder: LocalEmbedder, github: FakeGithub, launch_app: Callable[..., str]
) -> None:
    service: RagspaceService = make_service(store, embedder, github)
    url = launch_app(service)
    message = error_text(call(url, "search", {"query": "x", "docsets": ["ghost"]}))
    assert "ghost" in message and "Traceback" not in message
