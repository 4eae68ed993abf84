"""`ragspace mcp`: a real subprocess driven by the `mcp` client over stdio and HTTP, against the
real embedded Postgres and the local model."""

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx
import psutil
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from ragspace.actions import Actions
from ragspace.ingestion.worker import Ingestor
from ragspace.sources.files import UploadedFile
from ragspace_ui.mcp_tools import CHANGE_TOOLS, READ_TOOLS
from ragspace_ui.server import free_local_port

T = TypeVar("T")
DATA = Path(__file__).parent.parent / "data"
SCRIPT = str(Path(sys.executable).parent / "ragspace")
# the first message of a session, as a client sends it over a raw pipe or HTTP
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
CLEARED = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GITHUB_TOKEN",
    "RAGSPACE_AUTH",
    "RAGSPACE_READ_ONLY",
    "RAGSPACE_LOG_LEVEL",
)


@pytest.fixture
def handbook(service: Actions, ingestor: Ingestor) -> Actions:
    """DocSet `handbook` (a deployment guide and a glossary), embedded."""
    service.docsets.create("handbook", "Team handbook")
    names = ("deployment-guide.md", "glossary.rst")
    service.sources.add_files("handbook", [UploadedFile(n, (DATA / n).read_bytes()) for n in names])
    ingestor.process_all()
    return service


