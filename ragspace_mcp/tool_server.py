"""`ragspace mcp`: the MCP tools served without the web app, over stdio or streamable HTTP.

The same tool functions as the web app's endpoint (`read_tools`, `change_tools`) over
the same actions, described by `catalog` and served by the `mcp` package's low-level
`Server` (the one Gradio builds on), so the command starts without Gradio. Arguments are
forgiven first (`inputs`); errors of the actions come back as the tool's error text.
"""

import inspect
import json
import logging
import os
import sys
from collections.abc import Callable
from io import TextIOWrapper
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server

from ragspace import __version__
from ragspace.actions import Actions
from ragspace.errors import RagspaceError
from ragspace_mcp.annotations import ANNOTATIONS, INSTRUCTIONS
from ragspace_mcp.catalog import tool_listing, tools_for
from ragspace_mcp.inputs import prepare, with_notes
from ragspace_mcp.stdio_transport import serve_until_stopped, stdio_streams

log = logging.getLogger(__name__)

UNEXPECTED = "Something went wrong on the server. The details are in the server's log (stderr)."

ToolServer = Server[Any, Any]


def error_result(message: str) -> types.CallToolResult:
    """A failed call: the message as the tool's text, flagged as an error."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], isError=True
    )


def run_tool(actions: Actions, tool: Callable[..., str], arguments: Any, app_url: str) -> str:
    """Call one tool with forgiven arguments; its JSON text with the input notes."""
    prepared = prepare(tool, arguments if isinstance(arguments, dict) else {})
    extra = {"app_url": app_url} if "app_url" in inspect.signature(tool).parameters else {}
    return with_notes(tool(actions, **prepared.arguments, **extra), prepared.notes)


def empty_database_note(database: str) -> str:
    """What an agent is told when the database holds no DocSet: where it is, what to do."""
    return (
        f"This server's database ({database}) holds no DocSets. If you expected some, the "
        "server was started on another database: set RAGSPACE_DATA_DIR (or DATABASE_URL) in "
        "its config to the one RAGSpace uses. Otherwise create one with create_docset and add "
        "sources."
    )


def instructions_for(actions: Actions, database: str | None) -> str:
    """The server's instructions, with where its database is and whether it is empty."""
    if database is None:
        return INSTRUCTIONS
    if not actions.docsets.all():
        return f"{INSTRUCTIONS} {empty_database_note(database)}"
    return f"{INSTRUCTIONS} This server's database: {database}."


def with_database(text: str, database: str | None) -> str:
    """list_docsets' result; when empty, with the note saying which database is empty."""
    if database is None or json.loads(text) != []:
        return text
    return json.dumps({"result": [], "notes": [empty_database_note(database)]}, indent=1)


def build_server(actions: Actions, app_url: str, database: str | None = None) -> ToolServer:
    """The MCP server of these actions: the reading tools, and the changing ones unless
    read-only. `app_url` is where the web app's viewer would open a hit's lines; `database`
    says where the data is (a folder, a host), for an agent told it is empty."""
    tools = {tool.__name__: tool for tool in tools_for(actions.read_only)}
    listing = [tool_listing(tool, ANNOTATIONS.get(name)) for name, tool in tools.items()]
    instructions = instructions_for(actions, database)
    server: ToolServer = Server("ragspace", version=__version__, instructions=instructions)

    @server.list_tools()  # type: ignore[no-untyped-call, untyped-decorator]
    async def list_tools() -> list[types.Tool]:
        return listing

    # our own checks replace the schema's (`inputs`): they forgive what they can
    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
        tool = tools.get(name)
        if tool is None:
            return error_result(f"There is no tool {name!r}; the tools are {', '.join(tools)}.")
        try:
            text = await anyio.to_thread.run_sync(run_tool, actions, tool, arguments, app_url)
        except RagspaceError as exc:
            return error_result(str(exc))
        except Exception:
            log.exception("Unexpected error in MCP tool %s", name)
            return error_result(UNEXPECTED)
        if name == "list_docsets":
            text = with_database(text, database)
        return [types.TextContent(type="text", text=text)]

    return server


def protocol_stdout() -> TextIOWrapper:
    """The process's stdout for MCP messages only; file descriptor 1 then points at stderr.

    Anything else that writes to stdout (a stray print, a child process such as the embedded
    Postgres' pg_ctl) would corrupt the protocol stream, so it goes to stderr instead.
    """
    sys.stdout.flush()
    protocol = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return TextIOWrapper(os.fdopen(protocol, "wb", buffering=0), encoding="utf-8")


async def serve_stdio(server: ToolServer, stdout: TextIOWrapper) -> None:
    """Serve MCP on stdin/stdout until the client closes stdin, or SIGTERM or SIGINT."""

    async def serve() -> None:
        async with stdio_streams(sys.stdin.fileno(), stdout) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    await serve_until_stopped(serve)
