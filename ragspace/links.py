"""Links that open a document's lines in the app's viewer: `?docset=…&path=…&lines=a-b`.

MCP and CLI hits carry one as `view_url`, so a person can check a cited range in the app
(uploads have no other place to be opened at).
"""

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from ragspace.errors import ValidationError
from ragspace.models import Citation


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
    first, _, last = lines.partition("-")
    if not first.isdigit() or not (last or first).isdigit():
        raise ValidationError(f"lines={lines!r} is not a line range like 12-30.")
    start = max(1, int(first))
    end = max(start, int(last or first))
    return LineLink(docset, path, start, end, params.get("ref") or None)
