"""What search SQL hands to ranking: each candidate chunk with every side's evidence for it."""

from dataclasses import dataclass
from enum import StrEnum

from ragspace.models import Hit


class Side(StrEnum):
    """A ranking that offers candidates: the vectors, full-text BM25 over chunks, and BM25
    over each document's card: its path, headings and definitions (offering each by its best
    keyword chunk, else its first)."""

    VECTOR = "vector"
    KEYWORD = "keyword"
    FILE = "file"


@dataclass(frozen=True)
class Evidence:
    """One side's opinion of a candidate: its rank there (1 = best) and raw score (cosine
    similarity for the vector sides, BM25 for the keyword sides)."""

    rank: int
    score: float


@dataclass(frozen=True)
class Candidate:
    """A chunk offered by at least one side; `hit.score` is set by ranking."""

    hit: Hit
    evidence: dict[Side, Evidence]

    def on(self, side: Side) -> Evidence | None:
        """This side's evidence, None when the side did not offer the chunk."""
        return self.evidence.get(side)
