"""The DocSet's code map, drawn: its most important files as boxes around an ellipse (the
most important at the top, then clockwise), a line between two files the symbol table links
(one uses a name the other defines; thicker, the stronger), each file's top definitions in
its box; below, the definitions ranked. Every file and definition is a line link that opens
it in the viewer (`?docset=…&path=…&lines=a-b`, as the viewer's own links)."""

import html
import math
from dataclasses import dataclass

from ragspace.links import LineLink, view_url
from ragspace.symbols.repo_graph import MapFile, RepoGraph

WIDTH = 980
BOX_WIDTH = 240
LINKS_DRAWN = 16  # the strongest; more only crossed the picture
LINE_HEIGHT = 17
TOP_DEFINITIONS = 15
PATH_CHARS = 30
NAME_CHARS = 30
MAP_CSS = """
.rs-map { overflow-x: auto; }
.rs-map svg { width: 100%; min-width: 720px; height: auto; font-size: 13px; }
.rs-map .rs-map-file rect { fill: #eef2ff; stroke: #6366f1; }
.rs-map a { text-decoration: none !important; padding: 0 !important; }
.rs-map .rs-map-file a text { fill: #1f2937; text-decoration: none; }
.rs-map a:hover text { text-decoration: underline; fill: #4338ca; }
.rs-map line { stroke: #94a3b8; stroke-opacity: 0.75; }
.rs-map ol { margin-top: 0.5em; overflow-wrap: anywhere; }
"""
EMPTY_MAP = (
    "<p><em>No code definitions in this DocSet yet (the map is drawn from the symbol table "
    "of its code files, once they are chunked).</em></p>"
)


@dataclass(frozen=True)
class _Box:
    x: float
    y: float
    height: float

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + BOX_WIDTH / 2, self.y + self.height / 2


def map_html(graph: RepoGraph, ref: str | None = None) -> str:
    """The map's picture and the ranked definitions, as HTML (every text escaped)."""
    if not graph.files:
        return EMPTY_MAP
    boxes, height = _layout(graph.files)
    parts = [
        f'<svg viewBox="0 0 {WIDTH} {height:.0f}" role="img" '
        f'aria-label="Code map of {html.escape(graph.docset, quote=True)}">',
        *_links(graph, boxes),
        *(_file(graph.docset, ref, f, box) for f, box in zip(graph.files, boxes, strict=True)),
        "</svg>",
    ]
    shown = f"{len(graph.files)} of {graph.files_total} files with definitions"
    head = (
        f"<p><b>Code map of {html.escape(graph.docset)}</b> · {shown}, the most important "
        "first (used by the most other files); a line joins two files when one uses what "
        "the other defines.</p>"
    )
    return f'<div class="rs-map">{head}{"".join(parts)}{_ranked(graph, ref)}</div>'


def _layout(files: list[MapFile]) -> tuple[list[_Box], float]:
    """Boxes around an ellipse, the first at the top; the picture's height."""
    heights = [24 + LINE_HEIGHT * len(f.definitions) for f in files]
    tallest = max(heights)
    count = len(files)
    # eight boxes 45 degrees apart clear each other when ry is at least about 3.4 box heights
    ry = 0.0 if count == 1 else max(150.0, tallest * 1.2 * count / 2.8)
    rx = (WIDTH - BOX_WIDTH) / 2 - 10
    height = 2 * ry + tallest + 20
    boxes = []
    for index, box_height in enumerate(heights):
        angle = -math.pi / 2 + 2 * math.pi * index / count
        cx, cy = WIDTH / 2 + rx * math.cos(angle), height / 2 + ry * math.sin(angle)
        boxes.append(_Box(cx - BOX_WIDTH / 2, cy - box_height / 2, box_height))
    return boxes, height


def _links(graph: RepoGraph, boxes: list[_Box]) -> list[str]:
    strongest = max((link.weight for link in graph.links), default=1.0)
    lines = []
    for link in graph.links[:LINKS_DRAWN]:
        (x1, y1), (x2, y2) = boxes[link.first].centre, boxes[link.second].centre
        width = 1 + 4 * link.weight / strongest
        first, second = graph.files[link.first].path, graph.files[link.second].path
        lines.append(
            f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" '
            f'stroke-width="{width:.1f}"><title>{html.escape(first)} and '
            f"{html.escape(second)} use each other's names</title></line>"
        )
    return lines


def _file(docset: str, ref: str | None, file: MapFile, box: _Box) -> str:
    first = min((d.start_line for d in file.definitions), default=1)
    place = (docset, ref, file.path)
    title = _link(place, first, first, _cut(file.path, PATH_CHARS), box.x + 8, box.y + 17, True)
    rows = [
        _link(
            place,
            d.start_line,
            d.end_line,
            _cut(d.qualified_name, NAME_CHARS),
            box.x + 10,
            box.y + 38 + LINE_HEIGHT * n,
            kind=d.kind,
        )
        for n, d in enumerate(file.definitions)
    ]
    return (
        f'<g class="rs-map-file"><rect x="{box.x:.0f}" y="{box.y:.0f}" width="{BOX_WIDTH}" '
        f'height="{box.height:.0f}" rx="6"/>{title}{"".join(rows)}</g>'
    )


def _link(
    place: tuple[str, str | None, str],
    start: int,
    end: int,
    label: str,
    x: float,
    y: float,
    bold: bool = False,
    kind: str = "",
) -> str:
    """A label at (x, y) linking to lines `start`-`end` of the file `place` names."""
    docset, ref, path = place
    weight = ' font-weight="bold"' if bold else ""
    where = f"{kind} in " if kind else ""
    return (
        f'<a href="{_href(docset, ref, path, start, end)}"><title>{html.escape(where)}'
        f'{html.escape(path)}:{start}</title><text x="{x:.0f}" y="{y:.0f}"{weight}>'
        f"{html.escape(label)}</text></a>"
    )


def _ranked(graph: RepoGraph, ref: str | None) -> str:
    """The most important definitions of the files shown, as a list of links."""
    every = [(d, f.path) for f in graph.files for d in f.definitions]
    every.sort(key=lambda pair: -pair[0].importance)
    items = [
        f'<li><a href="{_href(graph.docset, ref, path, d.start_line, d.end_line)}">'
        f"{html.escape(d.kind)} {html.escape(d.qualified_name)}</a> · "
        f"{html.escape(path)}:{d.start_line}</li>"
        for d, path in every[:TOP_DEFINITIONS]
    ]
    return f"<details><summary>Top definitions</summary><ol>{''.join(items)}</ol></details>"


def _href(docset: str, ref: str | None, path: str, start: int, end: int) -> str:
    link = LineLink(docset, path, start, end, ref)
    return html.escape(view_url("", link).lstrip("/"), quote=True)  # `?docset=…`: this page


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]
