"""`ragspace add github|web|dir|files`, `sync`, `schedule`: filling DocSets and re-syncing them."""

import argparse
import re
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from ragspace.actions.source_requests import (
    DEFAULT_DEPTH,
    DEFAULT_MAX_PAGES,
    SourceRequest,
    github_request,
    globs,
    web_request,
)
from ragspace.errors import NotFoundError, RagspaceError, ValidationError
from ragspace.models import (
    Document,
    EmbeddingStatus,
    FolderOptions,
    SkippedItem,
    SourceKind,
    SourcePreview,
    SyncReport,
    interval_text,
)
from ragspace_cli.support import (
    FINISHED,
    Subcommands,
    error,
    note,
    opened_actions,
    report_documents,
    shown,
    timestamp,
    wait_for_documents,
)

if TYPE_CHECKING:
    from ragspace.actions import Actions
    from ragspace.models import IncomingFile

LISTED = 20  # paths shown per list before "… and N more"
RESYNC_HELP = "re-sync on a schedule run by the workers: 30m, 6h, 1d, 1w or off (default off)"
_INTERVAL = re.compile(r"^(?P<count>[0-9]{1,9})\s*(?P<unit>m|min|h|d|w)$")
_UNITS = {"m": "minutes", "min": "minutes", "h": "hours", "d": "days", "w": "weeks"}
WAIT_HELP = "embed in this process and wait until every document is done or in error"


def register(commands: Subcommands) -> None:
    """Add the `add`, `sync` and `schedule` commands."""
    add = commands.add_parser("add", help="add a GitHub repository or file, a website or files")
    kinds = add.add_subparsers(dest="kind", required=True, metavar="KIND")

    github = kinds.add_parser("github", help="a GitHub repository or single file")
    _docset_and(github, "url", "owner/repo, https://github.com/owner/repo or …/blob/REF/PATH")
    github.add_argument("--ref", help="branch, tag or commit (default: the default branch)")
    _filter_flags(github)
    github.add_argument(
        "--token",
        help="GitHub token for private repositories (default: GITHUB_TOKEN from the environment)",
    )
    _common_add_flags(github)
    github.add_argument("--resync-every", type=interval, metavar="EVERY", help=RESYNC_HELP)
    github.set_defaults(run=_add_github)

    _add_web_parser(kinds)

    folder = kinds.add_parser(
        "dir", help="a local folder or checkout (.gitignore respected, binaries skipped)"
    )
    folder.add_argument("docset", help="DocSet name")
    folder.add_argument("path", type=Path, metavar="PATH")
    _filter_flags(folder)
    _common_add_flags(folder)
    folder.set_defaults(run=_add_dir)

    files = kinds.add_parser("files", help="local files and directories (recursively)")
    files.add_argument("docset", help="DocSet name")
    files.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    files.add_argument("--wait", action="store_true", help=WAIT_HELP)
    files.set_defaults(run=_add_files)

    sync = commands.add_parser("sync", help="re-sync a DocSet's GitHub and web sources")
    sync.add_argument("docset", help="DocSet name")
    sync.add_argument("--source", type=int, metavar="ID", help="only this source")
    sync.add_argument("--wait", action="store_true", help=WAIT_HELP)
    sync.set_defaults(run=_sync)

    schedule = commands.add_parser(
        "schedule", help="change how often a GitHub or web source re-syncs on its own"
    )
    schedule.add_argument("docset", help="DocSet name")
    schedule.add_argument("--source", type=int, metavar="ID", required=True, help="the source")
    schedule.add_argument("every", type=interval, metavar="EVERY", help=RESYNC_HELP)
    schedule.set_defaults(run=_schedule)


def _add_web_parser(kinds: Subcommands) -> None:
    web = kinds.add_parser("web", help="a documentation website, crawled")
    _docset_and(web, "url", "start URL")
    web.add_argument(
        "--max-pages",
        type=_positive,
        default=DEFAULT_MAX_PAGES,
        help=f"default {DEFAULT_MAX_PAGES}",
    )
    web.add_argument(
        "--max-depth",
        type=_non_negative,
        default=DEFAULT_DEPTH,
        help=f"link depth, default {DEFAULT_DEPTH}",
    )
    web.add_argument("--prefix", help="only crawl URLs under this path, e.g. /docs/")
    _common_add_flags(web)
    web.add_argument("--resync-every", type=interval, metavar="EVERY", help=RESYNC_HELP)
    web.set_defaults(run=_add_web)


def _docset_and(parser: argparse.ArgumentParser, name: str, help_text: str) -> None:
    parser.add_argument("docset", help="DocSet name")
    parser.add_argument(name, help=help_text)


