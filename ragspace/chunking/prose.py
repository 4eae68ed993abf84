"""Headings of markdown, reStructuredText and HTML-derived text, and where sections begin."""

import re
from dataclasses import dataclass

from ragspace.chunking.lines import LINE, PARAGRAPH, LineTable

BLOCK = 3  # a paragraph boundary outside fenced code, or a fence edge

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(\S.*)$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_HTML_HEADING = re.compile(r"^[ \t]*<h([1-6])\b[^>]*>(.*?)</h\1>", re.IGNORECASE)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_RST_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}[ \t]*$")
_LONGEST_HEADING = 400
_TAGS = re.compile(r"<[^>]+>")
_SLUG_DROP = re.compile(r"[^\w\- ]")


@dataclass(frozen=True)
class Section:
    """A heading's lines up to the next heading, with its path and anchor."""

    first: int
    stop: int
    heading_path: str
    anchor: str
    has_body: bool


def slugify(title: str) -> str:
    """GitHub-style anchor: lower case, punctuation dropped, spaces to hyphens."""
    return _SLUG_DROP.sub("", title.strip().lower()).replace(" ", "-")


def headings(table: LineTable, language: str) -> tuple[list[tuple[int, int, str]], list[int]]:
    """(line, level, title) of each heading outside code fences, and boundary levels."""
    levels = [LINE] * len(table)
    found: list[tuple[int, int, str]] = []
    fence = ""
    rst_styles: list[str] = []
    lines = table.lines
    for number, line in enumerate(lines):
        if number and table.blank[number - 1] and not table.blank[number]:
            levels[number] = PARAGRAPH if fence else BLOCK
        marker = _FENCE.match(line)
        if marker and (not fence or marker.group(1).startswith(fence)):
            fence = "" if fence else marker.group(1)[:3]
            levels[number] = BLOCK
            continue
        if fence or table.blank[number]:
            continue
        heading = _heading(table, number, language, rst_styles)
        if heading is not None:
            found.append((number - heading[2], heading[0], heading[1]))
    return found, levels


def _heading(
    table: LineTable, number: int, language: str, rst_styles: list[str]
) -> tuple[int, str, int] | None:
    """(level, title, lines above the title that belong to it) when `number` is a heading."""
    line = table.lines[number]
    if language == "rst":
        return _rst_heading(table, number, rst_styles)
    if len(line) > _LONGEST_HEADING:
        return None
    match = _ATX.match(line)
    if match:
        return len(match.group(1)), _without_closing_hashes(match.group(2)), 0
    match = _HTML_HEADING.match(line)
    if match:
        return int(match.group(1)), _TAGS.sub("", match.group(2)), 0
    following = table.lines[number + 1] if number + 1 < len(table) else ""
    underline = _SETEXT.match(following)
    if underline and not line.lstrip().startswith(("-", "*", "|", ">")):
        return (1 if underline.group(1)[0] == "=" else 2), line.strip(), 0
    return None


def _without_closing_hashes(title: str) -> str:
    """`## Title ##` -> `Title`, but `## C#` keeps its hash."""
    title = title.rstrip()
    bare = title.rstrip("#")
    if bare != title and (not bare or bare[-1] in " \t"):
        return bare.rstrip() or title
    return title


def _rst_heading(table: LineTable, number: int, styles: list[str]) -> tuple[int, str, int] | None:
    """A title with an adornment line under it (and maybe over it); levels by first use."""
    following = table.lines[number + 1] if number + 1 < len(table) else ""
    under = _RST_ADORNMENT.match(following)
    title = table.lines[number].strip()
    if (
        not under
        or _RST_ADORNMENT.match(table.lines[number])
        or len(following.strip()) < len(title)
    ):
        return None
    above = table.lines[number - 1] if number else ""
    overlined = bool(_RST_ADORNMENT.match(above)) and above.strip() == following.strip()
    style = under.group(1) + ("o" if overlined else "")
    if style not in styles:
        styles.append(style)
    return styles.index(style) + 1, title, 1 if overlined else 0


def sections(table: LineTable, language: str) -> tuple[list[Section], list[int]]:
    """Sections in order (text before the first heading is a section with an empty path)."""
    found, levels = headings(table, language)
    result: list[Section] = []
    stack: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    if not found or found[0][0] > 0:
        stop = found[0][0] if found else len(table)
        result.append(Section(0, stop, "", "", True))
    for index, (first, level, title) in enumerate(found):
        stop = found[index + 1][0] if index + 1 < len(found) else len(table)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        anchor = _unique(slugify(title), seen)
        has_body = any(not table.blank[n] for n in range(first + 1, stop)) and not (
            language in ("markdown", "html")
            and stop - first == 2
            and _SETEXT.match(table.lines[first + 1])
        )
        result.append(Section(first, stop, " > ".join(t for _, t in stack), anchor, has_body))
        levels[first] = max(levels[first], BLOCK + 1)
        _glue_to_heading(table, levels, first + 1, stop)
    return result, levels


def _glue_to_heading(table: LineTable, levels: list[int], first: int, stop: int) -> None:
    """A heading stays with the start of its first paragraph."""
    for number in range(first, stop):
        if not table.blank[number]:
            levels[number] = LINE
            return


def _unique(slug: str, seen: dict[str, int]) -> str:
    """GitHub appends -1, -2... to repeated anchors."""
    count = seen.get(slug, 0)
    seen[slug] = count + 1
    return f"{slug}-{count}" if count else slug
