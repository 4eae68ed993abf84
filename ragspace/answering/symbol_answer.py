"""Answers from the symbol table: "where is X defined", "what calls X", each place cited.

No language model is needed: the table knows the places; the answer lists them with the
definition's signature and first doc line, or the definition each use sits in.
"""

from collections.abc import Sequence

from ragspace.answering.answer import SOURCES_HEADING, source_line
from ragspace.answering.citations import cite, line_range
from ragspace.models import Answer, Passage
from ragspace.symbols.records import SymbolLocation
from ragspace.text.markdown_text import escape_markdown


def location_passage(location: SymbolLocation, number: int) -> Passage:
    """A numbered passage of a definition's or reference's lines, cited like any other."""
    return Passage(
        number=number,
        document_id=location.document_id,
        docset_name=location.docset,
        path=location.path,
        title=location.title,
        start_line=location.start_line,
        end_line=location.end_line,
        content=location.content,
        metadata={**location.cite, "language": location.language},
        score=1.0,
        ref=location.ref,
        resolved_sha=location.resolved_sha,
        indexed_at=location.indexed_at,
    )


def definition_answer(name: str, found: Sequence[SymbolLocation]) -> Answer:
    """Where `name` is defined, one cited line per definition."""
    places = "once" if len(found) == 1 else f"in {len(found)} places"
    lines = [f"`{name}` is defined {places}:"]
    for number, place in enumerate(found, start=1):
        label = place.signature or f"{place.kind} {place.qualified_name}"
        where = f"{place.path}, lines {line_range(place.start_line, place.end_line)}"
        doc = f" — {escape_markdown(place.doc)}" if place.doc else ""
        lines.append(f"- `{label}` in {escape_markdown(where)} [{number}]{doc}")
    return _answer("\n".join(lines), found)


def references_answer(name: str, found: Sequence[SymbolLocation], total: int) -> Answer:
    """Where `name` is used (called, extended, named as a type), one cited line per use."""
    shown = "" if total <= len(found) else f" (the first {len(found)} shown)"
    times = "once" if total == 1 else f"{total} times"
    lines = [f"`{name}` is referenced {times}{shown}:"]
    for number, place in enumerate(found, start=1):
        inside = f"in `{place.qualified_name}`" if place.qualified_name else "at the top level"
        where = escape_markdown(f"{place.path} line {place.start_line}")
        lines.append(f"- {place.kind} {inside}, {where} [{number}]: `{_code(place.content)}`")
    return _answer("\n".join(lines), found)


def _answer(text: str, found: Sequence[SymbolLocation]) -> Answer:
    passages = [location_passage(place, n) for n, place in enumerate(found, start=1)]
    citations = [cite(p) for p in passages]
    sources = "\n".join(source_line(c, p) for c, p in zip(citations, passages, strict=True))
    return Answer(
        text=f"{text}\n\n{SOURCES_HEADING}{sources}", citations=citations, passages=passages
    )


def _code(line: str) -> str:
    """A source line as inline code: trimmed, backticks swapped so the span holds."""
    text = line.strip().replace("`", "'")
    return text if len(text) <= 160 else text[:159] + "…"
