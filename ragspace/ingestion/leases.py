"""A worker's lease on a job, kept alive by heartbeats while it runs the job."""

import logging
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from ragspace.errors import DatabaseUnavailableError
from ragspace.store import ClaimedJob, JobQueue

log = logging.getLogger(__name__)


class LeaseLostError(Exception):
    """Another worker reclaimed the job; this one must not write its result."""


def worker_name() -> str:
    """Names this worker thread in leases: host, process and thread."""
    return f"{socket.gethostname()}:{os.getpid()}:{threading.current_thread().name}"


@contextmanager
def kept_alive(
    jobs: JobQueue, job: ClaimedJob, lease_seconds: float, every: float
) -> Iterator[threading.Event]:
    """Extend the lease every `every` seconds in the background; the event is set once
    the lease is lost (another worker reclaimed the job)."""
    stop, lost = threading.Event(), threading.Event()

    def beat() -> None:
        while not stop.wait(every):
            try:
                if not jobs.heartbeat(job, lease_seconds):
                    lost.set()
                    return
            except DatabaseUnavailableError:
                pass  # the outage is logged once by the database health
            except Exception:  # a missed beat is fine; the lease covers two more
                log.exception("Heartbeat for %s failed", job.path)

    thread = threading.Thread(target=beat, name=f"heartbeat-{job.id}", daemon=True)
    thread.start()
    try:
        yield lost
    finally:
        stop.set()
        thread.join()
