"""Citations: where a passage lives, as a label a person reads and a link that opens it."""

import re
from typing import Any
from urllib.parse import quote

from ragspace.answering.focus import focus_range
from ragspace.models import Citation, Hit, Passage

SNIPPET_CHARS = 700
_REMOVED = "\x00"  # marks a dropped citation so the space before it goes too
_CITATION = re.compile(r"\[(\s*\d+\s*(?:,\s*\d+\s*)*)\]")


def line_range(start: int, end: int) -> str:
    """`12-30`, or `12` for a single line."""
    return str(start) if start == end else f"{start}-{end}"


def passage_label(passage: Passage) -> str:
    """`path (lines a-b)`; `path (pages 2-3)` for PDFs, `path (cells 2-4)` for notebooks."""
    return f"{passage.path} ({_position(passage)})"


def _position(passage: Passage) -> str:
    meta = passage.metadata
    for unit in ("page", "cell"):
        first = meta.get(unit)
        if first is not None:
            last = meta.get(f"{unit}_end", first)
            return f"{unit} {first}" if first == last else f"{unit}s {first}-{last}"
    return f"lines {line_range(passage.start_line, passage.end_line)}"


def passage_url(passage: Passage, lines: tuple[int, int] | None = None) -> str | None:
    """A link to the exact lines (the passage's, or `lines` inside it) at the exact commit
    (GitHub) or the page section (web)."""
    meta = passage.metadata
    if meta.get("source") == "github" and meta.get("commit"):
        url = f"{meta['html_url']}/blob/{meta['commit']}/{quote(str(meta['repo_path']))}"
        if "page" in meta or "cell" in meta:  # GitHub renders these; line anchors mean nothing
            return url
        start, end = lines or (passage.start_line, passage.end_line)
        return url + (f"#L{start}" if start == end else f"#L{start}-L{end}")
    if meta.get("url"):
        anchor = meta.get("anchor")
        return f"{meta['url']}#{anchor}" if anchor else str(meta["url"])
    return None


def passage_context(passage: Passage) -> str:
    """The heading path or enclosing symbol of a passage, when known."""
    return str(passage.metadata.get("heading_path") or passage.metadata.get("symbol") or "")


def cite(passage: Passage, question: str = "") -> Citation:
    """The citation of a passage, focused on the lines that match the question best."""
    focus = focus_range(passage, question)
    return Citation(
        number=passage.number,
        label=passage_label(passage),
        path=passage.path,
        start_line=passage.start_line,
        end_line=passage.end_line,
        url=passage_url(passage, focus),
        context=passage_context(passage),
        snippet=snippet(focused(passage, focus[0])),
        focus_start_line=focus[0],
        focus_end_line=focus[1],
        docset=passage.docset_name,
        ref=passage.ref,
        resolved_sha=passage.resolved_sha,
        indexed_at=passage.indexed_at,
    )


def version_data(citation: Citation) -> dict[str, Any]:
    """Which version the cited lines are from, as JSON: ref, resolved_sha, indexed_at."""
    indexed = citation.indexed_at.isoformat(timespec="seconds") if citation.indexed_at else None
    return {"ref": citation.ref, "resolved_sha": citation.resolved_sha, "indexed_at": indexed}


def version_text(citation: Citation) -> str:
    """`v3.0 @ 1a2b3c4d5e6f`, or '' for a source without versions."""
    if not citation.ref:
        return ""
    return f"{citation.ref} @ {(citation.resolved_sha or '?')[:12]}"


def focused(passage: Passage, first_line: int | None = None) -> str:
    """The passage from its best-matching line on (a widened passage starts at a neighbour)."""
    skip = (passage.focus_line if first_line is None else first_line) - passage.start_line
    if skip <= 0:
        return passage.content
    lines = passage.content.split("\n")
    return "…\n" + "\n".join(lines[skip:]) if skip < len(lines) else passage.content


def hit_passage(hit: Hit, number: int) -> Passage:
    """A passage of exactly one retrieved chunk (search results show chunks as they are)."""
    return Passage(
        number=number,
        document_id=hit.document_id,
        docset_name=hit.docset_name,
        path=hit.path,
        title=hit.title,
        start_line=hit.start_line,
        end_line=hit.end_line,
        content=hit.content,
        metadata=hit.metadata,
        score=hit.score,
        similarity=hit.vector_similarity,
        ref=hit.ref,
        resolved_sha=hit.resolved_sha,
        indexed_at=hit.indexed_at,
    )


def cite_hit(hit: Hit, number: int) -> Citation:
    """The citation of one retrieved chunk."""
    return cite(hit_passage(hit, number))


def snippet(content: str) -> str:
    """The start of a passage, cut at a line end when possible."""
    if len(content) <= SNIPPET_CHARS:
        return content
    cut = content.rfind("\n", 0, SNIPPET_CHARS)
    if cut > SNIPPET_CHARS // 2:
        return content[:cut].rstrip() + "\n…"
    # one long line (a wrapped-less paragraph): end at a sentence, else at a word
    sentence = max(content.rfind(end, 0, SNIPPET_CHARS) for end in (". ", "! ", "? "))
    cut = sentence + 1 if sentence > SNIPPET_CHARS // 2 else content.rfind(" ", 0, SNIPPET_CHARS)
    return content[: cut if cut > SNIPPET_CHARS // 2 else SNIPPET_CHARS].rstrip() + " …"


def verify_citations(
    text: str, passages: list[Passage], question: str = ""
) -> tuple[str, list[Citation]]:
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
    return cleaned, [cite(known[n], question) for n in cited]


def link_citations(text: str, citations: list[Citation]) -> str:
    """Markdown: each `[n]` whose citation has a URL becomes a link to it."""
    urls = {c.number: c.url for c in citations if c.url}
    if not urls:
        return text

    def linked(match: re.Match[str]) -> str:
        numbers = [int(n) for n in match.group(1).split(",")]
        return "".join(f"[\\[{n}\\]]({urls[n]})" if n in urls else f"[{n}]" for n in numbers)

    return _CITATION.sub(linked, text)
