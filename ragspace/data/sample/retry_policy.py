"""How RAGSpace-style clients retry a failing HTTP call (a small sample module)."""

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

MAX_RETRIES = 3  # attempts after the first one
BACKOFF_SECONDS = 0.5  # doubled after every failed attempt


def with_retries(call: Callable[[], T], retries: int = MAX_RETRIES) -> T:
    """Run `call`, retrying on ConnectionError with exponential backoff."""
    delay = BACKOFF_SECONDS
    for attempt in range(retries + 1):
        try:
            return call()
        except ConnectionError:
            if attempt == retries:
                raise
            time.sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")
