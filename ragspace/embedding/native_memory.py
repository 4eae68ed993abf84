"""The C heap under Python: giving freed memory back to the system.

onnxruntime, tokenizers, numpy and psycopg allocate outside Python's own allocator. glibc
keeps pages freed by them for reuse, so after an ingestion the app would hold its peak for
good (docs/benchmarks.md, Memory); `malloc_trim` returns whole free pages to the system.
"""

import ctypes
import functools
from typing import Any


def release_free_memory() -> None:
    """Return freed heap pages to the system (glibc's malloc_trim; elsewhere a no-op)."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


@functools.cache
def _glibc() -> Any:
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim  # noqa: B018 (musl has a libc.so.6 shim without it)
    except (OSError, AttributeError):  # not glibc (macOS, musl): nothing to trim
        return None
    return libc
