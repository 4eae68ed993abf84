"""An ASGI middleware in front of every Gradio route: logins and read-only uploads.

Gradio's login guards the page, /config and the event routes, but not MCP, /cancel, /reset
or the upload route; in read-only mode its upload route still writes files to disk. This
middleware decides before any route (or the body of an upload) is touched.
"""

import json
import math
from dataclasses import dataclass
from typing import Any

import anyio
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ragspace.access import AUTH_HEADER, Credentials, LoginLimiter, LoginLimits
from ragspace_ui.request_headers import ambiguity, headers_of
from ragspace_ui.upload_owners import UploadOwners

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
# Gradio serves files at `file=<path>` and at its older alias `file/<path>`
_FILE_ROUTES = ("/gradio_api/file=", "/gradio_api/file/")
# read-only: no request body larger than a form field (Starlette's default part size)
MAX_FORM_BYTES = 1024 * 1024
_READ_ONLY_UPLOADS = "This RAGSpace is read-only: uploads are turned off."
_READ_ONLY_BODY = (
    f"This RAGSpace is read-only: request bodies are limited to {MAX_FORM_BYTES:,} bytes."
)
_UPLOAD_PATHS = frozenset({"/gradio_api/upload", "/gradio_api/upload/", "/upload", "/upload/"})
# logins on: an event's JSON body is read (up to this) to check the files it names
MAX_EVENT_BYTES = 8 * 1024 * 1024
_FOREIGN_FILE = "That file was uploaded by another account: upload it yourself."


_LOGIN_PATHS = frozenset({"/login", "/login/"})  # Gradio's login form posts here


@dataclass(frozen=True)
class GuardRules:
    """Who may reach what: `credentials` for logins (guessing them slowed by `limiter`),
    `read_only` for uploads."""

    credentials: Credentials | None
    read_only: bool
    limiter: LoginLimiter | None = None