def server_env(database_url: str | None, data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of a `ragspace mcp` process: this test's database, nothing inherited
    that would change it."""
    env = {k: v for k, v in os.environ.items() if k not in CLEARED and k != "DATABASE_URL"}
    env |= {"RAGSPACE_DATA_DIR": str(data_dir)}
    if database_url:
        env["DATABASE_URL"] = database_url
    return env | extra


def over_stdio(
    env: dict[str, str], action: Callable[[ClientSession], Awaitable[T]], *args: str
) -> T:
    """Run `action` in an initialised session with a `ragspace mcp` subprocess."""

    async def run() -> T:
        params = StdioServerParameters(command=SCRIPT, args=["mcp", *args], env=env)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await action(session)

    return asyncio.run(run())


def payload(result: CallToolResult) -> Any:
    assert not result.isError, result.content
    [content] = result.content
    assert content.type == "text"
    return json.loads(content.text)


def error_of(result: CallToolResult) -> str:
    assert result.isError
    return " ".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.usefixtures("handbook")
def test_stdio_lists_searches_reads_and_asks(database_url: str, tmp_path: Path) -> None:
    async def session_work(session: ClientSession) -> dict[str, Any]:
        tools = (await session.list_tools()).tools
        found = payload(
            await session.call_tool("search", {"query": "How do I roll back a deployment?"})
        )
        hit = found["hits"][0]
        read = payload(
            await session.call_tool(
                "read_document",
                {
                    "docset": hit["docset"],
                    "path": hit["path"],
                    "start_line": hit["start_line"],
                    "end_line": hit["end_line"],
                },
            )
        )
        asked = payload(
            await session.call_tool(
                "ask", {"question": "How do I roll back a deployment?", "docsets": "handbook"}
            )
        )
        return {"tools": tools, "found": found, "read": read, "asked": asked}

    got = over_stdio(server_env(database_url, tmp_path / "data"), session_work)
    tools = {tool.name: tool for tool in got["tools"]}
    # the web endpoint's tools, descriptions and annotations
    assert set(tools) == {*READ_TOOLS, *CHANGE_TOOLS}
    assert tools["search"].inputSchema["required"] == ["query"]
    assert tools["search"].inputSchema["properties"]["k"]["default"] == 8
    assert tools["search"].annotations and tools["search"].annotations.readOnlyHint is True
    assert tools["remove_documents"].annotations.destructiveHint is True  # type: ignore[union-attr]
    hit = got["found"]["hits"][0]
    assert hit["docset"] == "handbook" and hit["path"] == "deployment-guide.md"
    assert hit["view_url"].startswith("http://127.0.0.1:7860/")  # the app's viewer, from settings
    assert "roll" in got["read"]["text"].lower()
    assert got["read"]["start_line"] == hit["start_line"]
    assert got["asked"]["citations"] and "[1]" in got["asked"]["answer"]
    assert got["asked"]["citations"][0]["path"] == "deployment-guide.md"


@pytest.mark.usefixtures("handbook")
def test_stdio_read_only_offers_reading_tools_and_forgives_inputs(
    database_url: str, tmp_path: Path
) -> None:
    async def session_work(session: ClientSession) -> dict[str, Any]:
        return {
            "tools": {t.name for t in (await session.list_tools()).tools},
            "forgiven": await session.call_tool(
                "search", {"query": "roll back", "docsets": "handbook", "k": 500, "limit": 3}
            ),
            "unknown": await session.call_tool("search", {"query": "x", "docsets": ["handbok"]}),
            "missing": await session.call_tool("search", {"docsets": ["handbook"]}),
            "change": await session.call_tool("create_docset", {"name": "new"}),
        }

    got = over_stdio(server_env(database_url, tmp_path / "data"), session_work, "--read-only")
    assert got["tools"] == set(READ_TOOLS)
    forgiven = payload(got["forgiven"])
    assert forgiven["hits"] and {h["docset"] for h in forgiven["hits"]} == {"handbook"}
    assert "k=500 is out of range (1 to 50); used 50." in forgiven["input_notes"]
    assert any("Ignored 'limit'" in n for n in forgiven["input_notes"])
    unknown = error_of(got["unknown"])
    assert "'handbok' does not exist" in unknown and "Did you mean 'handbook'?" in unknown
    assert "schema" not in unknown
    assert "search needs 'query'" in error_of(got["missing"])
    assert "no tool 'create_docset'" in error_of(got["change"])


def test_stdio_stdout_holds_protocol_messages_only(database_url: str, tmp_path: Path) -> None:
    """Raw pipes: each stdout line is a JSON-RPC message; at end of input the server exits."""
    env = server_env(database_url, tmp_path / "data", RAGSPACE_LOG_LEVEL="DEBUG")
    process = subprocess.Popen(
        [SCRIPT, "mcp"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = process.communicate(json.dumps(INITIALIZE) + "\n", timeout=120)
    assert process.returncode == 0, err
    lines = out.splitlines()
    assert [json.loads(line)["id"] for line in lines] == [1]
    assert json.loads(lines[0])["result"]["serverInfo"]["name"] == "ragspace"
    assert "RAGSpace MCP server ready" in err  # logs went to stderr, at the level asked
    # the agent is told which database this is, and that it is empty (this test's is)
    instructions = json.loads(lines[0])["result"]["instructions"]
    database = database_url.split("?")[0].rsplit("/", 1)[1]
    assert f"This server's database (DATABASE_URL, database {database} on " in instructions
    assert "holds no DocSets" in instructions and "RAGSPACE_DATA_DIR" in instructions


def test_stdio_bounds_a_line_that_never_ends(database_url: str, tmp_path: Path) -> None:
    """64 MB without a newline: the server holds at most its line limit, answers the line with
    a JSON-RPC error, keeps serving the next line, and exits at the end of input."""
    process = subprocess.Popen(
        [SCRIPT, "mcp"],
        env=server_env(database_url, tmp_path / "data"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    process.stdin.flush()
    assert json.loads(process.stdout.readline())["id"] == 1  # serving
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    process.stdin.write(json.dumps(initialized).encode() + b"\n")
    memory = psutil.Process(process.pid)
    idle = peak = memory.memory_info().rss
    megabyte = b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"x": "'
    megabyte += b"A" * (2**20 - len(megabyte))
    for _ in range(64):  # each write returns once the server has read most of the one before
        process.stdin.write(megabyte)
        process.stdin.flush()
        peak = max(peak, memory.memory_info().rss)
    listing = {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}
    process.stdin.write(b"\n" + json.dumps(listing).encode() + b"\n")
    process.stdin.flush()
    answers = [json.loads(process.stdout.readline()) for _ in range(2)]
    process.stdin.close()
    assert process.stdout.read() == b""  # nothing else: the long line was not read as a request
    assert process.wait(timeout=60) == 0
    assert peak - idle < 32 * 2**20, f"grew {(peak - idle) / 2**20:.0f} MB"
    too_long, listed = answers
    assert too_long["id"] is None and too_long["error"]["code"] == -32600
    assert "limited to 4,194,304 bytes" in too_long["error"]["message"]
    assert listed["id"] == 3 and {t["name"] for t in listed["result"]["tools"]} >= {"search"}


@pytest.mark.slow  # initialises an embedded Postgres of its own
def test_stdio_starts_the_embedded_database_when_it_is_not_up() -> None:
    # not under pytest's tmp_path: the server may run as another user (see conftest)
    folder = Path(tempfile.mkdtemp(prefix="ragspace-test-mcp-"))
    try:

        async def run() -> tuple[str | None, Any, Any]:
            env = server_env(None, folder / "data")
            params = StdioServerParameters(command=SCRIPT, args=["mcp"], env=env)
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                started = await s.initialize()
                empty = payload(await s.call_tool("list_docsets", {}))
                await s.call_tool("create_docset", {"name": "notes"})
                return started.instructions, empty, payload(await s.call_tool("list_docsets", {}))

        instructions, empty, listed = asyncio.run(run())
        assert [d["name"] for d in listed] == ["notes"]
        assert (folder / "data" / "pgdata" / "PG_VERSION").exists()
        # a new, empty database says so, and which folder it is in (an agent started without
        # RAGSPACE_DATA_DIR gets one, and still reports "Connected")
        place = f"the embedded Postgres in {folder / 'data'}"
        assert instructions and f"({place}) holds no DocSets" in instructions
        assert empty["result"] == [] and f"({place}) holds no DocSets" in empty["notes"][0]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def http_server(database_url: str, tmp_path: Path) -> Iterator[str]:
    """`ragspace mcp --http PORT` with a login configured; yields its endpoint once it answers."""
    env = server_env(database_url, tmp_path / "data", RAGSPACE_AUTH="ann:s3cret")
    with running_http_server(env) as url:
        yield url


@contextmanager
def running_http_server(env: dict[str, str]) -> Iterator[str]:
    """`ragspace mcp --http PORT` in this environment; its endpoint once it answers."""
    port = free_local_port()
    process = subprocess.Popen(
        [SCRIPT, "mcp", "--http", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/mcp/"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "the server never answered"
            try:
                httpx.get(url, timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.1)  # polling for the port: the event waited for
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def over_http(
    url: str, headers: dict[str, str], action: Callable[[ClientSession], Awaitable[T]]
) -> T:
    async def run() -> T:
        async with (
            httpx.AsyncClient(headers=headers, timeout=60) as http,
            streamable_http_client(url, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await action(session)

    return asyncio.run(run())


@pytest.mark.usefixtures("handbook")
def test_http_requires_the_login(http_server: str) -> None:
    # no credentials, or wrong ones: refused before any MCP message is read
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    accept = {"Accept": "application/json, text/event-stream"}
    for headers in ({}, {"X-Ragspace-Auth": "ann:wrong"}, {"Authorization": "Bearer ann:nope"}):
        refused = httpx.post(http_server, json=initialize, headers=accept | headers, timeout=30)
        assert refused.status_code == 401
        assert "requires a login" in refused.json()["error"]

    async def search(session: ClientSession) -> Any:
        return payload(await session.call_tool("search", {"query": "roll back a deployment"}))

    for login in ({"X-Ragspace-Auth": "ann:s3cret"}, {"Authorization": "Bearer ann:s3cret"}):
        found = over_http(http_server, login, search)
        assert found["hits"][0]["path"] == "deployment-guide.md"


def test_http_answers_at_mcp_with_and_without_a_slash(http_server: str) -> None:
    """No redirect either way: MCP Inspector reads a URL ending in /mcp as streamable HTTP
    (anything else as the old SSE transport), other clients send the README's /mcp/."""
    headers = {"Accept": "application/json, text/event-stream", "X-Ragspace-Auth": "ann:s3cret"}
    base = http_server.rstrip("/")
    for url in (base, base + "/"):
        answer = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
        assert answer.status_code == 200, (url, answer.status_code)
        assert "ragspace" in answer.text
    assert httpx.post(base + "/other", json=INITIALIZE, headers=headers).status_code == 404


def test_an_agent_adds_a_website_and_waits_for_this_process_to_embed_it(
    database_url: str, tmp_path: Path
) -> None:
    """The server embeds in-process: add_website_source, poll job_status, search the pages
    (the site publishes llms.txt, which the source reads)."""
    from tests.fakes.llms_site import running_llms_site

    async def session_work(session: ClientSession) -> dict[str, Any]:
        await session.call_tool("create_docset", {"name": "beacon"})
        with running_llms_site() as site:
            added = payload(
                await session.call_tool(
                    "add_website_source",
                    {"docset": "beacon", "url": f"{site.origin}/docs/", "path_prefix": "/docs/"},
                )
            )
        deadline = time.monotonic() + 120
        while not (status := payload(await session.call_tool("job_status", {"docset": "beacon"})))[
            "done"
        ]:
            assert time.monotonic() < deadline, status
            await asyncio.sleep(0.2)  # polling job_status, as the instructions tell agents to
        found = payload(
            await session.call_tool(
                "search", {"query": "Which port does the web console use?", "docsets": "beacon"}
            )
        )
        return {"added": added, "status": status, "found": found}

    env = server_env(database_url, tmp_path / "data", RAGSPACE_ALLOW_PRIVATE_URLS="true")
    got = over_stdio(env, session_work)
    assert got["added"]["resolved"].endswith("/llms.txt")
    assert got["status"]["documents"]["done"] == got["added"]["new_or_changed"] == 12
    assert got["found"]["hits"][0]["path"].endswith("/docs/faq.md")


@pytest.mark.slow  # a fresh embedded Postgres, as a new user's first start
def test_the_config_install_writes_starts_a_working_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the README's agent section promises: run the entry `mcp install` wrote, as the
    agent would (its command, args and env, from another folder), and use the tools."""
    folder = Path(tempfile.mkdtemp(prefix="ragspace-test-install-"))
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("RAGSPACE_DATA_DIR", str(folder / "data"))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    from ragspace_cli.main import main

    try:
        assert main(["mcp", "install", "claude-code"]) == 0
        entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["ragspace"]
        env = server_env(None, folder / "data") | entry["env"]

        async def run() -> list[str]:
            params = StdioServerParameters(
                command=entry["command"], args=entry["args"], env=env, cwd=str(tmp_path)
            )
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                return [t.name for t in (await s.list_tools()).tools]

        assert set(asyncio.run(run())) == {*READ_TOOLS, *CHANGE_TOOLS}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize(
    ("stream", "lines"),
    [
        (b"abcd\nabcde\nab", [b"abcd", None, b"ab"]),  # 4 bytes pass, 5 do not; no final \n
        (b"x" * 9 + b"\nok\n" + b"y" * 7, [None, b"ok", None]),  # reported once, as it runs
        (b"\n\n", [b"", b""]),
    ],
)
def test_split_lines_holds_at_most_the_limit(stream: bytes, lines: list[bytes | None]) -> None:
    from ragspace_mcp.stdio_transport import split_lines

    pieces = iter([stream[i : i + 3] for i in range(0, len(stream), 3)] + [b""])
    assert list(split_lines(lambda _: next(pieces), 4)) == lines
