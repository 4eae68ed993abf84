"""Path patterns: include/exclude globs and .gitignore lines, matched in linear time.

Both are translated to regular expressions run by RE2 (`google-re2`), which has no
backtracking: a pattern such as `*a*a*b` costs one pass over the path instead of trying
every split of a long run of letters (seconds to minutes with Python's `re`).
"""

import time
from functools import cache
from typing import Any

import pathspec
import re2

from ragspace.errors import ValidationError

MAX_PATTERN_CHARS = 500  # RE2's time is linear in the path times the pattern's size
# pathspec matches all lines of a .gitignore as one RE2 set, whose DFA can thrash: 4.8 KB of
# crafted wildcard lines cost 0.2-0.5 s per 1 KB path and 2 s per 4 KB path (real ones take
# microseconds). Paths are capped (sources/path_limits.py); patterns and time are too.
MAX_GITIGNORE_PATTERNS = 2000  # all .gitignore files of one folder together
PER_PATH_SECONDS = 0.1  # CPU seconds; a real .gitignore takes microseconds a path
TOTAL_SECONDS = 5.0
_OPTIONS = re2.Options()
_OPTIONS.max_mem = 8 << 20


class GitIgnores:
    """The .gitignore files met so far, each applied to paths below its own folder.

    Matching has a budget of CPU seconds per path and in total; past it the folder is refused
    with a message naming its .gitignore files, instead of matching for minutes. The per-path
    budget must be exceeded by two paths: one garbage collection during a match is not an
    attack, every path of a crafted .gitignore is."""

    def __init__(
        self, per_path_seconds: float = PER_PATH_SECONDS, total_seconds: float = TOTAL_SECONDS
    ) -> None:
        self._specs: list[tuple[str, pathspec.GitIgnoreSpec]] = []  # (folder prefix, spec)
        self._shown: list[str] = []
        self._patterns = 0
        self._per_path = per_path_seconds
        self._total = total_seconds
        self._spent = 0.0
        self._slow_paths = 0

    def add(self, folder: str, text: str, shown: str) -> None:
        """Apply the .gitignore `text` (shown to users as `shown`) below `folder`."""
        lines = text.splitlines()
        if any(len(line) > MAX_PATTERN_CHARS for line in lines):  # RE2 is linear in it too
            raise _bad_line(lines, shown)
        self._patterns += sum(1 for line in lines if line.strip() and not line.startswith("#"))
        if self._patterns > MAX_GITIGNORE_PATTERNS:
            raise ValidationError(
                f"{shown}: the folder's .gitignore files hold more than "
                f"{MAX_GITIGNORE_PATTERNS:,} patterns together, more than can be matched "
                "quickly; remove some, or add a smaller folder."
            )
        try:
            spec = pathspec.GitIgnoreSpec.from_lines(lines, backend="re2")
        except Exception:  # pathspec and re2 raise several types; find the line and say so
            raise _bad_line(lines, shown) from None
        self._specs.append((f"{folder}/" if folder else "", spec))  # below its folder
        self._shown.append(shown)

    def ignored(self, path: str, is_dir: bool = False) -> bool:
        """Whether a .gitignore met so far ignores `path` (a folder when `is_dir`)."""
        probe = path + "/" if is_dir else path
        start = time.thread_time()  # CPU time: waiting for a core is not the pattern's cost
        found = any(
            probe.startswith(prefix) and spec.match_file(probe[len(prefix) :])
            for prefix, spec in self._specs
        )
        self._charge(path, time.thread_time() - start)
        return found

    def _charge(self, path: str, seconds: float) -> None:
        self._spent += seconds
        self._slow_paths += seconds > self._per_path
        if self._slow_paths < 2 and self._spent <= self._total:
            return
        files = ", ".join(self._shown[:3]) + (" ..." if len(self._shown) > 3 else "")
        spent = (
            f"matching {path[:80]!r} took {seconds:.2f} s (the limit is {self._per_path} s a path)"
            if seconds > self._per_path
            else f"matching took {self._spent:.1f} s (the limit is {self._total:.0f} s a folder)"
        )
        raise ValidationError(
            f"The patterns of {files} are too complex to match quickly: {spent}. Simplify "
            "them (fewer `*` and `?` in one line), or narrow the folder with include/exclude "
            "filters."
        )


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
