"""`ragspace mcp install CLIENT`: a coding agent's MCP config pointing at this installation.

Each client keeps its servers in a file of its own format; the entry written runs this venv's
`ragspace mcp` (absolute path) with RAGSPACE_DATA_DIR set to this installation's data folder
(absolute), so the agent finds the same DocSets whatever folder it starts in. Formats, as the
clients document them (checked 2026-11-25):

- claude-code: `.mcp.json` in the project, `{"mcpServers": {NAME: {"type": "stdio", "command",
  "args", "env"}}}`; `${VAR}` is expanded in command, args and env
  (https://code.claude.com/docs/en/mcp, "Environment variable expansion in .mcp.json").
- cursor: `~/.cursor/mcp.json` (or `.cursor/mcp.json` in the project), `{"mcpServers": {NAME:
  {"command", "args", "env"}}}`, `${env:VAR}` interpolated (https://cursor.com/docs/mcp).
- vscode: `.vscode/mcp.json` in the workspace, `{"servers": {NAME: {"type": "stdio", "command",
  "args", "env"}}}`, `${env:VAR}` interpolated
  (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration).
- codex: `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`), a table
  `[mcp_servers.NAME]` with `command`, `args`, `env` (https://developers.openai.com/codex/mcp);
  no variable expansion is documented.
- windsurf: `~/.codeium/windsurf/mcp_config.json`, `{"mcpServers": {NAME: {"command", "args",
  "env"}}}`, `${env:VAR}` interpolated (https://docs.windsurf.com/windsurf/cascade/mcp).

Secrets are never copied into these files: DATABASE_URL, OPENAI_API_KEY and GITHUB_TOKEN, when
set here, are written as references to the agent's environment where the client expands them
(and named in a note otherwise); `--env NAME=VALUE` writes a value only because the user asked.
A file that exists but does not parse is never overwritten: the command refuses and says why.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ragspace.errors import ConfigError
from ragspace.settings import load_settings
from ragspace_cli.config_files import Edit, Entry, Wanted, json_with, toml_with
from ragspace_cli.support import Subcommands, note

SECRETS = ("DATABASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "GITHUB_TOKEN")


@dataclass(frozen=True)
class Client:
    """Where and how one agent keeps its MCP servers."""

    name: str
    path: Callable[[Path, bool], Path]  # (project folder, project scope?) -> config file
    key: str  # the object holding the servers ("" for codex's TOML tables)
    stdio_type: bool  # whether entries say "type": "stdio"
    reference: Callable[[str], str] | None  # VAR -> how the file refers to $VAR
    scopes: tuple[str, ...]  # the first is the default


def _home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def _codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or _home() / ".codex")


CLIENTS = {
    "claude-code": Client(
        "claude-code",
        lambda p, _: p / ".mcp.json",
        "mcpServers",
        True,
        "${{{}}}".format,
        ("project",),
    ),
    "cursor": Client(
        "cursor",
        lambda p, project: (p if project else _home()) / ".cursor" / "mcp.json",
        "mcpServers",
        False,
        "${{env:{}}}".format,
        ("user", "project"),
    ),
    "vscode": Client(
        "vscode",
        lambda p, _: p / ".vscode" / "mcp.json",
        "servers",
        True,
        "${{env:{}}}".format,
        ("project",),
    ),
    "codex": Client(
        "codex",
        lambda p, project: (p / ".codex" if project else _codex_home()) / "config.toml",
        "",
        False,
        None,
        ("user", "project"),
    ),
    "windsurf": Client(
        "windsurf",
        lambda _p, _s: _home() / ".codeium" / "windsurf" / "mcp_config.json",
        "mcpServers",
        False,
        "${{env:{}}}".format,
        ("user",),
    ),
}


def add_install_parser(commands: Subcommands) -> None:
    """Add `mcp install CLIENT`."""
    install = commands.add_parser(
        "install",
        help="write a coding agent's MCP config for this installation",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    install.add_argument(
        "client", choices=sorted(CLIENTS), metavar="CLIENT", help=", ".join(sorted(CLIENTS))
    )
    install.add_argument("--name", default="ragspace", help="the server's name (default ragspace)")
    install.add_argument("--scope", choices=("user", "project"), help="user-wide or this project")
    install.add_argument(
        "--project", type=Path, default=None, help="the project folder (default: current folder)"
    )
    install.add_argument("--read-only", action="store_true", help="the agent only reads")
    install.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="also set this variable (written as given: the file then holds its value)",
    )
    install.add_argument("--dry-run", action="store_true", help="print the file, write nothing")
    install.set_defaults(run=install_command)


def ragspace_command() -> str:
    """The absolute path of this installation's `ragspace` script."""
    script = Path(sys.executable).parent / "ragspace"
    if script.exists():
        return str(script.absolute())
    found = shutil.which("ragspace")
    if found is None:
        raise ConfigError("No `ragspace` command found next to this Python or on PATH.")
    return str(Path(found).absolute())


