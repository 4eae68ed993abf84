"""The source viewer: a cited document in the app, its lines numbered, the cited ones marked.

The passage's range is shaded, the lines that matched best (or that the answer's quote was
found in) are highlighted, and a few lines of context are shown around them. Code and
markdown are syntax-highlighted by Pygments; every character of the document is escaped.
"""

import html
from collections.abc import Iterator

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from ragspace.actions import Actions
from ragspace.links import LineLink
from ragspace.models import Citation, DocumentText
from ragspace_ui.routes import original_url
from ragspace_ui.viewer_symbols import SYMBOLS_CSS, linked_body, symbol_head, symbol_view

CONTEXT_LINES = 12  # shown above the best-matching lines and below the passage
DOCUMENT_LINES = 1_000  # a document opened on its own shows this many lines at most
# Pygments' lexer names for ragspace's language names where they differ
_LEXERS = {"text": "text", "template": "html+jinja", "shell": "bash", "notebook": "python"}
VIEWER_CSS = (
    """
.rs-viewer { font-size: 13px; line-height: 1.45; overflow: auto; margin: 0; max-height: 70vh; }
.rs-line { display: block; white-space: pre-wrap; overflow-wrap: anywhere; padding-left: 4.2em;
  text-indent: -4.2em; }
.rs-ln { display: inline-block; width: 3.4em; margin-right: 0.8em; text-align: right;
  color: #8a8a8a; user-select: none; text-indent: 0; }
.rs-passage { background: rgba(255, 200, 0, 0.10); }
.rs-focus { background: rgba(255, 200, 0, 0.38); }
.rs-viewer-head { margin-bottom: 0.4em; }
.rs-hidden { display: none !important; }
"""
    + SYMBOLS_CSS
)
EMPTY_VIEWER = "<p><em>Open a source to read it here, at the cited lines.</em></p>"


def viewer_notice(text: str) -> str:
    """A message in the viewer's place (escaped)."""
    return f"<p><em>{html.escape(text)}</em></p>"


class _NumberedLines(HtmlFormatter):  # type: ignore[misc]  # untyped base
    """Pygments' HTML, one block per line with its number and its role in the citation."""

    def __init__(self, first: int, passage: tuple[int, int], focus: tuple[int, int]) -> None:
        super().__init__(nowrap=False)
        self._first, self._passage, self._focus = first, passage, focus

    def wrap(self, source: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
        yield 0, '<pre class="rs-viewer"><code>'
        number = self._first
        for is_line, text in source:
            if not is_line:
                yield is_line, text
                continue
            role = self._role(number)
            line_id = f' id="rs-L{number}"'
            yield (
                1,
                f'<span class="rs-line {role}"{line_id}><span class="rs-ln">{number}</span>'
                f"{text.rstrip(chr(10))}</span>",
            )
            number += 1
        yield 0, "</code></pre>"

    def _role(self, number: int) -> str:
        if self._focus[0] <= number <= self._focus[1]:
            return "rs-focus"
        return "rs-passage" if self._passage[0] <= number <= self._passage[1] else ""


def _lexer(language: str):  # type: ignore[no-untyped-def]
    # stripnl=False: by default Pygments drops leading and trailing blank lines, which
    # would shift every line number after them
    try:
        return get_lexer_by_name(_LEXERS.get(language, language or "text"), stripnl=False)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False)


def numbered_html(
    text: str, language: str, first: int, passage: tuple[int, int], focus: tuple[int, int]
) -> str:
    """Lines `first`... of a document as highlighted, numbered, escaped HTML."""
    formatter = _NumberedLines(first, passage, focus)
    # Pygments drops one trailing newline; keep blank last lines as lines
    return str(highlight(text + "\n", _lexer(language), formatter))


def focus_of(citation: Citation) -> tuple[int, int]:
    """The lines to highlight: the best-matching (or quoted) ones, else the whole passage."""
    if citation.focus_start_line and citation.focus_end_line:
        return citation.focus_start_line, citation.focus_end_line
    return citation.start_line, citation.end_line


def viewer_html(document: DocumentText, citation: Citation, actions: Actions | None = None) -> str:
    """The viewer for one citation: a heading with the origin link, then the numbered lines."""
    focus = focus_of(citation)
    title = html.escape(document.document.path)
    where = f"lines {citation.start_line}-{citation.end_line} of {document.total_lines}"
    parts = [f"<b>[{citation.number}] {title}</b> · {where}"]
    if focus != (citation.start_line, citation.end_line):
        parts.append(f"best-matching lines {focus[0]}-{focus[1]}")
    if citation.verification:
        parts.append(html.escape(citation.verification))
    if citation.url:
        parts.append(_link(citation.url, _origin_label(citation.url)))
    parts.extend(_original_link(document, _cited_line(document, citation, focus)))
    return _viewer(document, parts, (citation.start_line, citation.end_line), focus, actions)


