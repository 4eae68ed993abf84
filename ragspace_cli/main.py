"""The `ragspace` command line: run the app or workers, manage DocSets, search and ask."""

import argparse
import contextlib
import logging
import os
import signal
import sys
import threading
from types import FrameType

import pydantic

from ragspace import __version__
from ragspace.errors import RagspaceError
from ragspace.logging_setup import configure_logging
from ragspace.settings import Settings, load_settings
from ragspace_cli import docs as cli_docs
from ragspace_cli import docsets as cli_docsets
from ragspace_cli import mcp_command as cli_mcp
from ragspace_cli import query as cli_query
from ragspace_cli import sources as cli_sources
from ragspace_cli import status as cli_status
from ragspace_cli import symbols as cli_symbols
from ragspace_cli.evaluate import add_eval_parser
from ragspace_cli.support import UsageError, error, opened_actions, shown

log = logging.getLogger(__name__)

QUIET_LEVEL = "WARNING"  # one-shot commands keep start-up chatter off the terminal
INTERRUPTED = 130


def _serve(_: argparse.Namespace) -> int:
    """Start the web app with `ragspace_ui.server.serve`, the function `app.py` calls too.

    The CLI is the outermost front end: it may start the web app, and nothing below it (the
    core, the web app) imports the CLI (scripts/import_graph.py). Imported here, because only
    `serve` needs Gradio and every other command starts faster without it.
    """
    from ragspace_ui.server import serve

    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C is how the app is meant to stop
        serve(load_settings())
    return 0


def _worker(args: argparse.Namespace) -> int:
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        with opened_actions(workers=True, resync=True, worker_threads=args.threads):
            log.info(
                "Worker running with %d thread(s) and scheduled re-syncs; Ctrl+C stops it",
                args.threads,
            )
            stop.wait()
    except KeyboardInterrupt:
        pass  # Ctrl+C is how a worker is meant to stop
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0


def _threads(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"a worker needs at least 1 thread, not {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="ragspace",
        description=__doc__,
        epilog="Settings come from the environment or .env (see .env.example).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="log progress details on stderr"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser("serve", help="run the web app")
    serve.set_defaults(run=_serve, chatty=True)
    worker = commands.add_parser(
        "worker", help="run ingestion workers and scheduled re-syncs against the database"
    )
    # two by default, unlike the app's one: a worker machine serves no searches, so one
    # document is written while another is embedded (docs/benchmarks.md, Scale)
    worker.add_argument("--threads", type=_threads, default=2, help="worker threads (default 2)")
    worker.set_defaults(run=_worker, chatty=True)
    cli_docsets.register(commands)
    cli_sources.register(commands)
    cli_status.register(commands)
    cli_docs.register(commands)
    cli_query.register(commands)
    cli_symbols.register(commands)
    cli_mcp.register(commands)
    add_eval_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `ragspace` console script; returns the exit code."""
    args = build_parser().parse_args(argv)  # usage errors exit with 2 here
    try:
        settings = load_settings()
    except pydantic.ValidationError as exc:
        return error(f"invalid configuration: {_describe(exc)}")
    configure_logging(_log_level(args, settings))
    # SIGTERM (`kill`, a closed terminal, an agent ending the server it started) ends a
    # command as Ctrl+C does: the `finally` blocks run, so the embedded Postgres it started
    # is stopped (killed outright, it was left running and counted as used)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        code: int = args.run(args)
    except KeyboardInterrupt:
        print("ragspace: interrupted", file=sys.stderr)
        return INTERRUPTED
    except UsageError as exc:
        print("ragspace: error: " + shown(str(exc), keep="\n"), file=sys.stderr)
        return 2
    except RagspaceError as exc:
        return error(str(exc))
    except BrokenPipeError:
        _silence_stdout()  # `ragspace search … | head` closed the pipe; nothing left to say
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
    return code


def _interrupt(signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _silence_stdout() -> None:
    """Point stdout at /dev/null so flushing it at exit cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _log_level(args: argparse.Namespace, settings: Settings) -> str:
    """RAGSPACE_LOG_LEVEL when set; else servers and workers log INFO, other commands warnings."""
    if "log_level" in settings.server.model_fields_set or getattr(args, "chatty", False):
        return settings.server.log_level
    return "INFO" if args.verbose else QUIET_LEVEL


def _describe(exc: pydantic.ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(part) for part in e['loc'])}: {e['msg']}" for e in exc.errors()
    )
