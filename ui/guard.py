"""An ASGI middleware in front of every Gradio route: logins and read-only uploads.

Gradio's login guards the page, /config and the event routes, but not MCP, /cancel, /reset
or the upload route; in read-only mode its upload route still writes files to disk. This
middleware decides before any route (or the body of an upload) is touched.
"""

import json
from dataclasses import dataclass
from typing import Any

from starlette.middleware import Middleware
from starlette.types import ASGIApp, Receive, Scope, Send

from ragspace.access import AUTH_HEADER, Credentials

# what the login page itself needs before anyone has signed in
_OPEN_PATHS = frozenset(
    {
        "/",
        "/login",
        "/login/",
        "/logout",
        "/config",  # answers 401 by itself; the page shows the login form on it
        "/config/",
        "/favicon.ico",
        "/theme.css",
        "/robots.txt",
        "/manifest.json",
        "/gradio_api/theme.css",
        "/gradio_api/login_check",
        "/gradio_api/login_check/",
        "/gradio_api/app_id",
        "/gradio_api/app_id/",
        "/gradio_api/startup-events",
    }
)
_OPEN_PREFIXES = ("/assets/", "/static/", "/svelte/", "/pwa_icon")
_UPLOAD_PATHS = frozenset({"/gradio_api/upload", "/gradio_api/upload/", "/upload", "/upload/"})


@dataclass(frozen=True)
class GuardRules:
    """Who may reach what: `credentials` for logins, `read_only` for uploads."""

    credentials: Credentials | None
    read_only: bool


class AccessGuard:
    """Refuses anonymous clients (logins on) and every upload (read-only) with a JSON error."""

    def __init__(self, app: ASGIApp, rules: GuardRules) -> None:
        self._app = app
        self._rules = rules

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, or answer 401/403 without reading its body."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        path = _path(scope)
        if self._rules.read_only and path in _UPLOAD_PATHS:
            await _refuse(send, 403, "This RAGSpace is read-only: uploads are turned off.")
            return
        if self._rules.credentials is not None and not self._allowed(scope, path):
            await _refuse(send, 401, "Sign in first: this RAGSpace requires a login.")
            return
        await self._app(scope, receive, send)

    def _allowed(self, scope: Scope, path: str) -> bool:
        if path in _OPEN_PATHS or path.startswith(_OPEN_PREFIXES):
            return True
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        credentials = self._rules.credentials
        if credentials is not None and credentials.verify_header(headers.get(AUTH_HEADER.lower())):
            return True
        return _signed_in(scope["app"], headers.get("cookie", ""))


def _path(scope: Scope) -> str:
    root = str(scope.get("root_path", ""))
    path = str(scope["path"])
    return path[len(root) :] if root and path.startswith(root) else path


def _signed_in(app: Any, cookie_header: str) -> bool:
    """True when a cookie holds a session token Gradio's /login handed out."""
    cookie_id = getattr(app, "cookie_id", None)
    tokens = getattr(app, "tokens", {})
    names = {f"access-token-{cookie_id}", f"access-token-unsecure-{cookie_id}"}
    for part in cookie_header.split(";"):
        name, _, value = part.strip().partition("=")
        if name in names and value in tokens:
            return True
    return False


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"detail": message, "error": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def guard_middleware(credentials: Credentials | None, read_only: bool) -> list[Middleware]:
    """`app_kwargs["middleware"]` for `Blocks.launch`: nothing when there is nothing to guard."""
    if credentials is None and not read_only:
        return []
    return [Middleware(AccessGuard, rules=GuardRules(credentials, read_only))]
