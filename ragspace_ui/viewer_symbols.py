"""Code navigation in the viewer, from the symbol table: a use of a name links to the
definition it refers to (go to definition), a definition opened lists where it is used, and
a code document shows its outline. A name links only where the file's parse recorded a use
of it on that line, resolved by its place (`symbols/resolution.py`); a link that is only a
guess by name is drawn dashed and says so. Links are the viewer's own line links
(`?docset=…&path=…&lines=a-b`), so they work without script and can be shared."""

import html
import re
from dataclasses import dataclass

from ragspace.actions import Actions
from ragspace.actions.symbols import References, ShownUses
from ragspace.errors import RagspaceError
from ragspace.links import LineLink, view_url
from ragspace.models import DocumentText
from ragspace.symbols.records import SymbolLocation
from ragspace.symbols.resolution import COMPLEX, Resolution, enclosing_container, resolve
from ragspace.text.languages import is_prose

# Pygments' token classes for names (functions, classes, attributes, variables...)
_NAME_SPAN = re.compile(
    r'<span class="(?:n|nf|nc|nx|na|nn|nv|fm|py|nb|bp|no|ne|nd|nl|nt|vc|vg|vi|vm)">'
    r"([A-Za-z_$][\w$]*)</span>"
)
# each line of the viewer's HTML (`viewer._NumberedLines`): its head with its number, its code
_LINE_START = re.compile(r'(?=<span class="rs-line )')
_LINE_HEAD = re.compile(
    r'<span class="rs-line [^"]*" id="rs-L(\d+)"><span class="rs-ln">\d+</span>'
)
_TAG = re.compile(r"<[^>]+>")
# what stands before a name: `owner.`, `owner::`, `owner->`; or an expression's end `).`
_RECEIVER = re.compile(r"([A-Za-z_$][\w$]*)\s*(?:\.|::|->)\s*$")
_CALLED = re.compile(r"\s*!?\s*\(")
_EXPRESSION = re.compile(r"[)\]}'\"]\s*(?:\.|->)\s*$")
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
    path: str
    shown: ShownUses  # the uses on the lines shown, and their names' definitions
    outline: list[SymbolLocation]
    references: References | None  # when the range opened starts a definition


def symbol_view(actions: Actions, document: DocumentText, first_line: int) -> SymbolView | None:
    """The symbol table's facts for a rendered range (None: prose, or nothing known)."""
    meta = document.document
    if is_prose(meta.language):
        return None
    try:
        outline = actions.symbols.outline(meta.docset_name, meta.path, meta.ref)
        lines = (document.start_line, document.end_line)
        shown = actions.symbols.shown_uses(meta.docset_name, meta.id, meta.path, lines, meta.ref)
        opened = next((d for d in outline if d.start_line == first_line), None)
        uses = None
        if opened is not None:
            ref = meta.ref or None
            uses = actions.symbols.references(opened.name, [meta.docset_name], ref)
    except RagspaceError:  # the table is an extra: the lines still show without it
        return None
    if not outline and not shown.targets:
        return None
    return SymbolView(meta.docset_name, meta.ref, meta.path, shown, outline, uses)


def linked_body(body: str, view: SymbolView) -> str:
    """The highlighted lines with each use the table resolves made a link to its definition
    (a guess by name marked as one)."""

    def line(part: str) -> str:
        head = _LINE_HEAD.match(part)
        if head is None:  # what comes before the first line
            return part
        number = int(head[1])
        container = enclosing_container(view.outline, number)
        code = part[head.end() :]

        names = _NAME_SPAN.findall(code)

        def link(name: re.Match[str]) -> str:
            kinds = view.shown.uses.get((name[1], number))
            if kinds is None:
                return name[0]
            after = html.unescape(_TAG.sub("", code[name.end() : name.end() + 200]))
            if kinds == {"call"} and names.count(name[1]) > 1 and not _CALLED.match(after):
                return name[0]  # `request(request)`: the call links, its argument does not
            before = html.unescape(_TAG.sub("", code[: name.start()]))
            found = resolve(
                name[1],
                _receiver(before),
                view.path,
                container,
                view.shown.targets.get(name[1], []),
            )
            return name[0] if found is None else _symbol_link(view, name[0], name[1], found)

        return head[0] + _NAME_SPAN.sub(link, code)

    return "".join(line(part) for part in _LINE_START.split(body))


def _receiver(before: str) -> str | None:
    """The identifier a name is an attribute of (`self`, `Session`), '' for a bare name,
    None (COMPLEX) after an expression."""
    owner = _RECEIVER.search(before)
    if owner:
        return owner[1]
    return COMPLEX if _EXPRESSION.search(before) else ""


def _symbol_link(view: SymbolView, shown: str, name: str, found: Resolution) -> str:
    target = found.target
    href = _href(view, target.path, target.start_line, target.end_line)
    if found.certain:
        title = f"go to the definition: {target.qualified_name}"
        return f'<a class="rs-sym" href="{href}" title="{html.escape(title)}">{shown}</a>'
    title = (
        f"a guess: {found.candidates} definition(s) named {name}, and the table cannot tell "
        f"which this is; this opens {target.qualified_name}"
    )
    return f'<a class="rs-sym rs-guess" href="{href}" title="{html.escape(title)}">{shown}</a>'


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