def _filter_flags(parser: argparse.ArgumentParser) -> None:
    for flag, what in (("--include", "only paths matching"), ("--exclude", "no paths matching")):
        parser.add_argument(
            flag, action="append", default=[], metavar="GLOB", help=f"{what} (repeat, or a,b)"
        )


def _common_add_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wait", action="store_true", help=WAIT_HELP)
    parser.add_argument("--dry-run", action="store_true", help="only show the preview")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def interval(text: str) -> timedelta | None:
    """`30m`, `6h`, `1d`, `2w`, `hourly`, `daily`, `weekly` or `off` (None)."""
    cleaned = text.strip().lower()
    named = {"off": None, "hourly": "1h", "daily": "1d", "weekly": "1w"}
    if cleaned in named:
        cleaned = named[cleaned] or ""
        if not cleaned:
            return None
    match = _INTERVAL.match(cleaned)
    if match is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an interval: use e.g. 30m, 6h, 1d, 1w, hourly, daily or off"
        )
    try:
        return timedelta(**{_UNITS[match["unit"]]: int(match["count"])})
    except OverflowError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is longer than any re-sync interval (at most 365 days)"
        ) from None


# add github / web


def _add_github(args: argparse.Namespace) -> int:
    # `--include a --include b,c` gives `[a, b, c]`, as the web form's "a, b" lines do
    request = github_request(args.url, args.ref, args.include, args.exclude)
    # the token is a setting of this one process, never an option stored with the source
    token = {"github_token": SecretStr(args.token)} if args.token else {}
    return _add_source(args, request, token)


def _add_web(args: argparse.Namespace) -> int:
    return _add_source(args, web_request(args.url, args.max_depth, args.max_pages, args.prefix), {})


def _add_source(args: argparse.Namespace, request: SourceRequest, overrides: dict[str, Any]) -> int:
    with opened_actions(workers=args.wait, **overrides) as actions:
        actions.docsets.get(args.docset)  # fail on a wrong name before fetching anything
        preview = actions.sources.preview(*request)
        _print_preview(preview, every_item=args.dry_run)
        if args.dry_run:
            return 0
        report = actions.sources.add(args.docset, *request, args.resync_every)
        _print_report(report)
        if args.resync_every is not None:
            print(f"Re-synced every {interval_text(args.resync_every)} by the running workers.")
        return _finish(actions, args.docset, args.wait, lambda d: d.source_id == report.source_id)


def _print_preview(preview: SourcePreview, every_item: bool) -> None:
    resolved = f" at {preview.resolved}" if preview.resolved else ""
    print(
        shown(
            f"Preview of {preview.location}{resolved}: {len(preview.items)} item(s), "
            f"{preview.total_bytes:,} bytes, about {preview.estimated_chunks} chunk(s)."
        )
    )
    if every_item:
        _print_paths([f"  {item}" for item in preview.items])
    if preview.skipped:
        reasons = ", ".join(f"{reason}: {n}" for reason, n in preview.skipped_counts.items())
        print(shown(f"Skipped {len(preview.skipped)} ({reasons}):"))
        skipped = [f"  {s.path}: {s.reason}" for s in preview.skipped]
        _print_paths(skipped, every_item, hint=" (--dry-run lists them all)")


def _print_paths(lines: list[str], every_item: bool = True, hint: str = "") -> None:
    listed = lines if every_item else lines[:LISTED]
    for line in listed:
        print(shown(line))  # one line per entry, whatever the name holds
    if len(lines) > len(listed):
        print(f"  … and {len(lines) - len(listed)} more{hint}")


def _print_report(report: SyncReport) -> None:
    resolved = f" at {report.resolved}" if report.resolved else ""
    print(
        shown(
            f"Synced source #{report.source_id}{resolved}: {len(report.changed)} new or "
            f"changed, {report.unchanged} unchanged, {len(report.removed)} removed, "
            f"{len(report.skipped)} skipped, {len(report.errors)} unreadable."
        )
    )
    _print_paths([f"  removed {path}" for path in report.removed], every_item=False)
    _print_paths([f"  unreadable {e.path}: {e.reason}" for e in report.errors], every_item=False)


def _finish(actions: "Actions", docset: str, wait: bool, wanted: Callable[[Document], bool]) -> int:
    """Wait for (or just report on) the documents of this operation; 1 when any is in error."""
    if wait:
        return report_documents(wait_for_documents(actions, docset, wanted))
    documents = [d for d in actions.documents.all(docset) if wanted(d)]
    queued = sum(d.embedding_status not in FINISHED for d in documents)
    if queued:
        note(
            f"{queued} document(s) queued for embedding by a running `ragspace serve` or "
            f"`ragspace worker`; `ragspace status {docset} --wait` embeds them here."
        )
    failed = [d for d in documents if d.embedding_status is EmbeddingStatus.ERROR]
    if failed:
        return report_documents(failed)
    return 0


