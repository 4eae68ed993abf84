"""Path patterns: include/exclude globs and .gitignore lines, matched in linear time.

Both are translated to regular expressions run by RE2 (`google-re2`), which has no
backtracking: a pattern such as `*a*a*b` costs one pass over the path instead of trying
every split of a long run of letters (seconds to minutes with Python's `re`).
"""

from functools import cache
from typing import Any

import pathspec
import re2

from ragspace.errors import ValidationError

MAX_PATTERN_CHARS = 500  # RE2's time is linear in the path times the pattern's size
_OPTIONS = re2.Options()
_OPTIONS.max_mem = 8 << 20


class GitIgnores:
    """The .gitignore files met so far, each applied to paths below its own folder."""

    def __init__(self) -> None:
        self._specs: list[tuple[str, pathspec.GitIgnoreSpec]] = []

    def add(self, folder: str, text: str, shown: str) -> None:
        """Apply the .gitignore `text` (shown to users as `shown`) below `folder`."""
        lines = text.splitlines()
        if any(len(line) > MAX_PATTERN_CHARS for line in lines):  # RE2 is linear in it too
            raise _bad_line(lines, shown)
        try:
            spec = pathspec.GitIgnoreSpec.from_lines(lines, backend="re2")
        except Exception:  # pathspec and re2 raise several types; find the line and say so
            raise _bad_line(lines, shown) from None
        self._specs.append((folder, spec))

    def ignored(self, path: str, is_dir: bool = False) -> bool:
        """Whether a .gitignore met so far ignores `path` (a folder when `is_dir`)."""
        probe = path + "/" if is_dir else path
        for folder, spec in self._specs:
            prefix = f"{folder}/" if folder else ""
            if probe.startswith(prefix) and spec.match_file(probe[len(prefix) :]):
                return True
        return False


def _bad_line(lines: list[str], shown: str) -> ValidationError:
    for number, line in enumerate(lines, 1):
        problem = _line_problem(line)
        if problem:
            return ValidationError(
                f"{shown}, line {number}: {line[:200]!r} is not a valid .gitignore pattern "
                f"({problem}); fix or remove that line."
            )
    return ValidationError(f"{shown} has too many or too complex patterns to match quickly.")


def _line_problem(line: str) -> str | None:
    if len(line) > MAX_PATTERN_CHARS:
        return f"longer than {MAX_PATTERN_CHARS} characters"
    try:
        pathspec.GitIgnoreSpec.from_lines([line], backend="re2")
    except Exception as error:  # its message is what the user needs
        return str(error)[:200] or type(error).__name__
    return None


def glob_matches(pattern: str, path: str) -> bool:
    """Gitignore-like globs: `*` stays in a folder, `**` crosses folders, no `/` = any folder."""
    return compile_glob(pattern).fullmatch(path) is not None


@cache
def compile_glob(pattern: str) -> Any:
    """The RE2 program of an include/exclude glob; a ValidationError names a bad one."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValidationError(
            f"The filter {pattern[:60]!r}... is longer than {MAX_PATTERN_CHARS} characters."
        )
    try:
        return re2.compile(_glob_regex(pattern), _OPTIONS)
    except re2.error as error:
        raise ValidationError(f"The filter {pattern!r} is not a valid glob ({error}).") from None


def _glob_regex(pattern: str) -> str:
    anchored = "/" in pattern.rstrip("/")
    pattern = pattern.lstrip("/")
    if pattern.endswith("/"):
        pattern += "**"
    regex = ""
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            regex, index = regex + "(?:.*/)?", index + 3
        elif pattern.startswith("**", index):
            regex, index = regex + ".*", index + 2
        elif pattern[index] == "*":
            regex, index = regex + "[^/]*", index + 1
        elif pattern[index] == "?":
            regex, index = regex + "[^/]", index + 1
        else:
            regex, index = regex + re2.escape(pattern[index]), index + 1
    return regex if anchored else f"(?:.*/)?{regex}"
