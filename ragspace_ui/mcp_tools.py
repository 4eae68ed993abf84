"""MCP tools (and the public HTTP API): the reading and changing tools bound to the app.

The tools themselves are plain functions of the actions (`read_tools`,
`change_tools`), each importable and testable alone. Here they are bound to the app's
actions and login gate and registered with Gradio, which names each MCP tool after its
function and describes it from the docstring. Annotations and server instructions:
`ragspace_mcp.annotations`.
"""

import functools
import inspect
from collections.abc import Callable
from typing import Any

import gradio as gr
from gradio.events import api as gradio_api
from gradio.route_utils import get_root_url
from gradio.utils import get_function_description
from starlette.requests import Request as StarletteRequest

from ragspace.access import AUTH_HEADER, Credentials
from ragspace.actions import Actions
from ragspace.errors import AuthenticationError
from ragspace_mcp.change_tools import CHANGE
from ragspace_mcp.read_tools import READ
from ragspace_ui.error_messages import user_errors

READ_TOOLS = tuple(tool.__name__ for tool in READ)
CHANGE_TOOLS = tuple(tool.__name__ for tool in CHANGE)
# Gradio hands the HTTP request to a parameter of this name and type
REQUEST = inspect.Parameter(
    "request",
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    default=None,
    annotation=gr.Request | None,
)


class Gate:
    """Lets a caller in when the app is open, logged in (cookie) or sends valid credentials."""

    def __init__(self, credentials: Credentials | None) -> None:
        self._credentials = credentials

    def check(self, request: gr.Request | None) -> None:
        """Raise AuthenticationError unless the caller may use the tools."""
        if self._credentials is None:
            return
        if request is not None and (
            getattr(request, "username", None)
            or self._credentials.verify_header(request.headers.get(AUTH_HEADER))
        ):
            return
        raise AuthenticationError(
            f"This RAGSpace requires a login: send the HTTP header '{AUTH_HEADER}: "
            "user:password' with an account from RAGSPACE_AUTH."
        )


def app_url_of(request: gr.Request | None) -> str | None:
    """The address the caller reached the app at (behind a proxy: the forwarded one)."""
    # a gr.Request wraps Starlette's; MCP's direct calls hand Starlette's over as it is
    raw = getattr(request, "request", None) or request
    if not isinstance(raw, StarletteRequest):
        return None
    return get_root_url(raw, raw.url.path, None)


def bind(tool: Callable[..., str], actions: Actions, gate: Gate) -> Callable[..., str]:
    """The tool over these actions, behind the gate, with the signature Gradio should see:
    the tool's parameters without `actions` (and `app_url`, filled from the request), and
    always a `request` (for the gate)."""
    signature = inspect.signature(tool)
    parameters = [p for p in list(signature.parameters.values())[1:] if p.name != "app_url"] + [
        REQUEST
    ]
    wants_app_url = "app_url" in signature.parameters
    public = signature.replace(parameters=parameters)

    @functools.wraps(tool)
    def bound(*args: Any, **kwargs: Any) -> str:
        arguments = public.bind(*args, **kwargs).arguments
        request = arguments.pop("request", None)
        gate.check(request)
        if wants_app_url:
            arguments["app_url"] = app_url_of(request)
        return tool(actions, **arguments)

    hints = {k: v for k, v in tool.__annotations__.items() if k not in ("actions", "app_url")}
    bound.__annotations__ = hints | {"request": REQUEST.annotation}
    bound.__signature__ = public  # type: ignore[attr-defined]
    return bound


def bound_tools(actions: Actions, gate: Gate) -> list[Callable[..., str]]:
    """Every tool this instance offers: the reading ones, and the changing ones unless
    it is read-only."""
    tools = READ if actions.read_only else READ + CHANGE
    return [bind(tool, actions, gate) for tool in tools]


def register_mcp_tools(actions: Actions, credentials: Credentials | None) -> list[str]:
    """Register the tools in the current Blocks; change tools only when not read-only.

    Called inside `gr.Blocks` before any UI event, so the tools keep their plain API names.
    `queue=False`: Gradio runs such MCP calls in-process; queued ones loop back through its
    HTTP client, which its own login page (RAGSPACE_AUTH) would turn away.
    """
    tools = bound_tools(actions, Gate(credentials))
    for tool in tools:
        gradio_api(
            user_errors(tool),
            api_name=tool.__name__,
            api_description=tool_description(tool),
            queue=False,
        )
    return [tool.__name__ for tool in tools]


def tool_description(tool: Callable[..., str]) -> str:
    """The docstring's text and its Returns section, wrapped lines joined by spaces.

    Gradio joins the lines of a Returns section with ", ", so a line ending in a comma
    became ",," in the description; the parameters' descriptions still come from Args.
    """
    description, _, returns = get_function_description(tool)
    return f"{description} Returns: {' '.join(returns)}" if returns else description
