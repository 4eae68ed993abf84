"""What a file's path says: which words name it, and whether it is a test, an example or
generated or vendored code, which a question rarely wants unless it asks for them (that
part in `text/file_kinds.py`, which the repository map shares)."""

from functools import lru_cache
from pathlib import PurePosixPath

from ragspace.ranking.query import QueryProfile, name_parts
from ragspace.text.file_kinds import is_secondary
from ragspace.text.terms import terms


@lru_cache(maxsize=4096)
def name_terms(path: str) -> frozenset[str]:
    """The stems of the words of a file's name without its extension (its folders name a
    whole area, not what the file is about)."""
    return frozenset(terms(" ".join(name_parts(PurePosixPath(path).stem))))


def name_match(profile: QueryProfile, path: str) -> float:
    """The share of the words naming the file that the question uses (0-1): `fixtures.py`
    for a question about fixtures 1, `test_fixtures.py` 0.5."""
    named = name_terms(path)
    return len(named & profile.terms) / len(named) if named else 0.0


__all__ = ["is_secondary", "name_match", "name_terms"]
