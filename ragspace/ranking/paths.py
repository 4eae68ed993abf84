"""What a file's path says: which words name it, and whether it is a test, an example or
generated or vendored code, which a question rarely wants unless it asks for them."""

import re
from functools import lru_cache
from pathlib import PurePosixPath

from ragspace.ranking.query import QueryProfile, name_parts
from ragspace.text.terms import terms

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


@lru_cache(maxsize=4096)
def is_secondary(path: str) -> bool:
    """A test, an example, or generated or vendored code."""
    return bool(
        _TEST_FILE.search(path)
        or _TEST_DIR.search(path)
        or _EXAMPLE_DIR.search(path)
        or _GENERATED.search(path)
    )
