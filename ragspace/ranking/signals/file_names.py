"""A file whose name the question uses rises: `fixtures.py` for a question about fixtures.

Off in hybrid search (the protocol left it off there); on in the keyword-only ranking
(search/keyword_ranking.py), where semble-dev's folds chose it (issue 68)."""

from functools import lru_cache
from pathlib import PurePosixPath

from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions
from ragspace.ranking.query import QueryProfile, name_parts
from ragspace.text.terms import terms


def file_names(
    offer: Offer, scores: dict[int, float], options: RankingOptions, unit: float
) -> None:
    """Each chunk gains `name_boost` times the best score (`unit`) times the share of its
    file's name words the question uses, in place."""
    if options.name_boost:
        for candidate in offer.candidates:
            hit = candidate.hit
            scores[hit.chunk_id] += unit * options.name_boost * name_match(offer.profile, hit.path)


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
