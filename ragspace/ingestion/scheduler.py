"""Scheduled re-sync: a worker thread that claims due sources and syncs them once each."""

import contextlib
import logging
import os
import socket
import threading
from collections.abc import Callable

from ragspace.errors import DatabaseUnavailableError, RagspaceError, SourceError
from ragspace.models import Source, SyncReport
from ragspace.store import Store, SyncSchedule

log = logging.getLogger(__name__)

SyncSource = Callable[[Source], SyncReport]


class ResyncScheduler:
    """Runs due re-syncs with the same syncer as `ragspace sync`; safe in many processes.

    Each due source is claimed in one SQL statement (FOR UPDATE SKIP LOCKED), which also
    moves its next due time on: however many workers poll, a due sync runs once, and a
    failing source waits for its next interval.
    """

    def __init__(
        self,
        store: Store,
        sync: SyncSource,
        on_synced: Callable[[], None],
        lease_seconds: float,
        idle_seconds: float = 2.0,
        schedule: SyncSchedule | None = None,
    ) -> None:
        self._store = store
        self._sync = sync
        self._on_synced = on_synced
        self._lease_seconds = lease_seconds
        self._idle_seconds = idle_seconds
        self._schedule = schedule or SyncSchedule(store.pool)
        self._stop = threading.Event()
        self._work = threading.Event()
        self._thread: threading.Thread | None = None

    def run_next(self) -> bool:
        """Sync the next due source; False when none was due."""
        owner = _owner()
        source = self._schedule.claim_due(owner, self._lease_seconds)
        if source is None:
            return False
        log.info("Scheduled re-sync of source #%d (%s)", source.id, source.location)
        try:
            report = self._sync(source)
            log.info(
                "Re-synced source #%d: %d changed, %d removed",
                source.id,
                len(report.changed),
                len(report.removed),
            )
            self._on_synced()
        except SourceError as exc:  # the syncer has recorded it on the source
            log.warning("Re-sync of source #%d failed: %s", source.id, exc)
        except DatabaseUnavailableError:
            raise  # nothing can be recorded; the claim lapses and the next interval retries
        except RagspaceError as exc:
            self._record(source, str(exc))
        except Exception as exc:
            log.exception("Unexpected failure re-syncing source #%d", source.id)
            self._record(
                source, f"Internal error during the scheduled re-sync ({type(exc).__name__})."
            )
        finally:
            self._release(source, owner)
        return True

    def run_due(self) -> int:
        """Run syncs until none is due; returns how many were run."""
        count = 0
        while self.run_next():
            count += 1
        return count

    def start(self) -> None:
        """Start the scheduler thread."""
        self._thread = threading.Thread(target=self._run, name="resync", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Look for due sources now (a webhook made one due)."""
        self._work.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Ask the thread to finish its current sync and wait for it."""
        self._stop.set()
        self._work.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                busy = self.run_next()
            except DatabaseUnavailableError:
                busy = False  # logged once by the database health; poll again later
            except Exception:
                log.exception("Re-sync scheduler error; retrying shortly")
                busy = False
            if not busy:
                self._work.wait(self._idle_seconds)
                self._work.clear()

    def _record(self, source: Source, message: str) -> None:
        log.warning("Re-sync of source #%d failed: %s", source.id, message)
        with contextlib.suppress(DatabaseUnavailableError):
            self._store.sources.record_error(source.id, message)

    def _release(self, source: Source, owner: str) -> None:
        with contextlib.suppress(DatabaseUnavailableError):  # else the claim lapses
            self._schedule.release(source.id, owner)


def _owner() -> str:
    """Names this worker thread in claims: host, process and thread."""
    return f"{socket.gethostname()}:{os.getpid()}:{threading.current_thread().name}"
