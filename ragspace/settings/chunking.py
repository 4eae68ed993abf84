"""How documents are split into chunks."""

from typing import Literal

from pydantic import Field

from ragspace.settings.area import AreaSettings


class ChunkingSettings(AreaSettings):
    """How documents are split into chunks."""

    code_chunk_size: int = Field(
        default=800,
        ge=100,
        description="Largest code chunk (in chunk_size_unit); 800 chars won the eval sweep.",
    )
    prose_chunk_size: int = Field(
        default=600,
        ge=100,
        description="Largest prose chunk (markdown, text, reST, HTML); smaller docs stay whole.",
    )
    chunk_overlap: int = Field(
        default=100,
        ge=0,
        description="Overlap when a definition or section itself must be split (max half a chunk).",
    )
    chunk_size_unit: Literal["chars", "tokens"] = Field(
        default="chars",
        description="Unit of the chunk sizes and overlap: characters or local MiniLM tokens.",
    )
    max_chunks_per_document: int = Field(
        default=10_000,
        ge=1,
        description="A document that splits into more chunks than this ends in error.",
    )
