"""Answers built from retrieved passages, each cited with its document and line range."""

from typing import Any
from urllib.parse import quote

from ragspace.models import Answer, Citation, Hit

SNIPPET_CHARS = 700


def cite(hit: Hit, number: int) -> Citation:
    """The citation of a hit: document, exact line range and a short snippet."""
    return Citation(
        number=number,
        label=f"{hit.path} ({_position(hit)})",
        path=hit.path,
        start_line=hit.start_line,
        end_line=hit.end_line,
        url=citation_url(hit.metadata, hit.start_line, hit.end_line),
        snippet=_snippet(hit.content),
    )


def citation_url(metadata: dict[str, Any], start: int, end: int) -> str | None:
    """A link to the cited lines: GitHub blob pinned to a commit, or a web page's section."""
    if metadata.get("source") == "github" and metadata.get("commit"):
        url = (
            f"{metadata['html_url']}/blob/{metadata['commit']}/{quote(str(metadata['repo_path']))}"
        )
        if "page" in metadata or "cell" in metadata:  # GitHub renders these, lines mean nothing
            return url
        return url + (f"#L{start}" if start == end else f"#L{start}-L{end}")
    if metadata.get("url"):
        anchor = metadata.get("anchor")
        return f"{metadata['url']}#{anchor}" if anchor else str(metadata["url"])
    return None


def _position(hit: Hit) -> str:
    """`page 3` / `pages 2-3` (PDF), `cells 2-4` (notebook), otherwise `lines 12-30`."""
    page, page_end = (
        hit.metadata.get("page"),
        hit.metadata.get("page_end", hit.metadata.get("page")),
    )
    if page is not None:
        return f"page {page}" if page == page_end else f"pages {page}-{page_end}"
    cell, cell_end = (
        hit.metadata.get("cell"),
        hit.metadata.get("cell_end", hit.metadata.get("cell")),
    )
    if cell is not None:
        return f"cell {cell}" if cell == cell_end else f"cells {cell}-{cell_end}"
    return f"lines {line_range(hit.start_line, hit.end_line)}"


def line_range(start: int, end: int) -> str:
    """`12-30`, or `12` for a single line."""
    return str(start) if start == end else f"{start}-{end}"


def extractive_answer(question: str, hits: list[Hit]) -> Answer:
    """An answer without a language model: the best passages, ranked and cited."""
    if not hits:
        return Answer(
            text=(
                "I found no passage about this in the selected DocSets. "
                "Check that their documents have finished embedding, or rephrase the question."
            )
        )
    citations = [cite(hit, number) for number, hit in enumerate(hits, start=1)]
    parts = [f"The most relevant passages for **{_one_line(question)}**:"]
    for hit, citation in zip(hits, citations, strict=True):
        fence_language = str(hit.metadata.get("language", ""))
        parts.append(
            f"**[{citation.number}] {citation.label}** · DocSet *{hit.docset_name}*"
            f" · score {hit.score:.2f}\n\n{fenced(citation.snippet, fence_language)}"
        )
    return Answer(text="\n\n".join(parts), citations=citations, hits=hits)


def _snippet(content: str) -> str:
    if len(content) <= SNIPPET_CHARS:
        return content
    cut = content.rfind("\n", 0, SNIPPET_CHARS)
    return content[: cut if cut > SNIPPET_CHARS // 2 else SNIPPET_CHARS].rstrip() + "\n…"


def fenced(text: str, language: str) -> str:
    """A markdown code block that no backticks inside the text can close early."""
    fence = "```"
    while fence in text:  # a longer fence than any run of backticks inside
        fence += "`"
    info = "" if language in {"text", "markdown", "rst"} else language
    return f"{fence}{info}\n{text}\n{fence}"


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]
