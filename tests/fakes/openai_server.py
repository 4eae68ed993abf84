"""A local HTTP server speaking the OpenAI embeddings API, with scripted failures."""

import hashlib
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from tests.fakes.serving import serving


@dataclass
class ScriptedResponse:
    """A response served instead of the normal one (e.g. a 429 with Retry-After)."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    delay_seconds: float = 0.0  # wait this long before answering (timeouts)
    raw: bytes | None = None  # sent instead of `body` as JSON (malformed replies)
    content_type: str = "application/json"


def malformed(raw: bytes, content_type: str) -> ScriptedResponse:
    """A 200 whose body is not an embeddings response (a captive portal, a wrong base URL)."""
    return ScriptedResponse(200, {}, raw=raw, content_type=content_type)


def rate_limited(retry_after: str = "0") -> ScriptedResponse:
    """A 429 as OpenAI sends it."""
    return ScriptedResponse(
        429,
        {
            "error": {
                "message": "Rate limit reached for text-embedding-3-small in organization "
                "org-test on requests per min (RPM): Limit 3000, Used 3000, Requested 1.",
                "type": "requests",
                "param": None,
                "code": "rate_limit_exceeded",
            }
        },
        {"retry-after": retry_after, "x-ratelimit-remaining-requests": "0"},
    )


def server_error() -> ScriptedResponse:
    """A 500 as OpenAI sends it."""
    return ScriptedResponse(
        500,
        {
            "error": {
                "message": "The server had an error while processing your request.",
                "type": "server_error",
                "param": None,
                "code": None,
            }
        },
    )


def fake_vector(text: str, dimensions: int) -> list[float]:
    """A deterministic pseudo-embedding of a text."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return [float(x) for x in np.random.default_rng(seed).standard_normal(dimensions)]


class FakeOpenAI:
    """Records every request; serves scripted responses first, then real-format embeddings."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.script: list[ScriptedResponse] = []
        self.base_url = ""

    def respond(self, body: dict[str, Any]) -> ScriptedResponse:
        """The response to one POST /v1/embeddings."""
        if self.script:
            return self.script.pop(0)
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        dimensions = int(body.get("dimensions", 1536))
        data = [
            {"object": "embedding", "index": i, "embedding": fake_vector(text, dimensions)}
            for i, text in enumerate(inputs)
        ]
        tokens = sum(len(text.split()) for text in inputs)
        return ScriptedResponse(
            200,
            {
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = json.loads(self.rfile.read(length))
            fake.requests.append(body)
            fake.headers.append({k.lower(): v for k, v in self.headers.items()})
            if self.path != "/v1/embeddings":
                reply = ScriptedResponse(404, {"error": {"message": "Not found"}})
            else:
                reply = fake.respond(body)
            time.sleep(reply.delay_seconds)
            payload = json.dumps(reply.body).encode() if reply.raw is None else reply.raw
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            self.send_header("content-length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def running_fake_openai() -> Iterator[FakeOpenAI]:
    """Serve a FakeOpenAI on 127.0.0.1 on a free port."""
    fake = FakeOpenAI()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    fake.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    with serving(server):
        yield fake
