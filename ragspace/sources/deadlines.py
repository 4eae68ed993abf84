"""A total deadline for a request: connecting, sending, the response's headers and body.

httpx's timeouts bound each wait on the network, not the whole exchange: a server that
sends one byte a second, each well within the read timeout, keeps a request going for as
long as it likes, headers included (httpcore reads up to 100 KB of them). Inside `within`,
every socket operation of the calling thread waits at most until the deadline, and the
wait the deadline cuts (or any after it) fails with `DeadlinePassed` (httpx raises its
timeout from it: `ended_by_deadline`), so a request ends by its deadline however the
answer trickles. The transport's connections are built by `DeadlineBackend` (see
`bounded_transport`); outside `within` they behave as httpcore's own.
"""

import contextvars
import time
import typing
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import httpcore
import httpx

_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "request_deadline", default=None
)
_TIME_IS_UP = "the request's deadline passed"


@contextmanager
def within(deadline: float) -> Iterator[None]:
    """Requests made in this block (this thread) end by `deadline` (`time.monotonic()`)."""
    token = _DEADLINE.set(deadline)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


class DeadlinePassed(httpcore.TimeoutException):
    """The request's deadline ended a network wait (httpx raises its own timeout from it)."""


def ended_by_deadline(exc: BaseException) -> bool:
    """Whether `exc` (an httpx timeout, say) came from a deadline set by `within`."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, DeadlinePassed):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


@contextmanager
def _until_deadline(timeout: float | None) -> Iterator[float | None]:
    """`timeout`, shortened to the time left before the deadline (DeadlinePassed when none
    is, or when the wait that the deadline shortened runs out)."""
    deadline = _DEADLINE.get()
    if deadline is None:
        yield timeout
        return
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlinePassed(_TIME_IS_UP)
    if timeout is not None and timeout < left:
        yield timeout  # the request's own timeout comes first
        return
    try:
        yield left
    except httpcore.TimeoutException as exc:
        raise DeadlinePassed(_TIME_IS_UP) from exc


class _DeadlineStream(httpcore.NetworkStream):
    """A connection whose every read and write waits at most until the deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        with _until_deadline(timeout) as bounded:
            return self._inner.read(max_bytes, bounded)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        with _until_deadline(timeout) as bounded:
            self._inner.write(buffer, bounded)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: typing.Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        with _until_deadline(timeout) as bounded:
            return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, bounded))

    def get_extra_info(self, info: str) -> typing.Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's socket backend, its connections bounded by the thread's deadline."""

    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[typing.Any] | None = None,
    ) -> httpcore.NetworkStream:
        with _until_deadline(timeout) as bounded:
            stream = self._inner.connect_tcp(host, port, bounded, local_address, socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[typing.Any] | None = None,
    ) -> httpcore.NetworkStream:
        with _until_deadline(timeout) as bounded:
            stream = self._inner.connect_unix_socket(path, bounded, socket_options)
        return _DeadlineStream(stream)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def bounded_transport(**options: typing.Any) -> httpx.HTTPTransport:
    """httpx's transport whose connections keep to `within`'s deadline.

    httpx builds its httpcore pool without a way to pass a network backend; the pool reads
    the one it holds each time it opens a connection, so it is replaced before any is open
    (tests/sources/test_slow_pages.py fails if a new httpx stops reading it).
    """
    transport = httpx.HTTPTransport(**options)
    pool = transport._pool
    if not isinstance(pool, httpcore.ConnectionPool) or not hasattr(pool, "_network_backend"):
        raise TypeError("httpx's transport no longer holds an httpcore connection pool")
    pool._network_backend = DeadlineBackend()
    return transport
