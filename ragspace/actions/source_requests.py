"""GitHub and web source requests from what a person types: one set of rules for every door.

The web form, the MCP tools and the CLI all turn a location and a few options into the
same (kind, location, options) triple here, so a glob list or a default depth means the
same thing wherever it was typed.
"""

import re
from collections.abc import Iterable
from typing import NamedTuple

from ragspace.models import GithubOptions, SourceKind, WebOptions

# a crawl's defaults, written once in WebOptions; every front end shows and sends these
DEFAULT_DEPTH: int = WebOptions.model_fields["depth"].default
DEFAULT_MAX_PAGES: int = WebOptions.model_fields["max_pages"].default


class SourceRequest(NamedTuple):
    """What `SourceActions.add` and `.preview` take: unpack it into their arguments."""

    kind: SourceKind
    location: str
    options: GithubOptions | WebOptions


def globs(texts: str | Iterable[str] | None) -> list[str]:
    """Glob patterns typed one per line or separated by commas (one text or several)."""
    if texts is None:
        return []
    parts = [texts] if isinstance(texts, str) else list(texts)
    return [glob.strip() for text in parts for glob in re.split(r"[,\n]", text) if glob.strip()]


def github_request(
    location: str,
    ref: str | None,
    include: str | Iterable[str] | None,
    exclude: str | Iterable[str] | None,
) -> SourceRequest:
    """Kind (repository, or a single file for a .../blob/... URL), location and options."""
    kind = SourceKind.GITHUB_FILE if "/blob/" in location else SourceKind.GITHUB_REPO
    options = GithubOptions(
        ref=(ref or "").strip() or None, include=globs(include), exclude=globs(exclude)
    )
    return SourceRequest(kind, location.strip(), options)


def web_request(
    url: str, depth: float | None, max_pages: float | None, prefix: str | None
) -> SourceRequest:
    """Kind, location and options of a website crawl; unset numbers take the defaults."""
    options = WebOptions(
        depth=int(depth if depth is not None else DEFAULT_DEPTH),
        max_pages=int(max_pages or DEFAULT_MAX_PAGES),
        path_prefix=(prefix or "").strip() or None,
    )
    return SourceRequest(SourceKind.WEB, url.strip(), options)
