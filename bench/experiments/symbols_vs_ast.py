"""Every `def`/`class` Python's `ast` finds in a SWE-QA checkout, against the symbol table's
definitions from the same text (name, first line, last line) (issue 40 acceptance).

The unit test does the same on the flask tree in tests/data (through Postgres); this runs it
on a whole pool checkout. Files `ast` cannot parse (Python 2 fixtures) are skipped.

Usage (from the repository root):
    python bench/experiments/symbols_vs_ast.py [pytest|sphinx|pylint]
"""

import ast
import io
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ragspace.chunking.chunker import Chunker

EVAL_DIR = Path(__file__).resolve().parents[3] / "shared" / "eval"
KINDS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class Comparison:
    """A checkout's Python files `ast` parses, its definitions, and those the table lacks."""

    files: int
    expected: int
    missing: list[tuple[str, tuple[str, int, int | None]]]


def archive_of(name: str) -> Path | None:
    """The checkout's tarball in the shared eval folder, if that folder is there."""
    found = sorted((EVAL_DIR / "sweqa-dev").glob(f"{name}-*.tar.gz"))
    return found[0] if found else None


def compare(archive: Path, parse: Callable[[str], ast.Module] = ast.parse) -> Comparison:
    """Every `def`/`class` of the archive's Python files (as `parse` reads them), against
    the chunker's definitions."""
    chunker = Chunker(1200, 1000, 100)
    files = expected_total = 0
    missing: list[tuple[str, tuple[str, int, int | None]]] = []
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            handle = tar.extractfile(member) if member.name.endswith(".py") else None
            if handle is None:
                continue
            text = io.TextIOWrapper(handle, encoding="utf-8", errors="replace").read()
            try:
                tree = parse(text)
            except SyntaxError:
                continue
            files += 1
            expected = {
                (n.name, n.lineno, n.end_lineno) for n in ast.walk(tree) if isinstance(n, KINDS)
            }
            symbols = chunker.split_file(text, "python", member.name).symbols
            found = {
                (d.name, d.start_line, d.end_line) for d in (symbols.definitions if symbols else [])
            }
            expected_total += len(expected)
            missing += [(member.name, item) for item in sorted(expected - found)]
    return Comparison(files, expected_total, missing)


def main() -> int:
    name = sys.argv[1] if len(sys.argv) > 1 else "pytest"
    archive = archive_of(name)
    if archive is None:
        print(f"no {name} checkout in {EVAL_DIR / 'sweqa-dev'}")
        return 2
    result = compare(archive)
    print(
        f"{name}: {result.files} files, {result.expected} definitions by ast, "
        f"{len(result.missing)} missing"
    )
    for path, item in result.missing[:20]:
        print(f"  {path}: {item}")
    return 1 if result.missing else 0


if __name__ == "__main__":
    sys.exit(main())
