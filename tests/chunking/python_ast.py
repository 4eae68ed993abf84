"""`ast.parse` for tests that compare our parse with Python's own.

CPython 3.11 before 3.11.8 can raise a spurious `SystemError: AST constructor recursion
depth mismatch` when another thread of the process builds an AST at the same time
(python/cpython#106905, fixed by #106906); the suite's worker processes run the app's threads
beside the tests, and it was seen twice in full runs here (3.11.7). The parse is pure, so it
is tried again; any other error, or the same one three times, is raised."""

import ast

ATTEMPTS = 3


def parse_python(text: str) -> ast.Module:
    """`ast.parse(text)`, tried again on CPython's spurious recursion-depth SystemError."""
    for attempt in range(ATTEMPTS):
        try:
            return ast.parse(text)
        except SystemError as error:
            if "recursion depth mismatch" not in str(error) or attempt == ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")
