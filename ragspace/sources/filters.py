"""Which repository files to index: include/exclude globs and sensible default excludes."""

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from ragspace.models import SkippedItem
from ragspace.sources.classify import secret_reason
from ragspace.sources.patterns import compile_glob, glob_matches

__all__ = ["FileFilter", "SkippedItem", "glob_matches"]

VENDORED_DIRS = frozenset(
    {
        "node_modules",
        "vendor",
        "third_party",
        "dist",
        "build",
        "out",
        "target",
        ".git",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".mypy_cache",
        ".next",
        "bower_components",
        "site-packages",
    }
)
LOCK_FILES = frozenset(
    {
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "uv.lock",
        "pipfile.lock",
        "cargo.lock",
        "gemfile.lock",
        "composer.lock",
        "go.sum",
        "bun.lockb",
        "packages.lock.json",
    }
)
_MINIFIED = re.compile(r"\.min\.(js|css)$|\.map$", re.IGNORECASE)


class FileFilter:
    """Decides, by path and size, whether a file is indexed and if not, why."""

    def __init__(
        self, include: Sequence[str] = (), exclude: Sequence[str] = (), max_bytes: int = 1 << 20
    ) -> None:
        self.include = [p.strip() for p in include if p.strip()]
        self.exclude = [p.strip() for p in exclude if p.strip()]
        self.max_bytes = max_bytes
        for pattern in (*self.include, *self.exclude):
            compile_glob(pattern)  # a bad pattern is refused here, before any file is read

    def skip_reason(self, path: str, size: int) -> str | None:
        """None when the file is indexed, otherwise the reason it is skipped."""
        if self.include and not any(glob_matches(p, path) for p in self.include):
            return "not matched by the include filters"
        for pattern in self.exclude:
            if glob_matches(pattern, path):
                return f"excluded by filter {pattern}"
        return _default_reason(path, size, self.max_bytes)


def _default_reason(path: str, size: int, max_bytes: int) -> str | None:
    parts = PurePosixPath(path).parts
    folder = next((part for part in parts[:-1] if part.lower() in VENDORED_DIRS), None)
    if folder is not None:
        return f"vendored or generated folder ({folder}/)"
    name = parts[-1].lower() if parts else ""
    if name in LOCK_FILES:
        return "lock file"
    if _MINIFIED.search(name):
        return "minified or generated file"
    secret = secret_reason(path)  # binaries are recognised later, by their bytes
    if secret:
        return secret
    if size > max_bytes:
        return f"larger than {max_bytes:,} bytes"
    return None