class AccessGuard:
    """Refuses anonymous clients (logins on) and every upload (read-only) with a JSON error."""

    def __init__(self, app: ASGIApp, rules: GuardRules) -> None:
        self._app = app
        self._rules = rules
        self._owners = UploadOwners()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, or answer 400/401/403 without reading its body."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        if (reason := ambiguity(scope)) is not None:  # two readers could read it apart
            await _refuse(send, 400, reason)
            return
        path = _path(scope)
        if self._rules.read_only:
            replay = await self._small_body(scope, receive, send, path)
            if replay is None:
                return
            receive = replay
        if path in _LOGIN_PATHS and scope.get("method") == "POST" and self._rules.limiter:
            await self._limited_login(scope, receive, send, self._rules.limiter)
            return
        if (
            self._rules.credentials is None
            or path in _OPEN_PATHS
            or path.startswith(_OPEN_PREFIXES)
        ):
            await self._app(scope, receive, send)
            return
        user, wait = self._caller(scope)
        if wait > 0:
            await _too_many(send, wait)
        elif user is None:
            await _refuse(send, 401, "Sign in first: this RAGSpace requires a login.")
        elif path.startswith(_FILE_ROUTES) and not await self._owned_by(path, user, scope["app"]):
            await _refuse(send, 404, "No such file.")  # another account's upload
        elif path in _UPLOAD_PATHS:
            await self._app(scope, receive, self._recording_owner(send, user))
        elif scope.get("method") == "POST":
            replay = await self._own_files_only(scope, receive, send, user)
            if replay is not None:
                await self._app(scope, replay, send)
        else:
            await self._app(scope, receive, send)

    async def _own_files_only(
        self, scope: Scope, receive: Receive, send: Send, user: str
    ) -> Receive | None:
        """An event names files by their path in Gradio's upload folder (a file input's
        `{"path": ...}`, however spelled): a body with any string that could open another
        account's upload, or one whose owner this run does not know, is refused (403) before
        any handler reads it. Returns the replayed body, or None when it answered itself."""
        limit, headers = MAX_EVENT_BYTES, headers_of(scope)
        body = await _read_body(receive, send, limit, _EVENT_TOO_LARGE, headers)
        if body is None:
            return None
        strings, app = _strings(body), scope["app"]

        def allowed() -> bool:
            return all(self._owners.may_name(text, user, app) for text in strings)

        if not await anyio.to_thread.run_sync(allowed):  # file system calls: off the loop
            await _refuse(send, 403, _FOREIGN_FILE)
            return None
        return _replaying(body, receive)

    async def _small_body(
        self, scope: Scope, receive: Receive, send: Send, path: str
    ) -> Receive | None:
        """Read-only: no upload and no body over MAX_FORM_BYTES reaches any route.

        Answers 403/413 itself (returning None), or returns a `receive` that replays the
        body it read (at most MAX_FORM_BYTES, however it is sent: declared or chunked).
        """
        headers = headers_of(scope)
        kind = headers.get("content-type", "").strip().lower()  # as Starlette reads it
        if path in _UPLOAD_PATHS or kind.startswith("multipart/"):
            await _refuse(send, 403, _READ_ONLY_UPLOADS)
            return None
        body = await _read_body(receive, send, MAX_FORM_BYTES, _READ_ONLY_BODY, headers)
        return None if body is None else _replaying(body, receive)

    def _caller(self, scope: Scope) -> tuple[str | None, float]:
        """The signed-in account (the login header's user, else a session cookie's owner),
        and the seconds to wait when the header's guess may not even be checked yet."""
        headers = headers_of(scope)
        credentials, limiter = self._rules.credentials, self._rules.limiter
        header = headers.get(AUTH_HEADER.lower())
        if credentials is not None and header:
            if limiter is None:
                ok = credentials.verify_header(header)
            else:
                checked = limiter.check_header(credentials, _client(scope), header)
                if checked.refused:
                    return None, checked.retry_after
                ok = checked.ok
            if ok:
                return header.strip().split(":", 1)[0], 0.0
        return _cookie_user(scope["app"], headers.get("cookie", "")), 0.0

    async def _limited_login(
        self, scope: Scope, receive: Receive, send: Send, limiter: LoginLimiter
    ) -> None:
        """Gradio's login form behind the limiter: a client that must wait (or that has
        failed and tries an account that must) is answered 429, its password unchecked;
        Gradio's 200 is the attempt's success."""
        body = await _read_body(receive, send, MAX_FORM_BYTES, _LOGIN_TOO_LARGE, headers_of(scope))
        if body is None:
            return
        try:  # read with Starlette's parser, as Gradio's form will be
            form = await Request(scope, _replaying(body, receive)).form()
            named = form.get("username")
        except (HTTPException, MultiPartException, ValueError):
            named = None
        username, client = named if isinstance(named, str) else "", _client(scope)
        wait = limiter.admit(client, username)
        if wait > 0:
            await _too_many(send, wait)
            return

        async def watching(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                limiter.succeeded(client, username)
            await send(message)

        await self._app(scope, _replaying(body, receive), watching)

    async def _owned_by(self, path: str, user: str, app: Any) -> bool:
        """False when the file route names another account's upload, however spelled
        (`file=/p`, `file//p`, `file/p` read from `/`, `..`, links such as /proc/self/root),
        or an upload whose owner this run does not know (one left by an earlier run)."""
        named = path[len(_FILE_ROUTES[0]) :]  # both prefixes have the same length

        def allowed() -> bool:
            return all(self._owners.may_name(text, user, app) for text in (named, "/" + named))

        return await anyio.to_thread.run_sync(allowed)

    def _recording_owner(self, send: Send, user: str) -> Send:
        """Wraps `send`: the paths an upload answers with are recorded as `user`'s."""
        body: list[bytes] = []
        status = [0]

        async def recording(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            elif message["type"] == "http.response.body" and status[0] == 200:
                body.append(bytes(message.get("body", b"")))
                if not message.get("more_body", False):
                    self._record(b"".join(body), user)
            await send(message)

        return recording

    def _record(self, body: bytes, user: str) -> None:
        try:
            paths = json.loads(body)
        except ValueError:
            return
        for path in paths if isinstance(paths, list) else []:
            if isinstance(path, str):
                self._owners.record(path, user)


_EVENT_TOO_LARGE = f"A request body is limited to {MAX_EVENT_BYTES:,} bytes."
_LOGIN_TOO_LARGE = f"A login form is limited to {MAX_FORM_BYTES:,} bytes."


async def _read_body(
    receive: Receive,
    send: Send,
    limit: int,
    too_large: str,
    headers: dict[str, str] | None = None,
) -> bytes | None:
    """The request's body, read whole up to `limit` bytes however it is sent (declared or
    chunked); over it, answers 413 itself and returns None."""
    declared = (headers or {}).get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        await _refuse(send, 413, too_large)
        return None
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        body += message.get("body", b"")
        if len(body) > limit:
            await _refuse(send, 413, too_large)
            return None
        if not message.get("more_body", False):
            break
    return bytes(body)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the app the body already read, then the connection's own."""
    replayed = [False]

    async def replay() -> Message:
        if not replayed[0]:
            replayed[0] = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _strings(body: bytes) -> set[str]:
    """Every string a JSON body holds, keys too (a body that is not JSON, a login form say,
    names none). Walked without recursion: nesting is no attack."""
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return set()
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(key for key in item if isinstance(key, str))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            found.add(item)
    return found


def _path(scope: Scope) -> str:
    root = str(scope.get("root_path", ""))
    path = str(scope["path"])
    return path[len(root) :] if root and path.startswith(root) else path


def _cookie_user(app: Any, cookie_header: str) -> str | None:
    """The account of a session token Gradio's /login handed out, if a cookie holds one."""
    cookie_id = getattr(app, "cookie_id", None)
    tokens: dict[str, str] = getattr(app, "tokens", {})
    names = {f"access-token-{cookie_id}", f"access-token-unsecure-{cookie_id}"}
    for part in cookie_header.split(";"):
        name, _, value = part.strip().partition("=")
        if name in names and value in tokens:
            return str(tokens[value])
    return None


def _client(scope: Scope) -> str:
    """The client's address (behind a trusted proxy, uvicorn puts the forwarded one)."""
    client = scope.get("client")
    return str(client[0]) if client else ""


async def _too_many(send: Send, wait: float) -> None:
    await _refuse(
        send,
        429,
        LoginLimiter.refusal(wait),
        {"retry_after": round(wait, 3)},
        [(b"retry-after", str(math.ceil(wait)).encode())],
    )


async def _refuse(
    send: Send,
    status: int,
    message: str,
    extra: dict[str, Any] | None = None,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    body = json.dumps({"detail": message, "error": message, **(extra or {})}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def guard_middleware(
    credentials: Credentials | None, read_only: bool, limits: LoginLimits | None = None
) -> list[Middleware]:
    """`app_kwargs["middleware"]` for `Blocks.launch`: nothing when there is nothing to guard.
    With logins, failed ones are slowed as `limits` say (one limiter for the whole app)."""
    if credentials is None and not read_only:
        return []
    limiter = None if credentials is None else LoginLimiter.for_accounts(credentials, limits)
    return [Middleware(AccessGuard, rules=GuardRules(credentials, read_only, limiter))]
