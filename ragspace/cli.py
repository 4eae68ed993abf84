"""The `ragspace` command line."""

import argparse
import logging
import signal
import threading

from ragspace.cli_eval import add_eval_parser
from ragspace.logging_setup import configure_logging
from ragspace.settings import load_settings

log = logging.getLogger(__name__)


def _serve(_: argparse.Namespace) -> int:
    from ui.server import serve  # the CLI is a front end, like ui/; only `serve` needs Gradio

    serve(load_settings())
    return 0


def _worker(args: argparse.Namespace) -> int:
    from ragspace.runtime import open_runtime

    runtime = open_runtime(load_settings(), worker_threads=args.threads)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    log.info("Worker running with %d thread(s); Ctrl+C stops it", args.threads)
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        runtime.close()
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="ragspace", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("serve", help="run the web app").set_defaults(run=_serve)
    worker = commands.add_parser("worker", help="run ingestion workers against the database")
    worker.add_argument("--threads", type=int, default=1, help="worker threads (default 1)")
    worker.set_defaults(run=_worker)
    add_eval_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `ragspace` console script."""
    args = build_parser().parse_args(argv)
    configure_logging(load_settings().log_level)
    code: int = args.run(args)
    return code
