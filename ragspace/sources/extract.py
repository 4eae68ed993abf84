"""Text out of files: plain text and code, HTML (to markdown), PDF (per page), notebooks."""

import codecs
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from ragspace.errors import NoTextError, SourceError
from ragspace.text.languages import TREE_HTML_SUFFIXES, detect_language_of

_BINARY_SNIFF_BYTES = 8192
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
UNREADABLE_PDF = "not a readable PDF"
_BYTE_ORDER_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


@dataclass(frozen=True)
class Extracted:
    """Indexable text, its language, and where lines came from (pages, section anchors)."""

    text: str
    language: str
    metadata: dict[str, Any] = field(default_factory=dict)


def has_reader(path: str) -> bool:
    """True for formats read by a dedicated reader (PDF, notebooks, HTML) instead of as text."""
    return _suffix(path) in _SPECIAL


def extract(path: str, data: bytes, in_tree: bool = False) -> Extracted:
    """The text of a file; raises SourceError with a reason the user can act on.

    `in_tree`: the file belongs to a repository or folder, where HTML is a template
    (code, exact lines) rather than a web page to reduce to its main content. Files of
    an unknown type are indexed as plain text when their bytes are text.
    """
    if not data.strip():
        raise SourceError(f"{path} is empty.")
    if in_tree and _suffix(path) in TREE_HTML_SUFFIXES:
        return Extracted(_decode(path, data), "template")
    reader = _SPECIAL.get(_suffix(path))
    if reader is not None:
        return reader(path, data)
    text = _decode(path, data)
    return Extracted(text, detect_language_of(path, text) or "text")


def _suffix(path: str) -> str:
    return PurePosixPath(path).suffix.lower()


def _decode(path: str, data: bytes) -> str:
    # UTF-32's little-endian mark starts with UTF-16's, so it is tried first
    for mark, encoding in _BYTE_ORDER_MARKS:
        if data.startswith(mark):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError as exc:
                name = encoding.upper()
                raise NoTextError(
                    f"{path} starts like {name} text but is not (invalid byte at offset "
                    f"{exc.start}).",
                    f"not valid {name} text after its byte-order mark",
                ) from None
    if b"\x00" in data[:_BINARY_SNIFF_BYTES]:
        if _looks_utf16(data[:_BINARY_SNIFF_BYTES]):
            raise SourceError(
                f"{path} looks like UTF-16 text without a byte-order mark; save it as UTF-8."
            )
        raise SourceError(f"{path} looks binary (it contains NUL bytes), not text.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"{path} is not UTF-8 text (invalid byte at offset {exc.start}); save it as UTF-8."
        ) from None


def _looks_utf16(sample: bytes) -> bool:
    """ASCII-range text in UTF-16: every other byte is NUL, the others are not."""
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    half = len(sample) // 2
    return half >= 2 and min(even, odd) == 0 and max(even, odd) >= 0.8 * half


def _html(path: str, data: bytes) -> Extracted:
    markdown, anchors = html_to_markdown(_decode(path, data))
    if not markdown.strip():
        raise SourceError(f"{path}: no readable main content found in the HTML.")
    return Extracted(markdown, "markdown", {"anchors": anchors})