def server_entry(client: Client, name: str, read_only: bool, extra_env: dict[str, str]) -> Wanted:
    """The server's entry for this client (what install owns of it), and notes for the user."""
    settings = load_settings()
    env = {"RAGSPACE_DATA_DIR": str(settings.database.data_dir.absolute())}
    for secret in SECRETS:
        if secret not in extra_env and os.environ.get(secret) and client.reference is not None:
            env[secret] = client.reference(secret)
    env |= extra_env
    entry: Entry = {"type": "stdio"} if client.stdio_type else {}
    entry |= {
        "command": ragspace_command(),
        "args": ["mcp", *(["--read-only"] if read_only else [])],
    }
    owned = frozenset({"RAGSPACE_DATA_DIR", *extra_env})
    return Wanted(name, entry | {"env": env}, owned)


def secret_notes(client: Client, written: Entry, extra_env: dict[str, str]) -> list[str]:
    """How each secret set here reaches the agent (a reference, or a way to pass it)."""
    notes = []
    for secret in SECRETS:
        if secret in extra_env or not os.environ.get(secret):
            continue
        if client.reference is None:
            notes.append(
                f"{secret} is set here but not written: {client.name} does not expand "
                f"variables; pass --env {secret}=... to write its value into the file."
            )
        elif written["env"].get(secret) == client.reference(secret):
            notes.append(
                f"{secret} is referenced as {client.reference(secret)}: set it where "
                "the agent starts."
            )
    return notes


def claude_code_notes(project: Path, wanted: Wanted) -> list[str]:
    """Claude Code asks before it starts a project's servers: say so, and the other way."""
    entry = wanted.entry
    manual = shlex.join(
        ["claude", "mcp", "add", "--scope", "user", wanted.name]
        + [f"--env={k}={v}" for k, v in entry["env"].items() if k in wanted.owned_env]
        + ["--", entry["command"], *entry["args"]]
    )
    return [
        f'Claude Code lists servers of a project\'s .mcp.json as "Pending approval" until you '
        f"approve them: start `claude` in {project} and accept {wanted.name!r} (check with "
        "`claude mcp list`).",
        f"To have it in every project without that question, add it for yourself instead: {manual}",
    ]


def install_command(args: argparse.Namespace) -> int:
    """Write (or with --dry-run print) the client's config with this server in it."""
    client = CLIENTS[args.client]
    scope = args.scope or client.scopes[0]
    if scope not in client.scopes:
        raise ConfigError(f"{client.name} keeps its servers in {client.scopes[0]} scope only.")
    project = (args.project or Path.cwd()).absolute()
    path = client.path(project, scope == "project")
    extra_env = _pairs(args.env)
    wanted = server_entry(client, args.name, args.read_only, extra_env)
    text = _current(path)
    if client.key:
        edit = json_with(text, path, client.key, wanted)
        written = json.loads(edit.text)[client.key][args.name]
    else:
        edit = toml_with(text, path, wanted)
        written = tomllib.loads(edit.text)["mcp_servers"][args.name]
    for line in secret_notes(client, written, extra_env):
        note(line)
    if args.dry_run:
        note(f"Would write {path}:")
        print(edit.text, end="")
    elif edit.text == text:
        note(f"{path} already has this {args.name!r} server; nothing changed.")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(edit.text, encoding="utf-8")
        note(f"Wrote the {args.name!r} server to {path}; restart {client.name} to load it.")
    for line in _changes(edit):
        note(line)
    if client.name == "claude-code" and scope == "project":
        for line in claude_code_notes(project, wanted):
            note(line)
    return 0


def _changes(edit: Edit) -> list[str]:
    lines = [f"  changed {change}" for change in edit.changes]
    return lines + ([f"  kept {', '.join(edit.kept)}"] if edit.kept else [])


def _pairs(values: list[str]) -> dict[str, str]:
    pairs = {}
    for value in values:
        name, equals, setting = value.partition("=")
        if not equals or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ConfigError(f"--env takes NAME=VALUE, not {value!r}.")
        pairs[name] = setting
    return pairs


def _current(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
