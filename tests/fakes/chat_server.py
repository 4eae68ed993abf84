"""A local HTTP server speaking OpenAI chat completions: JSON replies and SSE streams."""

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from tests.fakes.serving import serving

Reply = Callable[[dict[str, Any]], str]

if TYPE_CHECKING:
    from ragspace.answering.llm import OpenAIChatModel


@dataclass
class FakeChat:
    """Answers every request with `reply(request)`; `delay` simulates a slow model.

    `piece_delay` pauses between streamed pieces, so a client can see partial answers;
    `gate`, when given, holds every stream after its first piece until the test sets it.
    """

    reply: Reply = lambda _request: "OK"
    delay: float = 0.0
    piece_delay: float = 0.0
    status: int = 200
    error_message: str = "Server error"
    raw: tuple[bytes, str] | None = None  # (body, content type) sent instead of a reply
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""
    gate: threading.Event | None = None

    def prompt_of(self, index: int = -1) -> str:
        """All message contents of one recorded request, joined."""
        return "\n".join(m["content"] for m in self.requests[index]["messages"])


def _completion(model: str, text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test123",
        "object": "chat.completion",
        "created": 1_763_700_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


def _chunk(model: str, delta: dict[str, Any], finish: str | None) -> bytes:
    event = {
        "id": "chatcmpl-test123",
        "object": "chat.completion.chunk",
        "created": 1_763_700_000,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }
    return f"data: {json.dumps(event)}\n\n".encode()


def stream_pieces(text: str) -> list[str]:
    """How the fake splits a reply into streamed pieces (a few characters each)."""
    return [text[i : i + 7] for i in range(0, len(text), 7)]


def _handler(fake: FakeChat) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
            fake.requests.append(body)
            time.sleep(fake.delay)
            if fake.raw is not None:
                self._raw(*fake.raw)
            elif fake.status != 200:
                self._json(
                    fake.status, {"error": {"message": fake.error_message, "type": "server_error"}}
                )
            elif body.get("stream"):
                self._stream(body["model"], fake.reply(body))
            else:
                self._json(200, _completion(body["model"], fake.reply(body)))

        def _raw(self, data: bytes, content_type: str) -> None:
            self.send_response(200)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, model: str, text: str) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            events = [_chunk(model, {"role": "assistant", "content": ""}, None)]
            events += [_chunk(model, {"content": piece}, None) for piece in stream_pieces(text)]
            events += [_chunk(model, {}, "stop"), b"data: [DONE]\n\n"]
            for number, event in enumerate(events):
                self.wfile.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
                self.wfile.flush()
                if number == 1 and fake.gate is not None:
                    fake.gate.wait(timeout=120)  # the test lets the answer finish
                time.sleep(fake.piece_delay)
            self.wfile.write(b"0\r\n\r\n")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def running_fake_chat() -> Iterator[FakeChat]:
    """Serve a FakeChat on 127.0.0.1 on a free port."""
    fake = FakeChat()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    fake.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    with serving(server):
        yield fake


def chat_model_of(fake: FakeChat, timeout: float = 10) -> "OpenAIChatModel":
    """The app's real OpenAI chat client, pointed at the fake, with no retries."""
    from ragspace.answering.llm import OpenAIChatModel

    return OpenAIChatModel(
        api_key="sk-chat-secret",
        model="gpt-test",
        base_url=fake.base_url,
        timeout=timeout,
        max_retries=0,
    )
