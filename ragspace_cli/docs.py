"""`ragspace docs list|show|rm`: a DocSet's documents, one document's text, removal."""

import argparse
from typing import Any

from ragspace.errors import ValidationError
from ragspace.models import Document
from ragspace_cli.support import (
    Subcommands,
    confirm,
    note,
    opened_actions,
    print_json,
    print_table,
    shown,
    timestamp,
)

LIST_HEADERS = ["PATH", "STATUS", "CHUNKS", "UPDATED", "ERROR"]


def register(commands: Subcommands) -> None:
    """Add the `docs` command group."""
    docs = commands.add_parser("docs", help="list, show or remove a DocSet's documents")
    actions = docs.add_subparsers(dest="action", required=True, metavar="ACTION")

    listing = actions.add_parser("list", help="documents with status, chunks and errors")
    listing.add_argument("docset", help="DocSet name")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.set_defaults(run=_list)

    show = actions.add_parser("show", help="a document's text, whole or a line range")
    show.add_argument("docset", help="DocSet name")
    show.add_argument("path", help="document path (see `docs list`)")
    show.add_argument("--lines", metavar="START[-END]", help="only these lines, e.g. 10-40")
    show.add_argument("--ref", metavar="REF", help="the version, when the path is at several refs")
    show.add_argument("--json", action="store_true", help="machine-readable output")
    show.set_defaults(run=_show)

    remove = actions.add_parser("rm", help="remove documents and their chunks")
    remove.add_argument("docset", help="DocSet name")
    remove.add_argument("paths", nargs="+", metavar="PATH")
    remove.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    remove.set_defaults(run=_remove)


def _entry(document: Document) -> dict[str, Any]:
    return {
        "path": document.path,
        "status": document.embedding_status.value,
        "chunks": document.chunk_count,
        "updated_at": document.updated_at,
        "error": document.error_message,
    }


TAB = "\t"  # document lines keep their tabs; every other control character is escaped


def _list(args: argparse.Namespace) -> int:
    with opened_actions() as actions:
        entries = [_entry(d) for d in actions.documents.all(args.docset)]
    if args.json:
        print_json(entries)
        return 0
    if not entries:
        note(f"DocSet {args.docset!r} has no documents yet.")
        return 0
    rows = [
        [e["path"], e["status"], e["chunks"], timestamp(e["updated_at"]), e["error"] or ""]
        for e in entries
    ]
    print_table(LIST_HEADERS, rows)
    return 0


def _line_range(text: str | None) -> tuple[int, int | None]:
    if not text:
        return 1, None
    start, _, end = text.partition("-")
    try:
        return int(start), int(end) if end else None
    except ValueError:
        raise ValidationError(f"--lines takes START or START-END, not {text!r}.") from None


def _show(args: argparse.Namespace) -> int:
    start, end = _line_range(args.lines)
    with opened_actions() as actions:
        read = actions.documents.read(args.docset, args.path, start, end, args.ref)
    if args.json:
        print_json(
            {
                "path": read.document.path,
                "ref": read.document.ref or None,
                "start_line": read.start_line,
                "end_line": read.end_line,
                "total_lines": read.total_lines,
                "text": read.text,
                "continuation": read.continuation,
            }
        )
        return 0
    width = len(str(read.end_line))
    for number, line in enumerate(read.text.split("\n"), start=read.start_line):
        print(f"{number:>{width}}  {shown(line, keep=TAB)}")
    if read.continuation:  # on stderr: stdout stays the lines themselves
        note(read.continuation)
    return 0


def _remove(args: argparse.Namespace) -> int:
    with opened_actions() as actions:
        actions.docsets.get(args.docset)  # a missing DocSet fails before any question
        question = f"Remove {len(args.paths)} document(s) from DocSet {args.docset!r}?"
        if not confirm(question, args.yes):
            note("Not removed.")
            return 1
        removed = actions.documents.remove(args.docset, args.paths)
    print(f"Removed {len(removed)} document(s) from DocSet {args.docset!r}.")
    return 0
