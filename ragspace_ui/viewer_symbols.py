"""Code navigation in the viewer, from the symbol table: identifiers that have a definition
in the DocSet link to it (go to definition), a definition opened lists where it is used, and
a code document shows its outline. Links are the viewer's own line links
(`?docset=…&path=…&lines=a-b`), so they work without script and can be shared."""

import html
import re
from dataclasses import dataclass

from ragspace.actions import Actions
from ragspace.actions.symbols import References
from ragspace.errors import RagspaceError
from ragspace.links import LineLink, view_url
from ragspace.models import DocumentText
from ragspace.symbols.records import SymbolLocation
from ragspace.text.languages import is_prose

# Pygments' token classes for names (functions, classes, attributes, variables...)
_NAME_SPAN = re.compile(
    r'<span class="(?:n|nf|nc|nx|na|nn|nv|fm|py|nb|bp|no|ne|nd|nl|nt|vc|vg|vi|vm)">'
    r"([A-Za-z_$][\w$]*)</span>"
)
REFERENCES_SHOWN = 20
OUTLINE_SHOWN = 200
# The theme gives links a padding (`padding: 2px 8px`): inside code that printed spaces that
# are not in the file, so a link in the code is exactly its text. The lists of uses and the
# outline wrap between their entries, and inside an entry longer than the box (phones).
SYMBOLS_CSS = """
.rs-viewer a.rs-sym { color: inherit; text-decoration: underline dotted; padding: 0 !important;
  margin: 0 !important; border: 0 !important; background: none !important;
  display: inline !important; font: inherit !important; border-radius: 0 !important; }
.rs-viewer a.rs-guess { text-decoration-style: dashed; text-decoration-color: #b45309; }
.rs-outline, .rs-refs { margin: 0.3em 0; max-width: 100%; overflow-wrap: anywhere; }
.rs-outline a, .rs-refs a { display: inline-block; max-width: 100%; margin-right: 0.8em;
  white-space: normal; overflow-wrap: anywhere; }
"""


@dataclass(frozen=True)
class SymbolView:
    """What the symbol table adds to one opened range of a code document."""

    docset: str
    ref: str
    definitions: dict[str, tuple[str, int, int]]  # name on screen -> path, lines
    outline: list[SymbolLocation]
    references: References | None  # when the range opened starts a definition


def symbol_view(
    actions: Actions, document: DocumentText, body: str, first_line: int
) -> SymbolView | None:
    """The symbol table's facts for a rendered range (None: prose, or nothing known)."""
    meta = document.document
    if is_prose(meta.language):
        return None
    try:
        outline = actions.symbols.outline(meta.docset_name, meta.path, meta.ref)
        names = sorted(set(_NAME_SPAN.findall(body)))
        found = actions.symbols.definitions_of_names(meta.docset_name, names, meta.path, meta.ref)
        opened = next((d for d in outline if d.start_line == first_line), None)
        uses = None
        if opened is not None:
            ref = meta.ref or None
            uses = actions.symbols.references(opened.name, [meta.docset_name], ref)
    except RagspaceError:  # the table is an extra: the lines still show without it
        return None
    if not outline and not found:
        return None
    return SymbolView(meta.docset_name, meta.ref, found, outline, uses)


def linked_body(body: str, view: SymbolView) -> str:
    """The highlighted lines with each identifier that has a definition made a link to it."""

    def link(match: re.Match[str]) -> str:
        target = view.definitions.get(match[1])
        if target is None:
            return match[0]
        href = _href(view, *target)
        return f'<a class="rs-sym" href="{href}" title="go to the definition">{match[0]}</a>'

    return _NAME_SPAN.sub(link, body)


def symbol_head(view: SymbolView) -> list[str]:
    """The viewer heading's additions: the references of the opened definition, the outline."""
    parts: list[str] = []
    if view.references is not None and view.references.places:
        uses = view.references
        links = [
            _anchor(view, p.path, p.start_line, p.start_line, _use_label(p))
            for p in uses.places[:REFERENCES_SHOWN]
        ]
        more = f" and {uses.total - len(links)} more" if uses.total > len(links) else ""
        name = html.escape(uses.name)
        times = "once" if uses.total == 1 else f"{uses.total} times"
        parts.append(
            f'<div class="rs-refs"><code>{name}</code> is used {times}: '
            + " ".join(links)
            + f"{more}</div>"
        )
    if view.outline:
        links = [
            _anchor(view, d.path, d.start_line, d.end_line, f"{d.kind} {d.qualified_name}")
            for d in view.outline[:OUTLINE_SHOWN]
        ]
        parts.append(
            f'<details class="rs-outline"><summary>Outline ({len(view.outline)})</summary>'
            + " ".join(links)
            + "</details>"
        )
    return parts


def _use_label(place: SymbolLocation) -> str:
    inside = f" ({place.qualified_name})" if place.qualified_name else ""
    return f"{place.path.rsplit('/', 1)[-1]}:{place.start_line}{inside}"


def _href(view: SymbolView, path: str, start: int, end: int) -> str:
    link = LineLink(view.docset, path, start, end, view.ref or None)
    return html.escape(view_url("", link).lstrip("/"), quote=True)  # `?docset=…`: this page


def _anchor(view: SymbolView, path: str, start: int, end: int, label: str) -> str:
    return f'<a href="{_href(view, path, start, end)}">{html.escape(label)}</a>'
