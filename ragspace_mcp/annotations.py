"""What Gradio's MCP server cannot say by itself: tool annotations and server instructions.

Gradio 6 builds its MCP server (`gradio.mcp.GradioMCPServer`, the `mcp` package's low-level
`Server`) while the app launches, from the `gr.api` functions; it has no parameter for tool
annotations or instructions. The app's lifespan (FastAPI `lifespan` in `app_kwargs`, which
Gradio enters after creating that server and before serving) sets the low-level server's
`instructions`, sent in every `initialize` result, and wraps its `tools/list` handler to add
each tool's annotations.
"""

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp import types

from ragspace.errors import RagspaceError
from ragspace_mcp.catalog import tools_for
from ragspace_mcp.inputs import prepare, with_notes

INSTRUCTIONS = (
    "RAGSpace searches DocSets: named collections of documentation and code (GitHub "
    "repositories pinned to a commit, websites, uploaded files and folders), indexed with "
    "exact line ranges. Intended flow: list_docsets to see what exists (and whether it is "
    "searchable); search with a small k and max_tokens to find passages, each with a 0-1 "
    "score and a url to the exact lines; read_document with a hit's path and start_line/"
    "end_line to read a cited range or more context around it; for code, find_definition and "
    "find_references look a symbol up by name and repo_map lists the files and their most "
    "used definitions; ask for a written answer "
    "whose citations say whether their quote was verified in the cited lines. Tools that "
    "change data (create_docset, add_*_source, sync_source, remove_documents) are absent "
    "on read-only servers; after adding or syncing a source, poll job_status with its "
    "source_id until done is true before searching it."
)


def _read(title: str) -> types.ToolAnnotations:
    return types.ToolAnnotations(
        title=title,
        readOnlyHint=True,
        destructiveHint=False,
        idempotentHint=True,
        openWorldHint=False,
    )


def _change(
    title: str, destructive: bool, idempotent: bool, open_world: bool
) -> types.ToolAnnotations:
    return types.ToolAnnotations(
        title=title,
        readOnlyHint=False,
        destructiveHint=destructive,
        idempotentHint=idempotent,
        openWorldHint=open_world,
    )


ANNOTATIONS: dict[str, types.ToolAnnotations] = {
    "list_docsets": _read("List DocSets"),
    "search": _read("Search DocSets"),
    "ask": _read("Ask the DocSets"),
    "list_documents": _read("List a DocSet's documents"),
    "read_document": _read("Read a document's lines"),
    "job_status": _read("Ingestion progress"),
    "find_definition": _read("Find a symbol's definition"),
    "find_references": _read("Find a symbol's references"),
    "repo_map": _read("Map a DocSet's code"),
    # a second call with the same name fails: not idempotent
    "create_docset": _change("Create a DocSet", False, False, False),
    # fetch from GitHub or the web (open world); each call adds another source
    "add_github_source": _change("Add a GitHub source", False, False, True),
    "add_website_source": _change("Add a website source", False, False, True),
    # removes documents that vanished upstream; syncing twice changes nothing more
    "sync_source": _change("Re-sync a source", True, True, True),
    "remove_documents": _change("Remove documents", True, True, False),
}

Handler = Callable[[Any], Awaitable[types.ServerResult]]


def describe_server(server: Any, tool_to_endpoint: dict[str, str]) -> None:
    """Give the low-level MCP server the instructions and annotate the tools it lists.

    Tools are matched by their endpoint name (`/search`), so a Space's tool-name prefix
    does not matter.
    """
    server.instructions = INSTRUCTIONS
    listing: Handler = server.request_handlers[types.ListToolsRequest]

    async def list_tools(request: Any) -> types.ServerResult:
        result = (await listing(request)).root
        assert isinstance(result, types.ListToolsResult)
        tools = [
            tool.model_copy(
                update={"annotations": ANNOTATIONS.get(tool_to_endpoint.get(tool.name, "")[1:])}
            )
            for tool in result.tools
        ]
        return types.ServerResult(result.model_copy(update={"tools": tools}))

    server.request_handlers[types.ListToolsRequest] = list_tools
    forgive_arguments(server, tool_to_endpoint)


def forgive_arguments(server: Any, tool_to_endpoint: dict[str, str]) -> None:
    """Make each call's arguments what the tool takes before Gradio checks them against the
    schema (`inputs`: one name for a list, numbers clamped, unknown fields dropped), and
    return the notes saying so with the result."""
    calling: Handler = server.request_handlers[types.CallToolRequest]
    tools = {tool.__name__: tool for tool in tools_for(read_only=False)}

    async def call_tool(request: Any) -> types.ServerResult:
        tool = tools.get(tool_to_endpoint.get(request.params.name, "")[1:])
        if tool is None:
            return await calling(request)
        try:
            prepared = prepare(tool, request.params.arguments)
        except RagspaceError as exc:
            failed = types.TextContent(type="text", text=str(exc))
            return types.ServerResult(types.CallToolResult(content=[failed], isError=True))
        params = request.params.model_copy(update={"arguments": prepared.arguments})
        served = (await calling(request.model_copy(update={"params": params}))).root
        if not prepared.notes or not isinstance(served, types.CallToolResult) or served.isError:
            return types.ServerResult(served)
        first, *rest = served.content
        if isinstance(first, types.TextContent):
            first = first.model_copy(update={"text": with_notes(first.text, prepared.notes)})
        return types.ServerResult(served.model_copy(update={"content": [first, *rest]}))

    server.request_handlers[types.CallToolRequest] = call_tool


@asynccontextmanager
async def mcp_lifespan(app: Any) -> AsyncIterator[None]:
    """FastAPI lifespan: describe Gradio's MCP server (when on) once it exists."""
    mcp = getattr(app.get_blocks(), "mcp_server_obj", None)
    if mcp is not None:
        describe_server(mcp.mcp_server, mcp.tool_to_endpoint)
    yield
