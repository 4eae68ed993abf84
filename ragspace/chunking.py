"""Split documents into chunks with exact 1-based line ranges; code and prose differ."""

from bisect import bisect_right
from functools import cache

from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

from ragspace.languages import is_prose
from ragspace.models import ChunkDraft

_SPLITTER_LANGUAGES = {language.value: language for language in Language}
_PLAIN_SEPARATORS = ["\n\n", "\n", " ", ""]


class Chunker:
    """Splits text with language-aware separators and maps every piece back to its lines."""

    def __init__(self, code_chunk_size: int, prose_chunk_size: int, overlap: int) -> None:
        self.code_chunk_size = code_chunk_size
        self.prose_chunk_size = prose_chunk_size
        self.overlap = overlap

    def split(self, text: str, language: str, path: str) -> list[ChunkDraft]:
        """Chunks of `text` in order; each chunk's text lies within its line range."""
        size = self.prose_chunk_size if is_prose(language) else self.code_chunk_size
        splitter = _splitter(language, size, min(self.overlap, size // 2))
        pieces = splitter.split_text(text)
        line_starts = _line_starts(text)
        chunks: list[ChunkDraft] = []
        previous_start, previous_end = -1, 0
        for piece in pieces:
            found = _locate(text, piece, previous_start, previous_end, self.overlap)
            end = found + len(piece)
            line = bisect_right(line_starts, found)
            # give back the indentation the splitter stripped from the first line
            start = (
                line_starts[line - 1] if not text[line_starts[line - 1] : found].strip() else found
            )
            chunks.append(
                ChunkDraft(
                    ordinal=len(chunks),
                    content=text[start:end],
                    start_line=line,
                    end_line=bisect_right(line_starts, end - 1),
                    header=path,
                    metadata={"language": language},
                )
            )
            previous_start, previous_end = found, end
        return chunks


@cache
def _splitter(language: str, size: int, overlap: int) -> RecursiveCharacterTextSplitter:
    if language in _SPLITTER_LANGUAGES:
        return RecursiveCharacterTextSplitter.from_language(
            _SPLITTER_LANGUAGES[language], chunk_size=size, chunk_overlap=overlap
        )
    return RecursiveCharacterTextSplitter(
        separators=_PLAIN_SEPARATORS, chunk_size=size, chunk_overlap=overlap
    )


def _line_starts(text: str) -> list[int]:
    """Offsets where each line begins; line n (1-based) starts at index n - 1."""
    starts = [0]
    position = text.find("\n")
    while position != -1:
        starts.append(position + 1)
        position = text.find("\n", position + 1)
    return starts


def _locate(text: str, piece: str, previous_start: int, previous_end: int, overlap: int) -> int:
    """Where `piece` starts: after the previous chunk's start, near its end (overlap)."""
    earliest = previous_start + 1
    found = text.find(piece, max(earliest, previous_end - overlap - 1))
    if found == -1:
        found = text.find(piece, earliest)
    if found == -1:  # the splitter only strips and cuts, so this means a bug
        raise AssertionError("chunk text not found in the document")
    return found
