"""Hits and candidates made for ranking's tests."""

from ragspace.models import Hit
from ragspace.ranking.candidates import Candidate, Evidence, Side


def hit(chunk_id: int, path: str = "a.py", content: str = "", document_id: int = 0) -> Hit:
    return Hit(
        chunk_id=chunk_id,
        document_id=document_id or chunk_id,
        docset_name="d",
        path=path,
        title=path,
        ordinal=0,
        content=content,
        start_line=1,
        end_line=2,
        score=0.0,
    )


def candidate(chunk: Hit, **sides: tuple[int, float]) -> Candidate:
    """A candidate with each named side's (rank, score); `document` is the tried document
    side (bench/experiments/tried_signals), no side of the app's."""
    return Candidate(chunk, {_side(name): Evidence(*value) for name, value in sides.items()})


def _side(name: str) -> Side:
    sides: dict[str, Side] = {side.value: side for side in Side}
    return sides.get(name, name)  # type: ignore[arg-type]


def in_language(language: str, chunk: Hit) -> Hit:
    return chunk.model_copy(update={"metadata": {"language": language}})
