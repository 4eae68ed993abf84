"""What a search asks for and finds."""

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Hit(BaseModel):
    """A chunk returned by search, with where it lives and how well it matched."""

    model_config = ConfigDict(frozen=True)

    chunk_id: int
    document_id: int
    docset_name: str
    path: str
    title: str
    ordinal: int
    content: str
    start_line: int
    end_line: int
    metadata: dict[str, Any] = Field(default_factory=dict)
    # the ranking's score: higher ranks first (its scale depends on the fusion and the lifts)
    score: float
    # cosine similarity of the chunk's vector and the question's (None: not measured)
    vector_similarity: float | None = None
    keyword_rank: int | None = None
    # below the relevance floor: returned only to a search that asked to see what it hid
    hidden: bool = False
    # which version of its source the chunk is from (GitHub: the ref, the commit it resolved
    # to at the last sync, and when that was; uploads and web pages have no ref)
    ref: str | None = None
    resolved_sha: str | None = None
    indexed_at: datetime | None = None


class RetrievalMode(StrEnum):
    """Which search runs."""

    HYBRID = "hybrid"
    VECTOR = "vector"
    KEYWORD = "keyword"


class Fusion(StrEnum):
    """How hybrid search combines its rankings into one."""

    # share * each side's score scaled to 0-1 over its candidates, summed
    CONVEX = "convex"
    # weight / (k + rank), summed: reciprocal rank fusion
    RRF = "rrf"
