"""Plumbing shared by the `ragspace` subcommands: the actions, output, confirmation, waiting."""

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeAlias

from ragspace.models import Document, EmbeddingStatus
from ragspace.settings import load_settings

if TYPE_CHECKING:  # the actions pull in every model and parser; `--help` should be instant
    from ragspace.actions import Actions

Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

FINISHED = (EmbeddingStatus.DONE, EmbeddingStatus.ERROR)
POLL_SECONDS = 0.25
CELL_CHARS = 48


class UsageError(Exception):
    """The command line asks for something that needs another flag or value (exit code 2)."""


@contextmanager
def opened_actions(
    workers: bool = False, resync: bool = False, **overrides: Any
) -> Iterator["Actions"]:
    """The actions over the configured database; `workers` also runs ingestion in-process.

    Without workers the embedding model is loaded only if the command embeds something.
    `resync` (`ragspace worker`) also runs the due scheduled re-syncs.
    """
    from ragspace.runtime import open_runtime

    settings = load_settings(**overrides)
    threads = max(1, settings.ingestion.worker_threads) if workers else 0
    runtime = open_runtime(
        settings, worker_threads=threads, load_models=workers, scheduled_syncs=resync
    )
    try:
        yield runtime.actions
    finally:
        runtime.close()


_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def shown(text: str, keep: str = "") -> str:
    """`text` safe to print on a terminal: every character that is not printable (ESC and
    OSC sequences that retitle or recolour it, BEL, backspace, newlines that break a list's
    lines, bidi overrides that reorder it) escaped as `\\n`, `\\x1b`, `\\u202e`, except `keep`.

    File names, paths, DocSet names, error texts and document lines all come from users or
    their files; everything the CLI prints of them goes through here."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in keep else _escaped(c) for c in text)


def _escaped(char: str) -> str:
    code = ord(char)
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def error(message: str) -> int:
    """Print `ragspace: error: message` on stderr; the exit code of a failed operation."""
    print("ragspace: error: " + shown(message, keep="\n"), file=sys.stderr)
    return 1


def note(message: str) -> None:
    """A remark for the person at the terminal, kept out of the data on stdout."""
    print(shown(message, keep="\n"), file=sys.stderr)


def print_json(data: Any) -> None:
    """Machine-readable output on stdout (control characters escaped as JSON escapes)."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=_json_default)
    print("".join(map(_json_char, text)))


def _json_char(char: str) -> str:
    """JSON escapes C0 controls itself; C1 controls and bidi overrides it leaves raw."""
    return char if char.isprintable() or char == "\n" else json.dumps(char)[1:-1]


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Left-aligned columns separated by two spaces, long cells shortened."""
    cells = [[cell(value) for value in row] for row in [headers, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for row in cells:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def cell(value: Any) -> str:
    """A value on one line, shortened to fit a column."""
    text = shown(" ".join(str(value).split()))
    return text if len(text) <= CELL_CHARS else text[: CELL_CHARS - 1] + "…"


def timestamp(value: datetime | None) -> str:
    """A time as a table shows it, or `never`."""
    return value.astimezone().strftime("%Y-%m-%d %H:%M") if value else "never"


def confirm(question: str, assume_yes: bool) -> bool:
    """Ask on the terminal; without one, only `--yes` may go ahead."""
    if assume_yes:
        return True
    if not sys.stdin.isatty():
        raise UsageError(f"{question} Standard input is not a terminal; pass --yes to confirm.")
    print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
    try:
        return input().strip().lower() in ("y", "yes")
    except EOFError:  # Ctrl+D
        return False


def status_counts(documents: Sequence[Document]) -> dict[str, int]:
    """How many documents are in each embedding status (every status listed)."""
    counts = {status.value: 0 for status in EmbeddingStatus}
    for document in documents:
        counts[document.embedding_status.value] += 1
    return counts


def wait_for_documents(
    actions: "Actions", docset: str | None, wanted: Callable[[Document], bool]
) -> list[Document]:
    """Poll until every wanted document (of one DocSet or all) is done or in error.

    A progress bar is drawn on stderr when it is a terminal; otherwise progress lines are
    printed there (progress_lines.py).
    """
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = (
        TextColumn("Embedding"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("documents"),
        TimeElapsedColumn(),
    )
    from ragspace_cli.progress_lines import ProgressLines

    console = Console(stderr=True)
    lines = None if console.is_terminal else ProgressLines()
    with Progress(*columns, console=console, disable=lines is not None) as progress:
        task = progress.add_task("embedding", total=None)
        while True:
            documents = [d for d in actions.documents.all(docset) if wanted(d)]
            finished = sum(d.embedding_status in FINISHED for d in documents)
            progress.update(task, total=len(documents), completed=finished)
            for line in lines.lines(documents, datetime.now(UTC)) if lines else ():
                print(line, file=sys.stderr, flush=True)
            if finished == len(documents):
                return documents
            time.sleep(POLL_SECONDS)


def report_documents(documents: Sequence[Document]) -> int:
    """Summarise how documents ended; exit code 1 when any is in error."""
    counts = status_counts(documents)
    summary = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
    print(f"{len(documents)} document(s): {summary or 'none'}.")
    failed = [d for d in documents if d.embedding_status is EmbeddingStatus.ERROR]
    if not failed:
        return 0
    lines = [f"{len(failed)} document(s) ended in error:"]
    lines += [f"  {d.path}: {d.error_message or 'unknown error'}" for d in failed]
    return error("\n".join(lines))
