"""`POST /webhooks/github`: GitHub push events, signed with a shared secret, queue re-syncs.

An ASGI middleware in front of every route (and of the login guard): GitHub cannot sign
in, so the endpoint authenticates each request by its HMAC signature instead. It answers
before any Gradio route is touched and reads at most `max_bytes` of a body.
"""

import json
import logging
import re
from typing import Any

import anyio.to_thread
from pydantic import SecretStr
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Receive, Scope, Send

from ragspace.actions import Actions
from ragspace.errors import RagspaceError, ReadOnlyError, ValidationError
from ragspace.sources.push_events import (
    Delivery,
    DuplicateDeliveryError,
    PushEvent,
    signature_valid,
)

log = logging.getLogger(__name__)

WEBHOOK_PATH = "/webhooks/github"
# GitHub caps payloads at 25 MB, but a push (at most 20 commits listed) is far smaller
MAX_BODY_BYTES = 5 * 1024 * 1024
_UNSAFE = re.compile(r"[^0-9A-Za-z-]")


class BodyTooLargeError(Exception):
    """The request body is larger than the endpoint accepts."""


class GithubWebhook:
    """Answers `POST /webhooks/github`; every other request goes on to the app."""

    def __init__(
        self,
        app: ASGIApp,
        actions: Actions,
        secret: SecretStr,
        max_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        self._app = app
        self._service = actions
        self._secret = secret
        self._max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle the webhook route; pass anything else through untouched."""
        if scope["type"] != "http" or _path(scope).rstrip("/") != WEBHOOK_PATH:
            await self._app(scope, receive, send)
            return
        status, payload = await self._handle(scope, receive)
        await _reply(send, status, payload)

    async def _handle(self, scope: Scope, receive: Receive) -> tuple[int, dict[str, Any]]:
        headers = _headers(scope)
        # the delivery id goes into the logs: keep a GUID's characters only
        delivery = _UNSAFE.sub("", headers.get("x-github-delivery", ""))[:64] or "?"
        if scope["method"] != "POST":
            return 405, {"error": "Send GitHub webhooks with POST."}
        try:
            body = await self._body(headers, receive)
        except BodyTooLargeError:
            log.warning(
                "Webhook delivery %s refused: body over %d bytes", delivery, self._max_bytes
            )
            return 413, {"error": f"The body is larger than {self._max_bytes:,} bytes."}
        if not signature_valid(
            self._secret.get_secret_value(), body, headers.get("x-hub-signature-256")
        ):
            log.warning("Webhook delivery %s refused: missing or wrong signature", delivery)
            return 401, {"error": "Missing or invalid X-Hub-Signature-256."}
        event = headers.get("x-github-event", "")
        if event == "ping":
            log.info("Webhook ping %s accepted", delivery)
            return 200, {"ok": True, "event": "ping"}
        if event != "push":
            return 202, {"ignored": event or "no X-GitHub-Event"}
        return await self._push(body, delivery)

    async def _push(self, body: bytes, delivery: str) -> tuple[int, dict[str, Any]]:
        try:
            payload = json.loads(body)
            push = PushEvent.from_payload(payload)
        except RecursionError:  # json's decoder recurses once per nested array or object
            return 400, {"error": "Not a GitHub push payload: nested too deeply."}
        except (ValueError, ValidationError) as exc:
            return 400, {"error": f"Not a GitHub push payload: {exc}"}
        if payload.get("deleted"):  # a deleted branch or tag has nothing to fetch
            return 202, {"queued": [], "ignored": "deleted ref"}
        seen = Delivery.of(delivery if delivery != "?" else "", body)
        try:
            queued = await anyio.to_thread.run_sync(self._service.sources.github_push, push, seen)
        except DuplicateDeliveryError:
            log.info("Webhook delivery %s ignored: handled already", delivery)
            return 200, {"duplicate": delivery}
        except ReadOnlyError as exc:
            log.warning("Webhook delivery %s refused: read-only mode", delivery)
            return 403, {"error": str(exc)}
        except RagspaceError as exc:
            log.warning("Webhook delivery %s failed: %s", delivery, exc)
            return 503, {"error": str(exc)}
        log.info(
            "Webhook push %s to %s %s: re-sync queued for source(s) %s",
            delivery,
            push.full_name,
            push.ref,
            queued or "none",
        )
        return 202, {"queued": queued}

    async def _body(self, headers: dict[str, str], receive: Receive) -> bytes:
        """The request body, refused (unread) past `max_bytes`."""
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._max_bytes:
            raise BodyTooLargeError
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            body += message.get("body", b"")
            if len(body) > self._max_bytes:
                raise BodyTooLargeError
            if not message.get("more_body", False):
                break
        return bytes(body)


def _path(scope: Scope) -> str:
    root = str(scope.get("root_path", ""))
    path = str(scope["path"])
    return path[len(root) :] if root and path.startswith(root) else path


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


async def _reply(send: Send, status: int, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 405:
        headers.append((b"allow", b"POST"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def webhook_middleware(actions: Actions | None, secret: SecretStr | None) -> list[Middleware]:
    """The webhook endpoint, when a secret is configured (RAGSPACE_GITHUB_WEBHOOK_SECRET)."""
    if actions is None or secret is None or not secret.get_secret_value():
        return []
    return [Middleware(GithubWebhook, actions=actions, secret=secret)]
