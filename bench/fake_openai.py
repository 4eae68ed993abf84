"""A fake OpenAI-compatible API for benchmarks: chat (JSON and SSE streams) and embeddings.

Run: python bench/fake_openai.py [--first-token 0.3] [--piece-interval 0.01]
Listens on 127.0.0.1 on a free port and prints its base URL (`http://127.0.0.1:N/v1`) as
the first line on stdout. Unlike the fakes in tests/ (one API each, every request recorded
for assertions) this one serves both APIs behind one base URL, as the app expects from
OPENAI_BASE_URL, and keeps nothing, so it can run for minutes under load. It runs as its own
process so its work does not compete with the load generator's event loop.

Embeddings are feature-hashed bags of words (deterministic, similar texts get similar
vectors), so vector search sees structured data rather than uniform noise. Chat replies cite
[1] and [2]; a reranking request (non-streamed) gets a JSON ranking. Delays simulate a model:
`--first-token` before the first byte, `--piece-interval` between streamed pieces.
"""

import argparse
import base64
import json
import re
import sys
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import numpy.typing as npt

ANSWER = (
    "According to the documentation, the behaviour you ask about is configured in the "
    "passage shown first [1]. The second passage gives the details and an example [2]."
)
RANKING = json.dumps({"ranking": list(range(1, 51))})
_WORD = re.compile(r"\w+")


def hashed_vector(text: str, dimensions: int) -> npt.NDArray[np.float32]:
    """A unit vector of signed word counts hashed into `dimensions` buckets."""
    vector = np.zeros(dimensions, dtype=np.float32)
    for word in _WORD.findall(text.lower()):
        digest = zlib.crc32(word.encode())
        vector[digest % dimensions] += 1.0 if digest & 0x80000000 else -1.0
    norm = float(np.linalg.norm(vector))
    if norm == 0.0:
        vector[0], norm = 1.0, 1.0
    return vector / np.float32(norm)


def _encoded(vector: npt.NDArray[np.float32], encoding: str) -> str | list[float]:
    """As the API sends it: base64 of little-endian float32 (the SDK's default) or floats."""
    if encoding == "base64":
        return base64.b64encode(vector.astype("<f4").tobytes()).decode()
    return [round(float(x), 6) for x in vector]


def _chunk_event(model: str, delta: dict[str, Any], finish: str | None) -> bytes:
    event = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1_763_700_000,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }
    return f"data: {json.dumps(event)}\n\n".encode()


def _completion(model: str, text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-bench",
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
        "usage": {"prompt_tokens": 1000, "completion_tokens": 40, "total_tokens": 1040},
    }


def _embeddings(body: dict[str, Any]) -> dict[str, Any]:
    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
    dimensions = int(body.get("dimensions") or 1536)
    encoding = str(body.get("encoding_format") or "float")
    data = [
        {
            "object": "embedding",
            "index": i,
            "embedding": _encoded(hashed_vector(str(text), dimensions), encoding),
        }
        for i, text in enumerate(inputs)
    ]
    tokens = sum(len(str(text).split()) for text in inputs)
    return {
        "object": "list",
        "data": data,
        "model": body.get("model", "text-embedding-3-small"),
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def handler(first_token: float, piece_interval: float) -> type[BaseHTTPRequestHandler]:
    """A request handler with the given simulated model latency."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
            if self.path.endswith("/embeddings"):
                self._json(200, _embeddings(body))
            elif self.path.endswith("/chat/completions"):
                time.sleep(first_token)
                if body.get("stream"):
                    self._stream(str(body.get("model", "gpt")))
                else:
                    self._json(200, _completion(str(body.get("model", "gpt")), RANKING))
            else:
                self._json(404, {"error": {"message": f"Unknown path {self.path}"}})

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, model: str) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            pieces = [ANSWER[i : i + 7] for i in range(0, len(ANSWER), 7)]
            events = [_chunk_event(model, {"role": "assistant", "content": ""}, None)]
            events += [_chunk_event(model, {"content": piece}, None) for piece in pieces]
            events += [_chunk_event(model, {}, "stop"), b"data: [DONE]\n\n"]
            for number, event in enumerate(events):
                if 1 < number < len(events) - 2:
                    time.sleep(piece_interval)
                self.wfile.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


class Server(ThreadingHTTPServer):
    """Quiet about clients that hang up (the app stopping mid-request at the end of a run)."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--first-token", type=float, default=0.3, help="seconds before a reply")
    parser.add_argument("--piece-interval", type=float, default=0.01, help="seconds per piece")
    args = parser.parse_args()
    server = Server(("127.0.0.1", 0), handler(args.first_token, args.piece_interval))
    print(f"http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        sys.stdout.flush()


if __name__ == "__main__":
    main()
