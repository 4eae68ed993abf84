"""Citations: where a passage lives, as a label a person reads and a link that opens it."""

import re

from ragspace.models import Citation, Passage

SNIPPET_CHARS = 700
_REMOVED = "\x00"  # marks a dropped citation so the space before it goes too
_CITATION = re.compile(r"\[(\s*\d+\s*(?:,\s*\d+\s*)*)\]")


def line_range(start: int, end: int) -> str:
    """`12-30`, or `12` for a single line."""
    return str(start) if start == end else f"{start}-{end}"


def passage_label(passage: Passage) -> str:
    """`path (lines a-b)`, or `path (page n)` for PDFs."""
    page = passage.metadata.get("page")
    if page is not None:
        return f"{passage.path} (page {page})"
    return f"{passage.path} (lines {line_range(passage.start_line, passage.end_line)})"


def passage_url(passage: Passage) -> str | None:
    """A link to the exact lines at the exact commit (GitHub) or the page section (web)."""
    meta = passage.metadata
    repo, commit = meta.get("repo"), meta.get("commit")
    if repo and commit:
        path = str(meta.get("repo_path", passage.path)).lstrip("/")
        lines = f"L{passage.start_line}" + (
            f"-L{passage.end_line}" if passage.end_line != passage.start_line else ""
        )
        return f"https://github.com/{repo}/blob/{commit}/{path}#{lines}"
    url = meta.get("url")
    if url:
        anchor = meta.get("anchor")
        return f"{url}#{anchor}" if anchor else str(url)
    return None


def passage_context(passage: Passage) -> str:
    """The heading path or enclosing symbol of a passage, when known."""
    return str(passage.metadata.get("heading_path") or passage.metadata.get("symbol") or "")


def cite(passage: Passage) -> Citation:
    """The citation of a passage."""
    return Citation(
        number=passage.number,
        label=passage_label(passage),
        path=passage.path,
        start_line=passage.start_line,
        end_line=passage.end_line,
        url=passage_url(passage),
        context=passage_context(passage),
        snippet=snippet(passage.content),
    )


def snippet(content: str) -> str:
    """The start of a passage, cut at a line end when possible."""
    if len(content) <= SNIPPET_CHARS:
        return content
    cut = content.rfind("\n", 0, SNIPPET_CHARS)
    return content[: cut if cut > SNIPPET_CHARS // 2 else SNIPPET_CHARS].rstrip() + "\n…"


def verify_citations(text: str, passages: list[Passage]) -> tuple[str, list[Citation]]:
    """Drop citations of passages that were not given; return the text and what it cites."""
    known = {p.number: p for p in passages}
    cited: list[int] = []

    def keep_known(match: re.Match[str]) -> str:
        numbers = [int(n) for n in match.group(1).split(",")]
        valid = [n for n in numbers if n in known]
        cited.extend(n for n in valid if n not in cited)
        return "".join(f"[{n}]" for n in valid) or _REMOVED

    cleaned = _CITATION.sub(keep_known, text)
    cleaned = re.sub(rf"[ \t]*{_REMOVED}", "", cleaned)  # "foo [9]." becomes "foo."
    return cleaned, [cite(known[n]) for n in cited]


def link_citations(text: str, citations: list[Citation]) -> str:
    """Markdown: each `[n]` whose citation has a URL becomes a link to it."""
    urls = {c.number: c.url for c in citations if c.url}
    if not urls:
        return text

    def linked(match: re.Match[str]) -> str:
        numbers = [int(n) for n in match.group(1).split(",")]
        return "".join(f"[\\[{n}\\]]({urls[n]})" if n in urls else f"[{n}]" for n in numbers)

    return _CITATION.sub(linked, text)
