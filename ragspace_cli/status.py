"""`ragspace status`: embedding status counts, sources and errored documents."""

import argparse
from collections.abc import Sequence
from typing import Any

from ragspace.models import (
    Document,
    EmbeddingStatus,
    Source,
    SourceKind,
    interval_text,
    tier_counts,
    tier_text,
)
from ragspace_cli.sources import WAIT_HELP
from ragspace_cli.support import (
    Subcommands,
    cell,
    note,
    opened_actions,
    print_json,
    shown,
    status_counts,
    timestamp,
    wait_for_documents,
)


def register(commands: Subcommands) -> None:
    """Add the `status` command."""
    status = commands.add_parser("status", help="embedding status counts and errored documents")
    status.add_argument("docset", nargs="?", help="one DocSet (default: all)")
    status.add_argument("--json", action="store_true", help="machine-readable output")
    status.add_argument("--wait", action="store_true", help=WAIT_HELP + ", then report")
    status.set_defaults(run=_status)


def _status(args: argparse.Namespace) -> int:
    with opened_actions(workers=args.wait) as actions:
        if args.wait:
            wait_for_documents(actions, args.docset, lambda _: True)
        documents = actions.documents.all(args.docset)
        docsets = [d for d in actions.docsets.all() if args.docset in (None, d.name)]
        notices = [text for text in map(actions.docsets.embedding_notice, docsets) if text]
        sources = [s for d in docsets for s in actions.sources.all(d.name)]
    failed = [d for d in documents if d.embedding_status is EmbeddingStatus.ERROR]
    if args.json:
        print_json(
            {
                "documents": len(documents),
                "counts": status_counts(documents),
                "tiers": tier_counts(documents),
                "errors": [_error_json(d) for d in failed],
                "sources": [_source_json(s) for s in sources],
                "notices": notices,
            }
        )
    else:
        _print_status(documents, failed, sources)
        for text in notices:
            note(text)
    return 1 if args.wait and failed else 0


def _print_status(
    documents: Sequence[Document], failed: Sequence[Document], sources: Sequence[Source]
) -> None:
    counts = status_counts(documents)
    print(f"{len(documents)} document(s): " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    print(f"Searchable: {tier_text(documents)}")
    if sources:
        print("Sources:")
        for s in sources:
            synced = s.created_at if s.kind is SourceKind.UPLOAD else s.last_synced_at
            problem = f"  last sync failed: {s.error_message}" if s.error_message else ""
            location = cell(s.location)
            every = ""
            if s.resync_interval is not None:
                every = f"  re-sync every {interval_text(s.resync_interval)}"
                every += f", next {timestamp(s.next_sync_at)}"
            line = (
                f"  #{s.id} {s.kind_label} {location}  synced {timestamp(synced)}{every}{problem}"
            )
            print(shown(line))
    if failed:
        print("Errors:")
        for d in failed:
            print(shown(f"  {d.docset_name}  {d.path}: {d.error_message or 'unknown error'}"))


def _source_json(source: Source) -> dict[str, Any]:
    return {
        "id": source.id,
        "kind": source.kind.value,
        "location": source.location,
        "last_synced_at": source.last_synced_at,
        "resync_every": None
        if source.resync_interval is None
        else interval_text(source.resync_interval),
        "next_sync_at": source.next_sync_at,
        "error": source.error_message,
    }


def _error_json(document: Document) -> dict[str, Any]:
    return {
        "id": document.id,
        "docset": document.docset_name,
        "path": document.path,
        "message": document.error_message,
    }
