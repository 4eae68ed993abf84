"""The stdio transport of `ragspace mcp`: one JSON-RPC message a line, each line bounded, and
the end of stdin, SIGTERM or SIGINT ending the session at once.

The `mcp` package's own `stdio_server` reads stdin with `readline()` in a worker thread: a
stream without newlines is held whole (5.9 GB in 11 s), and the thread, blocked in a read
that no cancellation reaches, kept the process alive after Ctrl+C until the next line came.
Here a daemon thread reads the file descriptor in chunks (never the buffered `sys.stdin`,
whose lock a daemon thread would hold at interpreter exit), keeps at most MAX_LINE_BYTES of a
line and drops the rest of a longer one, which is answered with a JSON-RPC error (id null:
the line is never parsed); the process may exit whatever that thread is doing.
"""

import json
import logging
import os
import signal
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from io import TextIOWrapper
from typing import TypeAlias

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import types
from mcp.shared.message import SessionMessage

log = logging.getLogger(__name__)

# far more than any tool's arguments (a tools/call of `remove_documents` naming 10,000 paths
# is about 1 MB); a line over it is dropped unparsed
MAX_LINE_BYTES = 4 * 1024 * 1024
CHUNK_BYTES = 64 * 1024
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
INVALID_REQUEST = -32600  # JSON-RPC's code for "not a valid Request object"

Incoming: TypeAlias = SessionMessage | Exception
Streams: TypeAlias = tuple[
    MemoryObjectReceiveStream[Incoming], MemoryObjectSendStream[SessionMessage]
]


def split_lines(read: Callable[[int], bytes], limit: int) -> Iterator[bytes | None]:
    """The lines a `read(n)` function returns (without their newline), and None once for each
    line longer than `limit` bytes, as soon as it is: at most `limit` bytes and one chunk are
    held, however long a line runs. A last line without a newline counts too."""
    pending = bytearray()
    skipping = False  # inside a line already reported too long
    while chunk := read(CHUNK_BYTES):
        *ended, rest = chunk.split(b"\n")
        for piece in ended:
            if skipping:
                skipping = False
            elif len(pending) + len(piece) > limit:
                yield None
            else:
                yield bytes(pending + piece)
            pending.clear()
        if not skipping:
            pending += rest
            if len(pending) > limit:
                pending.clear()
                skipping = True
                yield None
    if pending:
        yield bytes(pending)


def too_long_error(limit: int) -> str:
    """The JSON-RPC error answering a line over `limit` bytes (its id is unknown: null)."""
    message = (
        f"A message is limited to {limit:,} bytes on one line; this line was longer and was "
        "skipped unread."
    )
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}}
    return json.dumps(error, separators=(",", ":"))


def _read_stdin(
    fd: int, lines: MemoryObjectSendStream[bytes | None], token: anyio.lowlevel.EventLoopToken
) -> None:
    """In a daemon thread: hand the bounded lines of `fd` to the event loop until the end of
    the input, or until the loop no longer takes them."""
    try:
        for line in split_lines(lambda size: os.read(fd, size), MAX_LINE_BYTES):
            anyio.from_thread.run(lines.send, line, token=token)
        anyio.from_thread.run(lines.aclose, token=token)
    except (OSError, RuntimeError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass  # the session ended first (or stdin broke): nothing left to hand on


async def _parse_lines(
    lines: MemoryObjectReceiveStream[bytes | None],
    incoming: MemoryObjectSendStream[Incoming],
    write: Callable[[str], Awaitable[None]],
) -> None:
    """Each line as a message for the server; a line too long is answered here."""
    async with incoming, lines:
        async for line in lines:
            if line is None:
                log.warning("Skipped an MCP message over %d bytes", MAX_LINE_BYTES)
                await write(too_long_error(MAX_LINE_BYTES))
                continue
            try:
                message = types.JSONRPCMessage.model_validate_json(line)
            except ValueError as exc:  # as the mcp package's transport: the server logs it
                await incoming.send(exc)
                continue
            await incoming.send(SessionMessage(message))


@asynccontextmanager
async def stdio_streams(stdin_fd: int, stdout: TextIOWrapper) -> AsyncIterator[Streams]:
    """The server's read and write streams over stdin's file descriptor and `stdout`."""
    incoming_send, incoming = anyio.create_memory_object_stream[Incoming](0)
    outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage](0)
    lines_send, lines = anyio.create_memory_object_stream[bytes | None](0)
    lock = anyio.Lock()

    async def write(text: str) -> None:
        async with lock:
            await anyio.to_thread.run_sync(_write_line, stdout, text)

    async def write_out() -> None:
        async with outgoing_receive:
            async for message in outgoing_receive:
                await write(message.message.model_dump_json(by_alias=True, exclude_none=True))

    reader = threading.Thread(
        target=_read_stdin,
        args=(stdin_fd, lines_send, anyio.lowlevel.current_token()),
        name="mcp-stdin",
        daemon=True,
    )
    parsing = anyio.CancelScope()

    async def parse() -> None:
        with parsing:
            await _parse_lines(lines, incoming_send, write)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(parse)
        tasks.start_soon(write_out)  # until the server closes `outgoing`
        reader.start()
        yield incoming, outgoing
        parsing.cancel()  # the server is done: take no more lines (the thread then ends)


def _write_line(stdout: TextIOWrapper, text: str) -> None:
    stdout.write(text + "\n")
    stdout.flush()


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(*STOP_SIGNALS) as received:
        async for signum in received:
            log.info("Stopping the MCP server (%s)", signal.Signals(signum).name)
            scope.cancel()
            return


async def serve_until_stopped(serve: Callable[[], Awaitable[None]]) -> None:
    """Run `serve()` until it returns or SIGTERM or SIGINT arrives, which end it at once
    (the caller then closes the database); the signals' handlers are restored after."""
    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_stop_on_signal, tasks.cancel_scope)
            await serve()
            tasks.cancel_scope.cancel()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
