"""Split documents into chunks with exact 1-based line ranges; code and prose differ."""

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from ragspace.chunking.code import COMMENT_STARTS, DEFINITION_LEVELS, Outline, has_patterns, outline
from ragspace.chunking.grammars import grammar_for
from ragspace.chunking.lines import (
    LineTable,
    Measure,
    Piece,
    char_measure,
    pack,
    trim,
    with_overlap,
)
from ragspace.chunking.prose import BLOCK, Section, sections
from ragspace.chunking.symbol_extraction import extract_symbols
from ragspace.chunking.syntax import SymbolTable, SyntaxParser
from ragspace.models import ChunkDraft
from ragspace.symbols.records import FileSymbols
from ragspace.text.languages import is_prose
from ragspace.text.tokens import counting_tokenizer

SizeUnit = Literal["chars", "tokens"]

__all__ = ["ChunkedFile", "Chunker", "SizeUnit"]


@dataclass(frozen=True)
class ChunkedFile:
    """A document's chunks and, for code with a grammar, its symbol table rows."""

    chunks: list[ChunkDraft]
    symbols: FileSymbols | None = None


class Chunker:
    """Cuts code at definitions and prose at headings, mapping every chunk to its lines."""

    def __init__(
        self,
        code_chunk_size: int,
        prose_chunk_size: int,
        overlap: int,
        unit: SizeUnit = "chars",
        syntax: SyntaxParser | None = None,
    ) -> None:
        self.code_chunk_size = code_chunk_size
        self.prose_chunk_size = prose_chunk_size
        self.overlap = overlap
        self.unit = unit
        self.syntax = SyntaxParser() if syntax is None else syntax

    def split(self, text: str, language: str, path: str) -> list[ChunkDraft]:
        """Chunks of `text` in order; each chunk's text lies within its line range."""
        return self.split_file(text, language, path, with_symbols=False).chunks

    def split_file(
        self, text: str, language: str, path: str, with_symbols: bool = True
    ) -> ChunkedFile:
        """Chunks and (code with a grammar) definitions and references, from one parse."""
        table = LineTable.build(text, self._measure)
        if is_prose(language):
            return ChunkedFile(self._split_prose(table, language, path))
        grammar = grammar_for(language, path)
        parsed = self.syntax.symbols(table.text, grammar, len(table), references=with_symbols)
        chunks = self._split_code(table, language, path, parsed)
        symbols = extract_symbols(parsed) if with_symbols and parsed is not None else None
        return ChunkedFile(chunks, symbols)

    def _split_code(
        self, table: LineTable, language: str, path: str, parsed: SymbolTable | None
    ) -> list[ChunkDraft]:
        # line patterns decide the cuts where they exist; else the parse's definitions do
        labels = None if parsed is None or has_patterns(language) else _labels(parsed)
        shape = outline(table, language, labels)
        limit = self.code_chunk_size
        overlap, strong = self._overlap(limit), DEFINITION_LEVELS[-1]
        pieces = pack(table, 0, len(table), shape.levels, limit, overlap, strong)
        pieces = with_overlap(table, pieces, overlap, strong, limit)
        starts = [definition.line for definition in shape.definitions]
        chunks: list[ChunkDraft] = []
        for piece in pieces:
            trimmed = trim(table, piece)
            if trimmed is None:
                continue
            first, last, content = trimmed
            symbol = _symbol(shape, starts, first, last)
            metadata: dict[str, Any] = {"language": language}
            if symbol:
                metadata["symbol"] = symbol
            if parsed is not None:
                metadata |= parsed.metadata(first, last, _lead(table, parsed, first, last))
            header = f"{path} | {symbol}" if symbol else path
            chunks.append(_draft(len(chunks), content, first, last, header, metadata))
        return chunks

    def _split_prose(self, table: LineTable, language: str, path: str) -> list[ChunkDraft]:
        limit = self.prose_chunk_size
        found, levels = sections(table, language)
        chunks: list[ChunkDraft] = []
        for section, pieces in _prose_pieces(table, found, levels, limit, self._overlap(limit)):
            metadata: dict[str, Any] = {"language": language}
            header = path
            if section.heading_path:
                metadata |= {"heading_path": section.heading_path, "anchor": section.anchor}
                header = f"{path} | {section.heading_path}"
            for piece in pieces:
                trimmed = trim(table, piece)
                if trimmed is not None:
                    first, last, content = trimmed
                    chunks.append(_draft(len(chunks), content, first, last, header, metadata))
        return chunks

    def _overlap(self, limit: int) -> int:
        return min(self.overlap, limit // 2)

    @cached_property
    def _measure(self) -> Measure:
        if self.unit == "chars":
            return char_measure
        tokenizer = counting_tokenizer()

        def tokens(lines: Sequence[str]) -> list[int]:
            encoded = tokenizer.encode_batch(list(lines), add_special_tokens=False)
            return [len(encoding.ids) + 1 for encoding in encoded]

        return tokens


def _prose_pieces(
    table: LineTable, found: list[Section], levels: list[int], limit: int, overlap: int
) -> list[tuple[Section, list[Piece]]]:
    """Whole document when small; else one piece per section, long ones split with overlap."""
    if table.size(0, len(table)) <= limit:
        titled = next((s for s in found if s.heading_path), found[0])
        return [(titled, [Piece(0, len(table), BLOCK)])]
    result: list[tuple[Section, list[Piece]]] = []
    carry: int | None = None  # a heading with no body joins the section after it
    for index, section in enumerate(found):
        if not section.has_body and index + 1 < len(found):
            carry = section.first if carry is None else carry
            continue
        first = section.first if carry is None else carry
        carry = None
        pieces = pack(table, first, section.stop, levels, limit, overlap, BLOCK + 1)
        result.append((section, with_overlap(table, pieces, overlap, BLOCK + 1, limit)))
    return result


def _labels(parsed: SymbolTable) -> dict[int, str]:
    """0-based line -> `kind name` of each parsed definition (the first one on a line).

    Equations of one function (Haskell, Erlang-like clauses) and a signature before them
    count once: the first.
    """
    labels: dict[int, str] = {}
    previous: tuple[str, int] | None = None
    for symbol in parsed.symbols:
        key = (symbol.name, symbol.parent)
        if key != previous:
            labels.setdefault(symbol.line, f"{symbol.kind} {symbol.name}")
        previous = key
    return labels


def _lead(table: LineTable, parsed: SymbolTable, first: int, last: int) -> int:
    """The first line of first..last that starts a definition or is code (not a comment)."""
    starts = parsed.starting_in(first, last)
    for number in range(first, parsed.symbols[starts[0]].line if starts else last + 1):
        if not table.blank[number] and not table.lines[number].lstrip().startswith(COMMENT_STARTS):
            return number
    return parsed.symbols[starts[0]].line if starts else first


def _symbol(shape: Outline, starts: list[int], first: int, last: int) -> str:
    """The definition a chunk is about: one starting at its top, else the enclosing one."""
    index = bisect_left(starts, first)
    following = shape.definitions[index] if index < len(starts) else None
    if following is not None and following.attached <= first and following.line <= last:
        return shape.path(index)
    if shape.owner[first] != -1:
        return shape.path(shape.owner[first])
    if following is not None and following.line <= last:
        return shape.path(index)
    return ""


def _draft(
    ordinal: int, content: str, first: int, last: int, header: str, metadata: dict[str, Any]
) -> ChunkDraft:
    return ChunkDraft(
        ordinal=ordinal,
        content=content,
        start_line=first + 1,
        end_line=last + 1,
        header=header,
        metadata=dict(metadata),
    )
