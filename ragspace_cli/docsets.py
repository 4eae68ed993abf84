"""`ragspace docset create|list|rename|delete`."""

import argparse
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ragspace.models import DocSet, SourceKind
from ragspace_cli.support import (
    Subcommands,
    confirm,
    note,
    opened_actions,
    print_json,
    print_table,
    timestamp,
)

if TYPE_CHECKING:
    from ragspace.actions import Actions

LIST_HEADERS = ["NAME", "DOCUMENTS", "CHUNKS", "LAST SYNC", "EMBEDDING MODEL", "DESCRIPTION"]


def register(commands: Subcommands) -> None:
    """Add the `docset` command group."""
    docset = commands.add_parser("docset", help="create, list, rename or delete DocSets")
    subcommands = docset.add_subparsers(dest="action", required=True, metavar="ACTION")

    create = subcommands.add_parser("create", help="create an empty DocSet")
    create.add_argument("name", help="DocSet name")
    create.add_argument("--description", default="", help="what the DocSet holds")
    create.set_defaults(run=_create)

    listing = subcommands.add_parser(
        "list", help="DocSets with document/chunk counts and last sync"
    )
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.set_defaults(run=_list)

    rename = subcommands.add_parser("rename", help="rename a DocSet")
    rename.add_argument("old", help="current name")
    rename.add_argument("new", help="new name")
    rename.set_defaults(run=_rename)

    delete = subcommands.add_parser("delete", help="delete a DocSet and all its documents")
    delete.add_argument("name", help="DocSet name")
    delete.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    delete.set_defaults(run=_delete)


def _create(args: argparse.Namespace) -> int:
    with opened_actions() as actions:
        docset = actions.docsets.create(args.name, args.description)
    print(f"Created DocSet {docset.name!r} (embedding model {docset.embedding_model}).")
    return 0


def _list(args: argparse.Namespace) -> int:
    with opened_actions() as actions:
        rows = [_summary(actions, d) for d in actions.docsets.all()]
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        note("No DocSets yet; create one with `ragspace docset create NAME`.")
        return 0
    print_table(
        LIST_HEADERS,
        [
            [
                r["name"],
                r["documents"],
                r["chunks"],
                timestamp(r["last_sync"]),
                r["embedding_model"] + (" (needs re-embedding)" if r["needs_reembedding"] else ""),
                r["description"],
            ]
            for r in rows
        ],
    )
    return 0


def _summary(actions: "Actions", docset: DocSet) -> dict[str, Any]:
    return {
        "name": docset.name,
        "description": docset.description,
        "documents": docset.document_count,
        "chunks": docset.chunk_count,
        "last_sync": _last_sync(actions, docset.name),
        "embedding_model": docset.embedding_model,
        "needs_reembedding": actions.docsets.needs_reembedding(docset),
        "created_at": docset.created_at,
        "updated_at": docset.updated_at,
    }


def _last_sync(actions: "Actions", name: str) -> datetime | None:
    """When content last came in: a source's last sync, or the time files were uploaded."""
    times = [
        s.created_at if s.kind is SourceKind.UPLOAD else s.last_synced_at
        for s in actions.sources.all(name)
    ]
    return max((t for t in times if t is not None), default=None)


def _rename(args: argparse.Namespace) -> int:
    with opened_actions() as actions:
        docset = actions.docsets.rename(args.old, args.new)
    print(f"Renamed DocSet {args.old!r} to {docset.name!r}.")
    return 0


def _delete(args: argparse.Namespace) -> int:
    with opened_actions() as actions:
        docset = actions.docsets.get(args.name)  # a missing DocSet fails before any question
        question = f"Delete DocSet {docset.name!r} and its {docset.document_count} document(s)?"
        if not confirm(question, args.yes):
            note("Not deleted.")
            return 1
        actions.docsets.delete(docset.name)
    print(f"Deleted DocSet {docset.name!r}.")
    return 0
