"""Requests the guard and the app could read differently: two Content-Type headers (the
guard read the last, Starlette reads the first), two Content-Length or Transfer-Encoding
headers, or both framings at once. Sent byte for byte to the real read-only app: each is
refused before any route reads it, so no multipart body reaches one."""

import itertools
import socket
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import httpx

from ragspace.actions import Actions
from ragspace.settings import Settings
from tests.ui.test_access import read_only  # noqa: F401 (the fixture)

BOUNDARY = "x"
MARKER = b"recorded-in-read-only-mode"
# what process_recording takes: without ffmpeg it writes the video to disk and echoes it
MULTIPART = (
    f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="video"; filename="a.mp4"\r\n'
    f"Content-Type: video/mp4\r\n\r\n{MARKER.decode()}\r\n--{BOUNDARY}--\r\n"
).encode()
ROUTES = ("/gradio_api/process_recording", "/gradio_api/component_server", "/gradio_api/queue/join")
_FORM = f"multipart/form-data; boundary={BOUNDARY}"
_OTHER_TYPES = ("application/json", "text/plain", "application/x-www-form-urlencoded")


def raw(url: str, head: list[tuple[str, str]], body: bytes, path: str) -> tuple[int, bytes]:
    """Send one request exactly as written (headers in this order, duplicates kept); the
    status and body of the answer."""
    parts = urlsplit(url)
    lines = [f"POST {path} HTTP/1.1", f"Host: {parts.hostname}:{parts.port}", "Connection: close"]
    lines += [f"{name}: {value}" for name, value in head]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as connection:
        connection.sendall(request)
        answer = bytearray()
        while chunk := connection.recv(65536):
            answer += chunk
    status_line, _, rest = bytes(answer).partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def _chunked(body: bytes) -> bytes:
    return f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"


def ambiguous_requests() -> Iterator[tuple[str, list[tuple[str, str]], bytes]]:
    """A generated family: every order of a multipart type beside another type, the
    header's name in several cases; two different lengths, both framings, two framings."""
    length = ("Content-Length", str(len(MULTIPART)))
    names = ("Content-Type", "content-type", "CONTENT-TYPE")
    for first, second in itertools.permutations((_FORM, *_OTHER_TYPES), 2):
        for name_a, name_b in itertools.product(names, repeat=2):
            yield "two types", [(name_a, first), (name_b, second), length], MULTIPART
    chunked = ("Transfer-Encoding", "chunked")
    for kind in (_FORM, *_OTHER_TYPES):
        typed = ("Content-Type", kind)
        for other in ("0", "1", str(len(MULTIPART) - 1)):
            yield "two lengths", [typed, length, ("content-length", other)], MULTIPART
        yield "both framings", [typed, length, chunked], _chunked(MULTIPART)
        yield "both framings", [typed, chunked, length], _chunked(MULTIPART)
        yield (
            "two encodings",
            [typed, chunked, ("transfer-encoding", "chunked")],
            _chunked(MULTIPART),
        )


def test_no_ambiguous_request_reaches_a_route_of_the_read_only_app(
    read_only: Actions,  # noqa: F811
    launch_app: Callable[..., str],
    settings: Settings,
) -> None:
    url = launch_app(read_only, settings_override=settings.replace(read_only=True))
    sent = 0
    for (what, head, body), route in itertools.product(ambiguous_requests(), ROUTES):
        status, answer = raw(url, head, body, route)
        sent += 1
        assert status in (400, 403), (what, head, route, status, answer[:200])
        assert MARKER not in answer, (what, route)
    assert sent > 100
    # one Content-Type, as a browser sends it: still the read-only refusal, and a plain
    # request still reaches the app
    status, answer = raw(
        url,
        [("Content-Type", _FORM), ("Content-Length", str(len(MULTIPART)))],
        MULTIPART,
        ROUTES[0],
    )
    assert status == 403 and b"read-only" in answer
    assert httpx.get(f"{url}config", timeout=30).status_code == 200
