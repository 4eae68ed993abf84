"""Run a fake's HTTP server on a thread for the length of a `with` block."""

import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# shutdown() waits until the serving loop next looks for it: with the standard library's
# half-second poll, each test that stops a fake right after a request waited ~0.5 s for it
POLL_SECONDS = 0.01


@contextmanager
def serving(server: socketserver.BaseServer) -> Iterator[None]:
    """Serve `server` on a daemon thread; shut down and closed when the block ends."""
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": POLL_SECONDS}, daemon=True
    )
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