# add dir


def _add_dir(args: argparse.Namespace) -> int:
    options = FolderOptions(include=globs(args.include), exclude=globs(args.exclude))
    with opened_actions(workers=args.wait) as actions:
        actions.docsets.get(args.docset)  # fail on a wrong name before reading anything
        if args.dry_run:
            _print_preview(actions.sources.preview_folder(args.path, options), True)
            return 0
        report = actions.sources.add_folder(args.docset, args.path, options)
        _print_report(report)
        _print_skipped(report.skipped)
        return _finish(actions, args.docset, args.wait, lambda d: d.source_id == report.source_id)


def _print_skipped(skipped: Sequence[SkippedItem]) -> None:
    """Every skip with its reason: nothing the user pointed at disappears silently."""
    if skipped:
        print(f"Skipped {len(skipped)}:")
        _print_paths([f"  {item.path}: {item.reason}" for item in skipped])


# add files


def _add_files(args: argparse.Namespace) -> int:
    uploads, hidden = _collect(args.paths)
    size = sum(u.size for u in uploads)
    print(f"Preview: {len(uploads)} file(s), {size:,} bytes; skipped {len(hidden)} hidden.")
    _print_paths([f"  hidden {path}" for path in hidden], every_item=False)
    with opened_actions(workers=args.wait) as actions:
        returned = actions.sources.add_files(args.docset, uploads)
        documents = [d for d in returned if d.id]  # id 0: skipped, not stored
        refused = [
            SkippedItem(path=d.path, reason=d.error_message or "") for d in returned if not d.id
        ]
        ids = {d.id for d in documents}
        print(f"Added {len(documents)} document(s) to {args.docset!r}.")
        _print_skipped(refused + [item for d in documents for item in d.redactions])
        return _finish(actions, args.docset, args.wait, lambda d: d.id in ids)


def _collect(paths: Sequence[Path]) -> tuple[list["IncomingFile"], list[str]]:
    """Files named on the command line, and every file under named directories (not read
    yet: each is read when its turn comes, within the upload's budget).

    Files inside a directory keep their path from the directory's name down, so
    `docs/api/index.md` and `docs/guide/index.md` stay apart; hidden entries are skipped.
    """
    from ragspace.sources.folder import FileOnDisk

    uploads: list[IncomingFile] = []
    hidden: list[str] = []
    for path in paths:
        if path.is_file():
            uploads.append(FileOnDisk.at(path.name, path.resolve()))  # a link: its target
        elif path.is_dir():
            root = path.resolve()
            for file in sorted(p for p in root.rglob("*") if p.is_file()):
                relative = file.relative_to(root.parent).as_posix()
                if any(part.startswith(".") for part in file.relative_to(root).parts):
                    hidden.append(relative)
                else:
                    uploads.append(FileOnDisk.at(relative, file.resolve()))
        else:
            raise ValidationError(f"No such file or directory: {str(path)!r}.")
    if not uploads:
        raise ValidationError("No files to add: the directories given hold only hidden files.")
    return uploads, hidden


# sync


def _sync(args: argparse.Namespace) -> int:
    with opened_actions(workers=args.wait) as actions:
        sources = [s for s in actions.sources.all(args.docset) if s.kind is not SourceKind.UPLOAD]
        if args.source is not None:
            sources = [s for s in sources if s.id == args.source]
            if not sources:
                raise NotFoundError(
                    f"DocSet {args.docset!r} has no GitHub or web source #{args.source}; "
                    f"`ragspace status {args.docset}` lists its sources."
                )
        if not sources:
            raise NotFoundError(f"DocSet {args.docset!r} has no GitHub or web sources to sync.")
        failures = 0
        for source in sources:
            try:
                _print_report(actions.sources.resync(source.id))
            except RagspaceError as exc:
                failures += error(f"source #{source.id} ({source.location}): {exc}")
        synced = {s.id for s in sources}
        code = _finish(actions, args.docset, args.wait, lambda d: d.source_id in synced)
        return 1 if failures else code


# schedule


def _schedule(args: argparse.Namespace) -> int:
    with opened_actions() as actions:
        if args.source not in {s.id for s in actions.sources.all(args.docset)}:
            raise NotFoundError(f"DocSet {args.docset!r} has no source #{args.source}.")
        source = actions.sources.set_resync_interval(args.source, args.every)
    if source.next_sync_at is None:
        print(f"Source #{source.id} is no longer re-synced on a schedule.")
    else:
        print(
            f"Source #{source.id} re-syncs every {interval_text(source.resync_interval)}; "
            f"next at {timestamp(source.next_sync_at)} (run by `ragspace serve` or "
            "`ragspace worker`)."
        )
    return 0
