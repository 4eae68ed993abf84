"""Waiting in tests for something another process or thread does: poll a condition, and
fail naming what never happened (a bound, not a wait: it returns as soon as it holds)."""

import time
from collections.abc import Callable

import pytest


def wait_for(condition: Callable[[], bool], what: str, deadline: float = 180.0) -> None:
    """Poll until `condition()` holds; after `deadline` seconds, fail naming `what`."""
    end = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > end:
            pytest.fail(f"Timed out waiting for {what}")
        time.sleep(0.05)
