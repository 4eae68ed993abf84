"""`ragspace mcp`: the MCP tools for coding agents, over stdio (or HTTP), without the web app.

`ragspace mcp` is what an agent's config runs (`ragspace mcp install CLIENT` writes that
config, `agent_configs.py`). It opens the same database as the app (embedded Postgres, started
if it is not running, or DATABASE_URL) and serves the tools of the web app's endpoint over
the same actions, with the same caps and read-only switch. Over stdio only MCP messages reach
stdout; logs go to stderr. Over HTTP (`--http PORT`) RAGSPACE_AUTH's accounts are required.
The process trusts whoever started it over stdio: it runs as that user, who can read the
database folder anyway.
"""

import argparse
import logging
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ragspace.settings import Settings, load_settings
from ragspace_cli.agent_configs import add_install_parser
from ragspace_cli.support import Subcommands

log = logging.getLogger(__name__)


def _port(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1 to 65535, not {value}")
    return value


def register(commands: Subcommands) -> None:
    """Add `mcp` (serve) and `mcp install CLIENT`."""
    mcp = commands.add_parser(
        "mcp",
        help="serve the MCP tools to a coding agent over stdio (or --http PORT)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    mcp.add_argument(
        "--http",
        type=_port,
        metavar="PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio",
    )
    mcp.add_argument("--host", help="interface for --http (default: RAGSPACE_HOST, 127.0.0.1)")
    mcp.add_argument(
        "--read-only",
        action="store_true",
        help="offer only the reading tools (as RAGSPACE_READ_ONLY)",
    )
    mcp.add_argument(
        "--no-workers",
        action="store_true",
        help="do not embed in this process (another `ragspace serve` or `worker` does)",
    )
    mcp.set_defaults(run=serve)
    add_install_parser(mcp.add_subparsers(dest="mcp_command", metavar="install"))


def database_place(settings: Settings) -> str:
    """Where the server's data is, for the agent: the data folder, or DATABASE_URL's host and
    database (never its user or password)."""
    if settings.database.database_url is None:
        return f"the embedded Postgres in {settings.database.data_dir.absolute()}"
    url = urlsplit(settings.database.database_url.get_secret_value())
    host = url.hostname or parse_qs(url.query).get("host", ["the default host"])[0]
    return f"DATABASE_URL, database {url.path.lstrip('/') or '(default)'} on {host}"


def serve(args: argparse.Namespace) -> int:
    """Open the database and serve the tools until the client goes (stdio) or Ctrl+C."""
    from ragspace_mcp.tool_server import protocol_stdout

    # before anything starts: a child process (pg_ctl) writing to fd 1 would corrupt stdio
    stdout = protocol_stdout() if args.http is None else None
    started = time.monotonic()
    overrides: dict[str, Any] = {"read_only": True} if args.read_only else {}
    settings = load_settings(**overrides)
    from ragspace.access import LoginLimits, parse_auth
    from ragspace.runtime import open_runtime
    from ragspace_mcp.tool_server import build_server

    credentials = parse_auth(settings.access.auth)  # a malformed RAGSPACE_AUTH fails before serving
    threads = (
        0 if settings.access.read_only or args.no_workers else settings.ingestion.worker_threads
    )
    runtime = open_runtime(settings, worker_threads=threads, load_models=False)
    try:
        database = database_place(settings)
        server = build_server(runtime.actions, settings.server.app_url, database)
        log.info(
            "RAGSpace MCP server ready in %.2f s (%s, %d worker thread(s); %s)",
            time.monotonic() - started,
            "read-only" if settings.access.read_only else "read-write",
            threads,
            database,
        )
        if stdout is None:
            from ragspace_mcp.http_server import serve_http

            host, limits = args.host or settings.server.host, LoginLimits.from_settings(settings)
            serve_http(server, credentials, host, args.http, limits)
        else:
            import anyio

            from ragspace_mcp.tool_server import serve_stdio

            anyio.run(serve_stdio, server, stdout)
    finally:
        runtime.close()
    return 0
