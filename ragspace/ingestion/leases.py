"""A worker's lease on a job, kept alive by heartbeats while it runs the job."""

import logging
import os
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from ragspace.errors import DatabaseUnavailableError
from ragspace.store import ClaimedJob, JobQueue
from ragspace.store.keyword_batches import KeywordBatches

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
    with beating(lambda: jobs.heartbeat(job, lease_seconds), job.path, every) as lost:
        yield lost


@contextmanager
def batch_kept_alive(
    batches: KeywordBatches, batch: Sequence[ClaimedJob], lease_seconds: float, every: float
) -> Iterator[threading.Event]:
    """`kept_alive` for a batch of jobs, one statement a beat; the event is set once none
    of the leases is this worker's (a lost one is left out when the batch is written)."""
    label = f"{len(batch)} documents from {batch[0].path}"
    with beating(lambda: batches.heartbeat(batch, lease_seconds), label, every) as lost:
        yield lost


@contextmanager
def beating(beat: Callable[[], bool], label: str, every: float) -> Iterator[threading.Event]:
    """Run `beat` every `every` seconds in the background until it returns False (the
    event is then set) or the block ends."""
    stop, lost = threading.Event(), threading.Event()

    def run() -> None:
        while not stop.wait(every):
            try:
                if not beat():
                    lost.set()
                    return
            except DatabaseUnavailableError:
                pass  # the outage is logged once by the database health
            except Exception:  # a missed beat is fine; the lease covers two more
                log.exception("Heartbeat for %s failed", label)

    thread = threading.Thread(target=run, name=f"heartbeat-{label[:40]}", daemon=True)
    thread.start()
    try:
        yield lost
    finally:
        stop.set()
        thread.join()
