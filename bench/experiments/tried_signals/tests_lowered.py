"""Tests, examples and generated or vendored code sink, unless the question asks about tests
or examples: a question rarely wants them."""

import re
from functools import lru_cache

from bench.experiments.tried_signals.options import TriedOptions
from ragspace.ranking.offer import Offer
from ragspace.ranking.query import QueryProfile

_TEST_FILE = re.compile(
    r"(?:^|/)(?:test_[^/]*|[^/]*_test|[^/]*_spec|[^/]*\.(?:test|spec)|[^/]*Tests?|[^/]*Spec)"
    r"\.[A-Za-z0-9]+$"
)
_TEST_DIR = re.compile(r"(?:^|/)(?:tests?|testing|__tests__|spec|specs)/")
_EXAMPLE_DIR = re.compile(r"(?:^|/)(?:_?examples?|samples?|demos?)/")
_GENERATED = re.compile(
    r"(?:^|/)(?:vendor|vendored|third_party|node_modules|dist|build|generated)/"
    r"|\.min\.[jc]ss?$|_pb2(?:_grpc)?\.py$|\.pb\.go$|\.generated\.[A-Za-z]+$"
)


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


@lru_cache(maxsize=4096)
def is_secondary(path: str) -> bool:
    """A test, an example, or generated or vendored code."""
    return bool(
        _TEST_FILE.search(path)
        or _TEST_DIR.search(path)
        or _EXAMPLE_DIR.search(path)
        or _GENERATED.search(path)
    )