def _viewer(
    document: DocumentText,
    head: list[str],
    passage: tuple[int, int],
    focus: tuple[int, int],
    actions: Actions | None = None,
) -> str:
    """The viewer's heading (its parts joined) over the document's numbered lines; with
    the actions, code identifiers link to their definitions (`viewer_symbols`)."""
    if document.continuation:  # the range was capped (reading.window): say what comes next
        head = [*head, html.escape(document.continuation)]
    body = numbered_html(
        document.text, document.document.language, document.start_line, passage, focus
    )
    view = symbol_view(actions, document, passage[0]) if actions else None
    extra = ""
    if view is not None:
        body = linked_body(body, view)
        extra = "".join(symbol_head(view))
    return f'<div class="rs-viewer-head">{" · ".join(head)}</div>{extra}{body}'


def _link(url: str, label: str) -> str:
    return (
        f'<a href="{html.escape(url, quote=True)}" target="_blank" rel="noopener">'
        f"{html.escape(label)}</a>"
    )


def _cited_line(document: DocumentText, citation: Citation, focus: tuple[int, int]) -> int:
    """The line a citation's quote starts on (else the first highlighted line): the PDF
    page to open is the one the quoted words are on, not the one the highlight starts on."""
    first_line = citation.quote.strip().split("\n")[0]
    key = " ".join(first_line.split())[:40]
    if key:
        lines = document.text.split("\n")
        for number in range(focus[0], focus[1] + 1):
            index = number - document.start_line
            if 0 <= index < len(lines) and key in " ".join(lines[index].split()):
                return number
    return focus[0]


def _original_link(document: DocumentText, line: int) -> list[str]:
    """A link to the stored PDF at the page `line` comes from (none for other documents)."""
    page = document.page_at(line)
    if not document.has_original or page is None:
        return []
    url = original_url(document.document.docset_name, document.document.path, page)
    return [_link(url, f"open the PDF at page {page}")]


def _origin_label(url: str) -> str:
    if "github.com" in url and "/blob/" in url:
        return "open at the commit on GitHub"
    return "open the page"


def open_citation(actions: Actions, citation: Citation, docset: str) -> str:
    """Read the cited document around the passage and render it (errors become a message)."""
    # the window opens CONTEXT_LINES above the best-matching lines (not above the passage),
    # so they are in view at once even in a long passage; the heading gives the whole range
    focus_start, focus_end = focus_of(citation)
    start = max(1, focus_start - CONTEXT_LINES)
    end = max(citation.end_line, focus_end) + CONTEXT_LINES
    document = actions.documents.read(docset, citation.path, start, end, citation.ref)
    return viewer_html(document, citation, actions)


def document_html(document: DocumentText, actions: Actions | None = None) -> str:
    """A document (or its first lines) in the viewer, numbered, without a citation."""
    title = html.escape(document.document.path)
    shown = f"lines {document.start_line}-{document.end_line} of {document.total_lines}"
    if document.end_line < document.total_lines:
        shown += " (more: <code>ragspace docs show</code> or MCP <code>read_document</code>)"
    parts = [f"<b>{title}</b>", shown, *_original_link(document, document.start_line)]
    none = (0, 0)  # no passage, no focus: every line plain
    return _viewer(document, parts, none, none, actions)


def open_document(actions: Actions, docset: str, path: str, ref: str | None = None) -> str:
    """Read a document's first lines (at `ref`, if given; as many as `reading.window` allows)."""
    return document_html(actions.documents.read(docset, path, 1, DOCUMENT_LINES, ref), actions)


def open_line_link(actions: Actions, link: LineLink) -> str:
    """The viewer at a linked range: the lines highlighted, some context around them."""
    start = max(1, link.start_line - CONTEXT_LINES)
    end_line = link.end_line + CONTEXT_LINES
    document = actions.documents.read(link.docset, link.path, start, end_line, link.ref)
    end = min(link.end_line, document.end_line)
    title = html.escape(document.document.path)
    where = f"lines {link.start_line}-{end} of {document.total_lines}"
    parts = [f"<b>{title}</b>", where, *_original_link(document, link.start_line)]
    lines = (link.start_line, end)
    return _viewer(document, parts, lines, lines, actions)
