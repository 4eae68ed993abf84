"""The MCP tools as an MCP server lists them, without Gradio: names, descriptions, schemas.

`ragspace mcp` (stdio, or HTTP without the web app) serves the same tool functions as the web
app's endpoint (`read_tools`, `change_tools`); Gradio describes those from their
docstrings itself, this module does the same for the `mcp` package's low-level server, so the
command starts without importing Gradio (about 2 s on the test machine).
"""

import inspect
import types as pytypes
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp import types

from ragspace_mcp.change_tools import CHANGE
from ragspace_mcp.read_tools import READ

# parameters a caller never fills in: the actions, and what the server knows itself
HIDDEN = ("actions", "app_url", "request")
SECTIONS = ("Args:", "Returns:")


@dataclass(frozen=True)
class Parameter:
    """One parameter an assistant fills in."""

    name: str
    kind: str  # "string", "integer", "boolean" or "array" (of strings)
    required: bool
    default: Any
    description: str


def tools_for(read_only: bool) -> tuple[Callable[..., str], ...]:
    """The tool functions a server offers: the reading ones, and the changing ones unless
    it is read-only (as the web app's endpoint)."""
    return READ if read_only else READ + CHANGE


def docstring_parts(tool: Callable[..., Any]) -> tuple[str, dict[str, str], str]:
    """A Google-style docstring's text, its Args (one entry per parameter, wrapped lines
    joined) and its Returns, each on one line."""
    text, args, returns = [], {}, []
    section = ""
    current = ""
    for raw in inspect.cleandoc(tool.__doc__ or "").splitlines():
        line = raw.strip()
        if line in SECTIONS:
            section = line
            continue
        if section == "Args:":
            name, colon, rest = line.partition(":")
            if colon and raw.startswith("    ") and not raw.startswith("        "):
                current = name.strip()
                args[current] = rest.strip()
            elif current and line:
                args[current] += " " + line
        elif section == "Returns:":
            returns.append(line)
        else:
            text.append(line)
    return " ".join(" ".join(text).split()), args, " ".join(" ".join(returns).split())


def kind_of(annotation: Any) -> str:
    """The JSON type of a parameter's annotation (`X | None` is X)."""
    if isinstance(annotation, pytypes.UnionType) or typing.get_origin(annotation) is typing.Union:
        [annotation] = [a for a in typing.get_args(annotation) if a is not type(None)]
    if annotation is int:
        return "integer"
    if annotation is bool:
        return "boolean"
    if typing.get_origin(annotation) is list:
        return "array"
    return "string"


def parameters(tool: Callable[..., Any]) -> list[Parameter]:
    """The parameters an assistant fills in, with their descriptions."""
    _, described, _ = docstring_parts(tool)
    hints = typing.get_type_hints(tool)
    return [
        Parameter(
            p.name,
            kind_of(hints[p.name]),
            p.default is inspect.Parameter.empty,
            None if p.default is inspect.Parameter.empty else p.default,
            described.get(p.name, ""),
        )
        for p in inspect.signature(tool).parameters.values()
        if p.name not in HIDDEN
    ]


def input_schema(tool: Callable[..., Any]) -> dict[str, Any]:
    """The tool's JSON schema: each parameter's type, default and description."""
    properties: dict[str, Any] = {}
    for p in parameters(tool):
        schema: dict[str, Any] = {"type": p.kind, "description": p.description}
        if p.kind == "array":
            schema["items"] = {"type": "string"}
        if p.default is not None:
            schema["default"] = p.default
        properties[p.name] = schema
    required = [p.name for p in parameters(tool) if p.required]
    return {"type": "object", "properties": properties, "required": required}


def description(tool: Callable[..., Any]) -> str:
    """The docstring's text and its Returns section, as the web endpoint describes it."""
    text, _, returns = docstring_parts(tool)
    return f"{text} Returns: {returns}" if returns else text


def tool_listing(tool: Callable[..., Any], annotations: types.ToolAnnotations | None) -> types.Tool:
    """The tool as `tools/list` returns it."""
    return types.Tool(
        name=tool.__name__,
        description=description(tool),
        inputSchema=input_schema(tool),
        annotations=annotations,
    )
