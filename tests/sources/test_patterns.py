"""Include/exclude globs and .gitignore lines match in linear time; a bad one is a clear error."""

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ragspace.errors import ValidationError
from ragspace.models import UploadedFile
from ragspace.sources.filters import FileFilter
from ragspace.sources.folder import read_folder, select_files
from ragspace.sources.patterns import GitIgnores

LIMIT_SECONDS = 0.05
# 4 KB paths built to make a backtracking matcher try every split of a long run of letters
PATHS = [
    "a/" * 10 + "a" * 4076,
    "a/" * 2048,
    "ab" * 2048,
    ("x" * 60 + "/") * 67,
]
_TOKENS = ["*", "**", "**/", "/**", "?", "a", "b", "/", ".", "[ab]", "[!a]", "!", "\\*", " "]
_PATTERN = st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=40).map("".join)


def _slowest(match: Callable[[str], object]) -> float:
    worst = 0.0
    for path in PATHS:
        start = time.perf_counter()
        match(path)
        worst = max(worst, time.perf_counter() - start)
    return worst


@settings(max_examples=150, deadline=None)
@given(_PATTERN)
@example("*a*a*b")  # 6.5 s per path with the backtracking translation
def test_no_generated_glob_takes_more_than_50_ms_on_a_4_kb_path(pattern: str) -> None:
    try:
        file_filter = FileFilter(include=[pattern], exclude=[pattern])
    except ValidationError as error:
        assert repr(pattern.strip()) in str(error)
        return
    worst = _slowest(lambda path: file_filter.skip_reason(path, 10))
    assert worst < LIMIT_SECONDS, f"{pattern!r} took {worst:.3f} s"


@settings(max_examples=150, deadline=None)
@given(_PATTERN)
@example("*a*a*b")  # 11 s per path with Python's re (pathspec's "simple" backend)
def test_no_generated_gitignore_line_takes_more_than_50_ms_on_a_4_kb_path(line: str) -> None:
    ignores = GitIgnores()
    try:
        ignores.add("", f"# generated\n{line}\n", ".gitignore")
    except ValidationError as error:
        assert ".gitignore" in str(error) and "line 2" in str(error)
        return
    worst = _slowest(ignores.ignored)
    assert worst < LIMIT_SECONDS, f"{line!r} took {worst:.3f} s"


def test_a_bad_pattern_is_a_clear_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ValidationError) as bad_glob:
        FileFilter(include=["docs/" + "*" * 5000])
    assert "docs/***" in str(bad_glob.value) and "Traceback" not in str(bad_glob.value)

    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    (root / ".gitignore").write_text("*.log\n[z-a]\n")  # a reversed range
    with pytest.raises(ValidationError) as bad_line:
        read_folder(root, FileFilter())
    message = str(bad_line.value)
    assert "proj/.gitignore" in message and "line 2" in message and "'[z-a]'" in message

    uploaded = [UploadedFile("a.py", b"x = 1\n"), UploadedFile("sub/.gitignore", b"\\\n")]
    with pytest.raises(ValidationError) as bad_upload:
        select_files("up", uploaded, FileFilter())
    assert "up/sub/.gitignore" in str(bad_upload.value) and "line 1" in str(bad_upload.value)


def test_an_overlong_gitignore_line_is_refused_not_matched_slowly() -> None:
    ignores = GitIgnores()
    with pytest.raises(ValidationError) as refused:  # 66 ms per 4 KB path when accepted
        ignores.add("", "*.log\n" + "*a" * 1000 + "\n", "proj/.gitignore")
    assert "proj/.gitignore, line 2" in str(refused.value)
    assert "longer than 500 characters" in str(refused.value)
