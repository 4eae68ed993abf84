"""Tests, examples and generated or vendored code sink, unless the question asks about tests
or examples: a question rarely wants them."""

from bench.experiments.tried_signals.options import TriedOptions
from ragspace.ranking.offer import Offer
from ragspace.ranking.query import QueryProfile
from ragspace.text.file_kinds import is_secondary

__all__ = ["asks_about_tests", "is_secondary", "tests_lowered"]


def tests_lowered(
    offer: Offer, scores: dict[int, float], options: TriedOptions, _unit: float
) -> None:
    """Each secondary file's chunks times `secondary_factor`, in place."""
    if options.secondary_factor != 1.0 and not asks_about_tests(offer.profile):
        for candidate in offer.candidates:
            if is_secondary(candidate.hit.path):
                scores[candidate.hit.chunk_id] *= options.secondary_factor


def asks_about_tests(profile: QueryProfile) -> bool:
    """The question is about tests or examples themselves."""
    return bool(profile.terms & {"test", "exampl", "spec"})
