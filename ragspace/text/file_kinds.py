"""What a file's path says of its kind: a test, an example, or generated or vendored code,
which a repository map (symbols/repo_map.py) or a question (the tried signal that lowers
tests, bench/experiments/tried_signals/tests_lowered.py) rarely wants."""

import re
from functools import lru_cache

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
def is_secondary(path: str) -> bool:
    """A test, an example, or generated or vendored code."""
    return bool(
        _TEST_FILE.search(path)
        or _TEST_DIR.search(path)
        or _EXAMPLE_DIR.search(path)
        or _GENERATED.search(path)
    )