def html_to_markdown(html: str) -> tuple[str, list[list[Any]]]:
    """Main content as markdown, and `[line, anchor]` for each heading line in it."""
    main = _main_element(html)
    if main is not None:
        markdown = "\n\n".join(_blocks(main))
    else:  # no semantic container: let trafilatura find the content
        import trafilatura  # here, not at import: commands that extract nothing start faster

        markdown = (
            trafilatura.extract(
                html,
                output_format="markdown",
                include_formatting=True,
                include_tables=True,
                include_comments=False,
                favor_precision=True,
            )
            or ""
        )
    text = markdown.strip() + "\n"
    ids = _heading_ids(html)
    anchors: list[list[Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _HEADING.match(line)
        if match:
            title = _normalise(match.group(2))
            anchors.append([number, ids.get(title) or slugify(title)])
    return text, anchors


_MAIN_XPATH = (
    "//main | //article | //*[@role='main'] | //div[@itemprop='articleBody']"
    " | //div[contains(concat(' ', normalize-space(@class), ' '), ' document ')]"
)
_SKIP_TAGS = frozenset({"script", "style", "nav", "header", "footer", "aside", "noscript", "form"})
_BLOCK_TAGS = frozenset({"p", "pre", "ul", "ol", "table", "blockquote", "dl", "hr", *_HEADING_TAGS})


def _main_element(html: str) -> Any | None:
    import lxml.html

    try:
        root = lxml.html.fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return None
    found = root.xpath(_MAIN_XPATH)
    return found[0] if found else None


def _blocks(element: Any) -> list[str]:
    """Markdown blocks of an element: headings, paragraphs, lists, code, tables."""
    blocks: list[str] = []
    loose = _inline(element.text)
    for child in element:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag in _SKIP_TAGS:
            pass
        elif tag in _BLOCK_TAGS:
            if loose:
                blocks.append(loose)
            loose = ""
            blocks.extend(_block(child, tag))
        elif tag in ("div", "section", "main", "article", "figure", "details", "li", "dd"):
            if loose:
                blocks.append(loose)
            loose = ""
            blocks.extend(_blocks(child))
        else:
            loose = f"{loose} {_inline(child.text_content())}".strip()
        loose = f"{loose} {_inline(child.tail)}".strip()
    if loose:
        blocks.append(loose)
    return [b for b in blocks if b]


def _block(element: Any, tag: str) -> list[str]:
    if tag in _HEADING_TAGS:
        return [f"{'#' * int(tag[1])} {_normalise(element.text_content())}"]
    if tag == "pre":
        code = element.text_content().strip("\n")
        fence = "```"
        while fence in code:
            fence += "`"
        return [f"{fence}\n{code}\n{fence}"]
    if tag in ("ul", "ol"):
        items = [li for li in element if li.tag == "li"]
        marks = [f"{n}." if tag == "ol" else "-" for n in range(1, len(items) + 1)]
        return [
            "\n".join(
                f"{m} {_inline(li.text_content())}" for m, li in zip(marks, items, strict=True)
            )
        ]
    if tag == "table":
        rows = [
            "| " + " | ".join(_inline(cell.text_content()) for cell in row) + " |"
            for row in element.iter("tr")
        ]
        return ["\n".join(rows)] if rows else []
    if tag == "blockquote":
        return ["\n".join(f"> {line}" for line in "\n\n".join(_blocks(element)).splitlines())]
    if tag == "dl":
        return _blocks(element)
    if tag == "hr":
        return []
    return [_inline(element.text_content())]


def _inline(text: str | None) -> str:
    return " ".join((text or "").split())


def _heading_ids(html: str) -> dict[str, str]:
    """Heading text -> the id a browser scrolls to (on the heading, a child link or section)."""
    import lxml.html

    try:
        root = lxml.html.fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return {}
    ids: dict[str, str] = {}
    for element in root.iter(*_HEADING_TAGS):
        anchor = element.get("id") or _child_anchor(element) or _section_id(element)
        title = _normalise(element.text_content())
        if anchor and title and title not in ids:
            ids[title] = anchor
    return ids


def _child_anchor(element: Any) -> str | None:
    for child in element.iter("a"):
        if child.get("id") or child.get("name"):
            return str(child.get("id") or child.get("name"))
    return None


def _section_id(element: Any) -> str | None:
    parent = element.getparent()
    if parent is not None and parent.get("id") and parent.index(element) == 0:
        return str(parent.get("id"))
    return None


def _normalise(title: str) -> str:
    return " ".join(title.replace("¶", "").replace("#", " ").split()).strip()


def slugify(title: str) -> str:
    """GitHub-style heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    slug = re.sub(r"[^\w\- ]", "", title.lower(), flags=re.UNICODE)
    return slug.strip().replace(" ", "-")


def _pdf(path: str, data: bytes) -> Extracted:
    import pypdf
    from pypdf.errors import PdfReadError

    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise NoTextError(
                f"{path} is password-protected; upload an unencrypted PDF.",
                "password-protected PDF",
            )
        pages = [page.extract_text() or "" for page in reader.pages]
    except SourceError:
        raise
    except (PdfReadError, ValueError, KeyError) as exc:
        raise NoTextError(f"{path} is not a readable PDF ({exc}).", UNREADABLE_PDF) from None
    except Exception as exc:  # pypdf fails in many ways on hostile files; one bad PDF is no crash
        message = f"{path} is not a readable PDF ({type(exc).__name__})."
        raise NoTextError(message, UNREADABLE_PDF) from None
    lines: list[str] = []
    page_lines: list[list[int]] = []
    for number, page_text in enumerate(pages, start=1):
        page = [line.rstrip() for line in page_text.strip().splitlines()]
        if not any(page):
            continue
        if lines:
            lines.append("")
        page_lines.append([len(lines) + 1, number])
        lines.extend(page)
    if not lines:
        raise NoTextError(
            f"{path} has no extractable text (an image-only or scanned PDF needs OCR first).",
            "PDF with no extractable text (image-only or scanned)",
        )
    return Extracted("\n".join(lines) + "\n", "text", {"page_lines": page_lines})


def _notebook(path: str, data: bytes) -> Extracted:
    try:
        notebook = json.loads(_decode(path, data))
        cells = notebook["cells"]
    except (json.JSONDecodeError, KeyError, TypeError):
        raise SourceError(f"{path} is not a Jupyter notebook (nbformat 4 JSON).") from None
    language = _notebook_language(notebook)
    parts: list[str] = []
    cell_lines: list[list[int]] = []
    line = 1
    for number, cell in enumerate(cells, start=1):
        source = cell.get("source", "")
        text = ("".join(source) if isinstance(source, list) else str(source)).strip("\n")
        if not text.strip():
            continue
        if cell.get("cell_type") == "code":
            text = f"```{language}\n{text}\n```"
        cell_lines.append([line, number])
        line += text.count("\n") + 2  # the cell's lines and the blank line after it
        parts.append(text)
    if not parts:
        raise SourceError(f"{path} has no non-empty cells.")
    return Extracted("\n\n".join(parts) + "\n", "markdown", {"cell_lines": cell_lines})


def _notebook_language(notebook: dict[str, Any]) -> str:
    metadata = notebook.get("metadata", {})
    name = metadata.get("language_info", {}).get("name") or metadata.get("kernelspec", {}).get(
        "language", "python"
    )
    return str(name).lower()


_SPECIAL: dict[str, Callable[[str, bytes], Extracted]] = {
    ".html": _html,
    ".htm": _html,
    ".pdf": _pdf,
    ".ipynb": _notebook,
}
