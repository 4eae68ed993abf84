"""Links that open a document's lines in the app's viewer: `?docset=…&path=…&lines=a-b`.

MCP and CLI hits carry one as `view_url`, so a person can check a cited range in the app
(uploads have no other place to be opened at).
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from ragspace.errors import ValidationError
from ragspace.models import Citation

# ASCII digits only: str.isdigit() accepts "²" and "٣", which int() then refuses or reads
_LINE_RANGE = re.compile(r"(?P<first>[0-9]{1,9})(?:-(?P<last>[0-9]{1,9}))?")


@dataclass(frozen=True)
class LineLink:
    """Lines of a document of a DocSet, 1-based and inclusive."""

    docset: str
    path: str
    start_line: int
    end_line: int
    ref: str | None = None  # of a versioned (GitHub) DocSet


def citation_link(docset: str, citation: Citation) -> LineLink:
    """The lines a citation points at (its best-matching ones), at its ref."""
    start = citation.focus_start_line or citation.start_line
    end = citation.focus_end_line or citation.end_line
    return LineLink(docset, citation.path, start, end, citation.ref or None)


def view_url(app_url: str, link: LineLink) -> str:
    """The app's address that opens `link` in its viewer."""
    params = {"docset": link.docset, "path": link.path}
    params["lines"] = f"{link.start_line}-{link.end_line}"
    if link.ref:
        params["ref"] = link.ref
    query = urlencode(params)
    return f"{app_url.rstrip('/')}/?{query}"


def parse_line_link(params: Mapping[str, str]) -> LineLink | None:
    """The lines a page address asks the viewer to open (None: it asks for none)."""
    docset, path = params.get("docset", ""), params.get("path", "")
    if not docset or not path:
        return None
    lines = params.get("lines", "1")
    match = _LINE_RANGE.fullmatch(lines)
    if match is None:
        shown = lines if len(lines) <= 40 else lines[:40] + "…"
        raise ValidationError(f"lines={shown!r} is not a line range like 12-30.")
    first, last = match["first"], match["last"]
    start = max(1, int(first))
    end = max(start, int(last or first))
    return LineLink(docset, path, start, end, params.get("ref") or None)
