"""A job's document as chunks to embed: split within the chunk limit, citation facts added."""

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragspace.chunking.chunker import ChunkedFile, Chunker
from ragspace.embedding.embedders import Embedder, Vectors
from ragspace.errors import RagspaceError
from ragspace.ingestion.embedding_passes import embeddable
from ragspace.models import ChunkDraft
from ragspace.store import ClaimedJob
from ragspace.store.keyword_batches import KeywordPass
from ragspace.symbols.records import FileSymbols
from ragspace.text.hashing import content_hash


@dataclass(frozen=True)
class PreparedJob:
    """A claimed job's document chunked: its chunks, the texts to embed and their hashes."""

    job: ClaimedJob
    chunks: list[ChunkDraft]
    texts: list[str]
    hashes: list[str]
    symbols: FileSymbols | None
    # the document's rows already come from this content (its keyword pass stored them)
    symbols_stored: bool

    def cached(self, vectors: Mapping[str, Vectors]) -> dict[str, Vectors]:
        """The cached vectors of this document's texts (none for a forced re-embed)."""
        if self.job.force:
            return {}
        return {h: vectors[h] for h in self.hashes if h in vectors}

    def keyword_pass(self) -> KeywordPass:
        """What its keyword pass stores."""
        return KeywordPass(self.job, self.chunks, self.hashes, self.symbols)


def prepare_job(
    job: ClaimedJob, chunker: Chunker, embedder: Embedder, max_chunks: int
) -> PreparedJob:
    """Chunk the job's document (and parse its symbols unless its keyword pass of this
    content stored them: the document's tier is set only while its content is the one that
    pass chunked)."""
    symbols_stored = job.vector_tier is not None and not job.force
    chunked = chunks_of(job, chunker, max_chunks, not symbols_stored)
    chunks, texts = embeddable(chunked.chunks, embedder)
    hashes = [content_hash(chunk.embedding_text) for chunk in chunks]
    return PreparedJob(job, chunks, texts, hashes, chunked.symbols, symbols_stored)


def chunks_of(
    job: ClaimedJob, chunker: Chunker, max_chunks: int, with_symbols: bool = True
) -> ChunkedFile:
    """The document's chunks with its citation metadata, within the chunk limit, and (with
    `with_symbols`) its symbol table rows from the same parse."""
    check_length(job, chunker, max_chunks)
    chunked = chunker.split_file(job.content, job.language, job.path, with_symbols)
    chunks = chunked.chunks
    if not chunks:
        raise RagspaceError(f"{job.path} has no text to index.")
    if len(chunks) > max_chunks:
        raise RagspaceError(
            f"{job.path} splits into {len(chunks):,} chunks; the limit is "
            f"{max_chunks:,} per document (RAGSPACE_MAX_CHUNKS_PER_DOCUMENT). "
            "Split the file or raise the limit."
        )
    cited = [with_document_metadata(chunk, job.metadata) for chunk in chunks]
    return ChunkedFile(cited, chunked.symbols)


def check_length(job: ClaimedJob, chunker: Chunker, max_chunks: int) -> None:
    """Refuse, before chunking it, text too long for the chunk limit (character units)."""
    if chunker.unit != "chars":  # a token can be many characters: no such bound
        return
    largest = max(chunker.code_chunk_size, chunker.prose_chunk_size)
    bound = max_chunks * largest
    if len(job.content) > bound:
        raise RagspaceError(
            f"{job.path} has {len(job.content):,} characters of text; at most {bound:,} fit "
            f"{max_chunks:,} chunks per document "
            "(RAGSPACE_MAX_CHUNKS_PER_DOCUMENT). Split the file or raise the limit."
        )


def with_document_metadata(chunk: ChunkDraft, document_metadata: dict[str, Any]) -> ChunkDraft:
    """The chunk with its document's citation facts, pages or cells and section anchor added."""
    extra: dict[str, Any] = dict(document_metadata.get("cite", {}))
    pages = _position(document_metadata.get("page_lines", []), chunk.start_line, chunk.end_line)
    if pages is not None:
        extra["page"], extra["page_end"] = pages
    cells = _position(document_metadata.get("cell_lines", []), chunk.start_line, chunk.end_line)
    if cells is not None:
        extra["cell"], extra["cell_end"] = cells
    anchors = _position(document_metadata.get("anchors", []), chunk.start_line, chunk.start_line)
    if anchors is not None:
        extra["anchor"] = anchors[0]
    if not extra:
        return chunk
    return chunk.model_copy(update={"metadata": {**chunk.metadata, **extra}})


def _position(starts: list[list[Any]], first: int, last: int) -> tuple[Any, Any] | None:
    """Values in force at lines `first` and `last` of `[[start_line, value], ...]`."""
    if not starts:
        return None
    lines = [int(start) for start, _ in starts]
    begin, end = bisect_right(lines, first) - 1, bisect_right(lines, last) - 1
    if begin < 0:
        return None
    return starts[begin][1], starts[end][1]
