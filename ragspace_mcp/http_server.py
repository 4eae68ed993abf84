"""`ragspace mcp --http PORT`: the standalone MCP server over streamable HTTP, behind the login.

Without the web app, at `/mcp` (and `/mcp/`). When RAGSPACE_AUTH is set every request must
carry one of its accounts, as the web app's endpoint asks: `X-Ragspace-Auth: user:password`,
or the same `user:password` as a bearer token (`Authorization: Bearer user:password`, what most MCP
clients' config files can send). On a loopback address the MCP package's DNS-rebinding check
is on (only `127.0.0.1`, `localhost` and `[::1]` as Host, and their Origins), as its own
FastMCP does; `RebindingCheck` puts the same check in front of the web app's MCP routes.
"""

import contextlib
import logging
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ragspace.access import AUTH_HEADER, Credentials, LoginCheck, LoginLimiter, LoginLimits
from ragspace_mcp.tool_server import ToolServer

log = logging.getLogger(__name__)

LOOPBACK = ("127.0.0.1", "localhost", "::1")
PATH = "/mcp"


class RequireLogin:
    """ASGI middleware: 401 unless the request names a configured account; 429, unchecked,
    while the client (or the account it tries, once it has failed) must wait after failed
    logins (`LoginLimiter`, as the web app's)."""

    def __init__(self, app: ASGIApp, credentials: Credentials, limiter: LoginLimiter) -> None:
        self._app = app
        self._credentials = credentials
        self._limiter = limiter

    def allows(self, headers: Headers, client: str) -> LoginCheck:
        """Whether either header carries a configured `user:password` (each one sent is
        an attempt); refused unchecked while this client must wait."""
        scheme, _, token = headers.get("authorization", "").partition(" ")
        bearer = token if scheme.lower() == "bearer" else None
        checked = LoginCheck(ok=False)
        for value in (headers.get(AUTH_HEADER), bearer):
            if value:
                checked = self._limiter.check_header(self._credentials, client, value)
                if checked.ok or checked.refused:
                    return checked
        return checked

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        client = scope.get("client")
        checked = self.allows(Headers(scope=scope), str(client[0]) if client else "")
        if checked.refused:
            wait = checked.retry_after
            retry = {"retry-after": str(math.ceil(wait))}
            refusal = JSONResponse(
                {"error": LoginLimiter.refusal(wait), "retry_after": round(wait, 3)}, 429, retry
            )
            await refusal(scope, receive, send)
            return
        if not checked.ok:
            refusal = JSONResponse(
                {
                    "error": "This RAGSpace requires a login: send the header "
                    f"'{AUTH_HEADER}: user:password' (or 'Authorization: Bearer "
                    "user:password') with an account from RAGSPACE_AUTH."
                },
                status_code=401,
            )
            await refusal(scope, receive, send)
            return
        await self._app(scope, receive, send)


class Endpoint:
    """The session manager as an ASGI app (a class, so Starlette hands it the raw request)."""

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self._manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._manager.handle_request(scope, receive, send)


def security_for(host: str) -> TransportSecuritySettings:
    """DNS-rebinding protection on loopback addresses (any port); off elsewhere."""
    if host not in LOOPBACK:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )


class RebindingCheck:
    """ASGI middleware: requests under `prefix` pass the DNS-rebinding check of
    `security_for(host)` (421 for a foreign Host, 403 for a foreign Origin), the check the
    standalone server's session manager makes. A page on another site whose name now points
    at 127.0.0.1 sends its own name as Host and its own Origin, so it gets no answer to read.
    Two Host or Origin headers are refused as ambiguous (400)."""

    def __init__(self, app: ASGIApp, host: str, prefix: str) -> None:
        self._app = app
        self._prefix = prefix
        self._check = TransportSecurityMiddleware(security_for(host))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _under(scope, self._prefix):
            headers = Headers(scope=scope)
            refusal = (
                PlainTextResponse("Ambiguous request: two Host or Origin headers.", 400)
                if any(len(headers.getlist(name)) > 1 for name in ("host", "origin"))
                else await self._check.validate_request(HTTPConnection(scope))
            )
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self._app(scope, receive, send)


def rebinding_protected(host: str) -> bool:
    """Whether a server on `host` checks Host and Origin (loopback addresses)."""
    return security_for(host).enable_dns_rebinding_protection


def _under(scope: Scope, prefix: str) -> bool:
    root, path = str(scope.get("root_path", "")), str(scope["path"])
    path = path[len(root) :] if root and path.startswith(root) else path
    return path == prefix or path.startswith(prefix + "/")


def http_app(
    server: ToolServer,
    credentials: Credentials | None,
    host: str,
    limits: LoginLimits | None = None,
) -> Any:
    """The ASGI app: streamable HTTP at /mcp and /mcp/, stateless (any number of clients); failed
    logins slowed as `limits` say."""
    manager = StreamableHTTPSessionManager(
        app=server, stateless=True, security_settings=security_for(host)
    )

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield

    endpoint = Endpoint(manager)
    # both spellings answer, neither redirects: clients differ (MCP Inspector takes a URL
    # ending in /mcp for streamable HTTP and anything else for the old SSE transport)
    routes = [Route(PATH, endpoint=endpoint), Route(f"{PATH}/", endpoint=endpoint)]
    app = Starlette(routes=routes, lifespan=lifespan)
    if credentials is None:
        return app
    return RequireLogin(app, credentials, LoginLimiter.for_accounts(credentials, limits))


def serve_http(
    server: ToolServer,
    credentials: Credentials | None,
    host: str,
    port: int,
    limits: LoginLimits | None = None,
) -> None:
    """Serve until interrupted (Ctrl+C, SIGTERM)."""
    if credentials is None and host not in LOOPBACK:
        log.warning(
            "Serving MCP on %s without a login: anyone who reaches it can use the tools "
            "(set RAGSPACE_AUTH)",
            host,
        )
    log.warning("RAGSpace MCP server on http://%s:%d%s", host, port, PATH)
    app = http_app(server, credentials, host, limits)
    # uvicorn stops on SIGINT and SIGTERM, then raises the signal again for the handler
    # before it (the CLI's turns SIGTERM into KeyboardInterrupt): the way out, so the
    # caller closes the database
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.run(app, host=host, port=port, log_level="warning")
