"""The MCP server: an `mcp` client lists the tools and calls them against the running app."""

import asyncio
import inspect
import json
import re
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import httpx
import pytest
from gradio_client import Client
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, InitializeResult, Tool

from ragspace.access import Credentials
from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder
from ragspace.errors import AuthenticationError
from ragspace.ingestion.worker import Ingestor, WorkerPool
from ragspace.models import SearchQuery
from ragspace.runtime import build_actions, build_chunker
from ragspace.settings import (
    LOCAL_RELEVANCE_FLOOR_CODE,
    LOCAL_RELEVANCE_FLOOR_PROSE,
    Settings,
    load_settings,
)
from ragspace.sources.files import UploadedFile
from ragspace.sources.github_client import GithubClient, GithubConfig
from ragspace.sources.github_fetcher import GithubFetcher
from ragspace.sources.sync import SourceSyncer
from ragspace.store import Store
from ragspace.text.tokens import count_tokens
from ragspace_mcp import read_tools as mcp_read_tools
from ragspace_ui.mcp_tools import CHANGE_TOOLS, READ_TOOLS, Gate, bind, bound_tools
from tests.fakes.github_server import FakeGithub, FakeRepo
from tests.sources.test_github_source import FILES, make_service

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
def repo(github: FakeGithub) -> FakeRepo:
    repo = github.add_repo("acme", "widgets", default_branch="trunk")
    repo.commit(FILES)
    return repo


def server_description(url: str) -> tuple[InitializeResult, list[Tool]]:
    """The initialize result and the tools/list answer, as an MCP client receives them."""

    async def run() -> tuple[InitializeResult, list[Tool]]:
        async with (
            httpx.AsyncClient(timeout=30) as http,
            streamable_http_client(url.rstrip("/") + "/gradio_api/mcp/", http_client=http) as (
                read,
                write,
                _,
            ),
            ClientSession(read, write) as session,
        ):
            initialized = await session.initialize()
            return initialized, (await session.list_tools()).tools

    return asyncio.run(run())


def test_tools_are_listed_with_descriptions_schemas_and_annotations(
    store: Store,
    embedder: Embedder,
    github: FakeGithub,
    launch_app: Callable[..., str],
) -> None:
    url = launch_app(make_service(store, embedder, github))
    initialized, listed = server_description(url)
    tools = {tool.name: tool for tool in listed}
    # exactly the tools: no UI event handler leaks into MCP
    assert set(tools) == {*READ_TOOLS, *CHANGE_TOOLS}
    search = tools["search"]
    assert search.description and "passages" in search.description
    assert "url" in search.description  # the Returns section tells the assistant the fields
    properties = search.inputSchema["properties"]
    assert set(properties) == {
        "query",
        "docsets",
        "k",
        "max_tokens",
        "ref",
        "expand",
        "show_hidden",
    }
    assert properties["show_hidden"]["type"] == "boolean"
    assert search.inputSchema["required"] == ["query"]
    assert properties["k"]["type"] == "integer" and properties["k"]["default"] == 8
    assert "DocSets" in properties["docsets"]["description"]
    assert "tokens" in properties["max_tokens"]["description"]
    assert set(tools["ask"].inputSchema["properties"]) == {
        "question",
        "docsets",
        "k",
        "max_tokens",
        "ref",
    }
    assert "version" in properties["ref"]["description"]
    assert "ref" in tools["read_document"].inputSchema["properties"]
    assert set(tools["job_status"].inputSchema["properties"]) == {"docset", "source_id"}
    # the score scale and the floor's values are what the settings use
    assert "0 to 1" in search.description
    assert f"{LOCAL_RELEVANCE_FLOOR_PROSE:.2f} for prose" in search.description
    assert f"{LOCAL_RELEVANCE_FLOOR_CODE:.2f} for code" in search.description
    texts = [t.description or "" for t in listed] + [
        str(schema.get("description", ""))
        for t in listed
        for schema in t.inputSchema["properties"].values()
    ]
    assert all(texts[: len(listed)]) and not [text for text in texts if ",," in text]

    # annotations: reading tools are read-only, the others say what they change
    for name in READ_TOOLS:
        hints = tools[name].annotations
        assert hints and hints.readOnlyHint is True and hints.openWorldHint is False, name
    for name in CHANGE_TOOLS:
        hints = tools[name].annotations
        assert hints and hints.readOnlyHint is False and hints.title, name
    assert tools["remove_documents"].annotations.destructiveHint is True  # type: ignore[union-attr]
    assert tools["sync_source"].annotations.destructiveHint is True  # type: ignore[union-attr]
    assert tools["create_docset"].annotations.destructiveHint is False  # type: ignore[union-attr]
    assert tools["add_github_source"].annotations.openWorldHint is True  # type: ignore[union-attr]
    assert tools["remove_documents"].annotations.idempotentHint is True  # type: ignore[union-attr]
    # instructions: what RAGSpace is and the intended flow
    instructions = initialized.instructions or ""
    assert "DocSets" in instructions
    flow = instructions.split("Intended flow:", 1)[1]
    positions = [
        match.start()
        for name in ("list_docsets", "search", "read_document", "ask")
        if (match := re.search(rf"\b{name}\b", flow))
    ]
    assert len(positions) == 4 and positions == sorted(positions), instructions
    assert "job_status" in flow

    # the Gradio HTTP API offers the same endpoints and nothing else
    endpoints = Client(url, verbose=False).view_api(print_info=False, return_format="dict")
    assert set(endpoints["named_endpoints"]) == {f"/{name}" for name in tools}


