"""A request's headers as the app reads them, and the requests two readers could read apart.

Starlette (and so Gradio and every route) takes the first of two same-named headers; a
check that took the last would decide on a body the route then reads differently (two
Content-Type headers: multipart for the route, JSON for the check). The guard reads headers
as Starlette does and refuses, before anything reads a body, a request that holds two of a
header that decides how the body or the caller is read, or both body framings at once.
"""

from collections import Counter

from starlette.types import Scope

from ragspace.access import AUTH_HEADER

# headers a request may hold once: they say how to read its body or who sends it
SINGLE = (
    "content-type",
    "content-length",
    "transfer-encoding",
    "content-encoding",
    "host",
    "origin",
    "cookie",
    "authorization",
    AUTH_HEADER.lower(),
)


def headers_of(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name, the first of two as Starlette reads them."""
    found: dict[str, str] = {}
    for name, value in scope["headers"]:
        found.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return found


def ambiguity(scope: Scope) -> str | None:
    """Why two readers could read the request differently, or None when they cannot."""
    counts = Counter(name.decode("latin-1").lower() for name, _ in scope["headers"])
    doubled = [name for name in SINGLE if counts[name] > 1]
    if doubled:
        return f"Ambiguous request: it holds more than one {doubled[0]} header."
    if counts["content-length"] and counts["transfer-encoding"]:
        return "Ambiguous request: it holds both Content-Length and Transfer-Encoding."
    return None