def test_ingest_search_and_ask_over_mcp(
    store: Store,
    embedder: Embedder,
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

    found = result_json(
        call(url, "search", {"query": "polish a widget until it shines", "docsets": ["widgets"]})
    )
    assert found["truncated"] is False and found["dropped_hits"] == 0
    hits = found["hits"]
    best = hits[0]
    commit = repo.refs["trunk"]
    assert best["path"] == "acme/widgets/src/widgets/app.py"
    assert "Polish a widget until it shines" in best["snippet"]
    assert best["start_line"] <= 9 <= best["end_line"]  # `def polish` is line 9
    assert best["url"] == (
        f"https://github.com/acme/widgets/blob/{commit}/src/widgets/app.py"
        f"#L{best['start_line']}-L{best['end_line']}"
    )
    assert best["number"] == 1 and best["docset"] == "widgets" and 0 < best["score"] <= 1
    one = result_json(call(url, "search", {"query": "polish a widget until it shines", "k": 1}))
    assert one["hits"] == hits[:1]  # no DocSets named = all

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

    resynced = result_json(call(url, "sync_source", {"source_id": report["source_id"]}))
    assert resynced["unchanged"] == 2 and resynced["new_or_changed"] == 0
    assert resynced["progress"]["done"] is True

    guide = "acme/widgets/docs/guide.md"
    removed = result_json(call(url, "remove_documents", {"docset": "widgets", "paths": [guide]}))
    assert removed == {"removed": [guide]}
    left = result_json(call(url, "list_documents", {"docset": "widgets"}))
    assert [d["path"] for d in left] == ["acme/widgets/src/widgets/app.py"]
    hits = result_json(call(url, "search", {"query": "polish a widget", "docsets": ["widgets"]}))
    assert hits["hits"] and all(hit["path"] != guide for hit in hits["hits"])
    gone = error_text(call(url, "remove_documents", {"docset": "widgets", "paths": [guide]}))
    assert "guide.md" in gone and "Traceback" not in gone


def test_tool_errors_are_readable(
    store: Store, embedder: Embedder, github: FakeGithub, launch_app: Callable[..., str]
) -> None:
    service: Actions = make_service(store, embedder, github)
    url = launch_app(service)
    message = error_text(call(url, "search", {"query": "x", "docsets": ["ghost"]}))
    assert "ghost" in message and "Traceback" not in message


HANDBOOK = """# Operations handbook

## Backups

Nightly backups of the database run at 02:00 and are kept for thirty days.
Each backup is a compressed snapshot stored in the backup bucket.

## Restoring a backup

To restore the latest backup, stop the service first.
Then run `restore-backup --latest` and wait until it reports success.
Start the service again and check that yesterday's records are present.

## Monitoring

Dashboards show request latency, error rates and queue depth.
An alert pages the on-call engineer when errors exceed one percent.

## Rotating logs

Log files are rotated weekly and compressed after rotation.
"""


class SignallingIngestor(Ingestor):
    """An Ingestor that sets `processed` after each job it handled (tests wait on it)."""

    def __init__(self, store: Store, settings: Settings, embedder: Embedder) -> None:
        super().__init__(store, build_chunker(settings), embedder)
        self.processed = threading.Event()

    def process_next(self) -> bool:
        busy = super().process_next()
        if busy:
            self.processed.set()
        return busy


@pytest.fixture
def workers(store: Store, embedder: Embedder) -> Iterator[tuple[SignallingIngestor, WorkerPool]]:
    """A background worker thread, as `ragspace serve` runs, whose jobs tests can wait for."""
    ingestor = SignallingIngestor(store, load_settings(env_file=None), embedder)
    pool = WorkerPool(ingestor, threads=1, idle_seconds=60)
    pool.start()
    yield ingestor, pool
    pool.stop()


def wait_until_done(
    url: str, arguments: dict[str, Any], worker: SignallingIngestor, seconds: float = 120
) -> dict[str, Any]:
    """Poll job_status after each job the worker finishes, until done (or the deadline)."""
    deadline = time.monotonic() + seconds
    while True:
        worker.processed.clear()  # before asking: a job finishing meanwhile wakes the wait
        status: dict[str, Any] = result_json(call(url, "job_status", arguments))
        if status["done"]:
            return status
        left = deadline - time.monotonic()
        assert left > 0, f"ingestion not done in {seconds} s: {status}"
        worker.processed.wait(left)


def test_an_agent_lists_searches_reads_adds_a_source_waits_and_asks(
    store: Store,
    embedder: Embedder,
    github: FakeGithub,
    repo: FakeRepo,
    workers: tuple[SignallingIngestor, WorkerPool],
    launch_app: Callable[..., str],
) -> None:
    worker, pool = workers
    config = GithubConfig(
        api_url=github.base_url, timeout_seconds=5, max_file_bytes=2000, allow_private_urls=True
    )
    syncer = SourceSyncer(store, [GithubFetcher(GithubClient(config), config.max_file_bytes)])
    service = build_actions(
        load_settings(env_file=None), store, embedder, on_new_work=pool.wake, syncer=syncer
    )
    service.docsets.create("handbook", "How we run the service")
    service.sources.add_files("handbook", [UploadedFile("handbook.md", HANDBOOK.encode())])
    url = launch_app(service)
    assert wait_until_done(url, {"docset": "handbook"}, worker)["documents"]["done"] == 1

    # 1. list DocSets
    [handbook] = result_json(call(url, "list_docsets", {}))
    assert handbook["name"] == "handbook" and handbook["searchable"] and handbook["chunks"] >= 3

    # 2. search: 0-1 scores, nothing below the relevance floor, then within a token budget
    query = "how do I restore the latest backup"
    full = result_json(call(url, "search", {"query": query, "docsets": ["handbook"], "k": 8}))
    hits = full["hits"]
    assert len(hits) >= 2 and not full["truncated"], full
    assert hits[0]["context"].endswith("Restoring a backup")
    # a person opens the same lines in the app (the address the agent reached it at)
    first = hits[0]
    assert first["view_url"] == (
        f"{url.rstrip('/')}/?docset=handbook&path=handbook.md"
        f"&lines={first['focus_start_line']}-{first['focus_end_line']}"
    )
    assert all(LOCAL_RELEVANCE_FLOOR_PROSE <= hit["score"] <= 1 for hit in hits)
    raw = service.search.hits(
        SearchQuery(question=query, docsets=("handbook",), limit=8, floor=False)
    )  # what the floor keeps out
    assert len(raw) > len(hits) and {h.path for h in raw} == {"handbook.md"}
    assert full["tokens"] == sum(count_tokens(hit["snippet"]) for hit in hits)
    budget = count_tokens(hits[0]["snippet"]) + count_tokens(hits[1]["snippet"]) - 1
    cut = result_json(
        call(url, "search", {"query": query, "docsets": ["handbook"], "max_tokens": budget})
    )
    assert cut["hits"] == hits[:1]  # whole hits, best first
    assert cut["truncated"] is True and cut["dropped_hits"] == len(hits) - 1
    assert cut["tokens"] == count_tokens(hits[0]["snippet"]) <= budget
    nothing = result_json(call(url, "search", {"query": query, "max_tokens": 1}))
    assert nothing["hits"] == [] and nothing["dropped_hits"] == len(hits)

    # 3. read the cited range: exactly those lines of the uploaded file
    best = hits[0]
    read = result_json(
        call(
            url,
            "read_document",
            {
                "docset": "handbook",
                "path": best["path"],
                "start_line": best["focus_start_line"],
                "end_line": best["focus_end_line"],
            },
        )
    )
    lines = HANDBOOK.split("\n")
    expected = lines[best["focus_start_line"] - 1 : best["focus_end_line"]]
    assert read["text"] == "\n".join(expected) and "restore-backup --latest" in read["text"]
    assert (read["start_line"], read["end_line"]) == (
        best["focus_start_line"],
        best["focus_end_line"],
    )

    # 4. add a GitHub source and poll job_status until its documents are embedded
    assert result_json(call(url, "create_docset", {"name": "widgets"}))["documents"] == 0
    report = result_json(
        call(
            url,
            "add_github_source",
            {"docset": "widgets", "location": "acme/widgets", "include": "src/**, docs/*.md"},
        )
    )
    assert report["new_or_changed"] == 2 and "job_status" in report["note"]
    status = wait_until_done(url, {"source_id": report["source_id"]}, worker)
    assert status["documents"] == {
        "total": 2,
        "pending": 0,
        "processing": 0,
        "done": 2,
        "error": 0,
    }
    assert status["chunks"]["embedded"] == status["chunks"]["total"] >= 2
    assert result_json(call(url, "job_status", {"docset": "widgets"})) == status
    wrong = error_text(call(url, "job_status", {"docset": "handbook", "source_id": 999}))
    assert "999" in wrong and "Traceback" not in wrong

    # 5. ask: a lean answer, citations with their verification and location only
    answer = result_json(
        call(url, "ask", {"question": "How do I polish a widget?", "docsets": ["widgets"]})
    )
    assert set(answer) == {"answer", "citations", "notes", "truncated", "dropped_passages"}
    assert answer["citations"] and not answer["truncated"]
    assert "**Sources**" not in answer["answer"]  # the citations are the sources
    commit = repo.refs["trunk"]
    for citation in answer["citations"]:
        assert set(citation) == {
            *("number", "docset", "title", "path", "start_line", "end_line"),
            *("focus_start_line", "focus_end_line", "url", "view_url", "verification", "quote"),
            *("ref", "resolved_sha", "indexed_at"),
        }
        assert citation["ref"] == "trunk" and citation["resolved_sha"] == repo.refs["trunk"]
        assert f"[{citation['number']}]" in answer["answer"]
        assert citation["docset"] == "widgets"
        assert citation["url"].startswith(f"https://github.com/acme/widgets/blob/{commit}/")
        assert citation["start_line"] <= citation["focus_start_line"]
        assert citation["focus_end_line"] <= citation["end_line"]
        assert len(citation["quote"]) <= 162
    verified = [c for c in answer["citations"] if c["verification"] == "verified"]
    assert verified and all(c["quote"] for c in verified)
    # the k and max_tokens budget of ask
    question = "How do I polish a widget?"
    one = result_json(call(url, "ask", {"question": question, "k": 1}))
    assert len(one["citations"]) == 1
    starved = result_json(call(url, "ask", {"question": question, "max_tokens": 1}))
    assert starved["citations"] == [] and starved["truncated"] is True
    assert starved["dropped_passages"] >= 1


def test_without_mcp_the_app_still_starts(service: Actions, launch_app: Callable[..., str]) -> None:
    # the lifespan that describes the MCP server has nothing to describe
    url = launch_app(service, settings_override=load_settings(env_file=None, mcp_server=False))
    assert httpx.get(url, timeout=10).status_code == 200
    assert httpx.post(f"{url}gradio_api/mcp/", json={}, timeout=10).status_code == 404


def test_a_tool_is_a_plain_function_bound_behind_the_login_gate(service: Actions) -> None:
    service.docsets.create("handbook", "How we run things")
    # alone: a function of the actions and the tool's parameters
    [listed] = json.loads(mcp_read_tools.list_docsets(service))
    assert listed["name"] == "handbook" and listed["searchable"] is True
    # bound: the parameters an assistant fills in, a request for the gate, and the gate
    tool = bind(mcp_read_tools.list_documents, service, Gate(Credentials((("ann", "pw"),))))
    assert list(inspect.signature(tool).parameters) == ["docset", "request"]
    assert tool.__name__ == "list_documents" and "ingestion state" in (tool.__doc__ or "")
    with pytest.raises(AuthenticationError, match="requires a login"):
        tool("handbook")
    opened = bind(mcp_read_tools.list_documents, service, Gate(None))
    assert json.loads(opened("handbook")) == []
    assert bound_tools(service, Gate(None))[0].__name__ == READ_TOOLS[0]


def test_the_relevance_floor_is_worded_once_with_the_settings_values() -> None:
    assert f"{LOCAL_RELEVANCE_FLOOR_PROSE:.2f} for prose" in mcp_read_tools.RELEVANCE_FLOOR
    assert "{relevance_floor}" not in (mcp_read_tools.search.__doc__ or "")
    assert mcp_read_tools.RELEVANCE_FLOOR in " ".join((mcp_read_tools.search.__doc__ or "").split())
