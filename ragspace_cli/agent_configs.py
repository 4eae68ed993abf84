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
import shutil
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragspace.errors import ConfigError
from ragspace.settings import load_settings
from ragspace_cli.support import Subcommands, note

SECRETS = ("DATABASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "GITHUB_TOKEN")
Entry = dict[str, Any]


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


def server_entry(
    client: Client, read_only: bool, extra_env: dict[str, str]
) -> tuple[Entry, list[str]]:
    """The server's entry for this client, and notes for the user."""
    settings = load_settings()
    env = {"RAGSPACE_DATA_DIR": str(settings.database.data_dir.absolute())}
    notes = []
    for name in SECRETS:
        if name in extra_env or not os.environ.get(name):
            continue
        if client.reference is None:
            notes.append(
                f"{name} is set here but not written: {client.name} does not expand variables; "
                f"pass --env {name}=... to write its value into the file."
            )
        else:
            env[name] = client.reference(name)
            notes.append(f"{name} is referenced as {env[name]}: set it where the agent starts.")
    env |= extra_env
    entry: Entry = {"type": "stdio"} if client.stdio_type else {}
    entry |= {
        "command": ragspace_command(),
        "args": ["mcp", *(["--read-only"] if read_only else [])],
    }
    return entry | {"env": env}, notes


def install_command(args: argparse.Namespace) -> int:
    """Write (or with --dry-run print) the client's config with this server in it."""
    client = CLIENTS[args.client]
    scope = args.scope or client.scopes[0]
    if scope not in client.scopes:
        raise ConfigError(f"{client.name} keeps its servers in {client.scopes[0]} scope only.")
    path = client.path((args.project or Path.cwd()).absolute(), scope == "project")
    entry, notes = server_entry(client, args.read_only, _pairs(args.env))
    text = _current(path)
    updated = (_toml_with if client.key == "" else _json_with)(
        text, path, client.key, args.name, entry
    )
    for line in notes:
        note(line)
    if args.dry_run:
        note(f"Would write {path}:")
        print(updated, end="")
    elif updated == text:
        note(f"{path} already has this {args.name!r} server; nothing changed.")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(updated, encoding="utf-8")
        note(f"Wrote the {args.name!r} server to {path}; restart {client.name} to load it.")
    return 0


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


def _refuse(path: Path, why: str) -> ConfigError:
    return ConfigError(f"{path} {why}; fix or move it and run this again (nothing was written).")


def _json_with(text: str, path: Path, key: str, name: str, entry: Entry) -> str:
    """The JSON file's text with the entry under key/name, every other setting kept."""
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise _refuse(path, f"is not valid JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.setdefault(key, {}), dict):
        raise _refuse(path, f"does not hold a JSON object with an object {key!r}")
    if data[key].get(name) == entry:
        return text
    data[key][name] = entry
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _toml_with(text: str, path: Path, _: str, name: str, entry: Entry) -> str:
    """Codex's TOML with the table [mcp_servers.NAME] replaced or added, the rest as it was."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _refuse(path, f"is not valid TOML ({exc})") from None
    if data.get("mcp_servers", {}).get(name) == entry:
        return text
    header = re.compile(rf"^\s*\[\s*mcp_servers\s*\.\s*\"?{re.escape(name)}\"?\s*(\.[^\]]*)?\]\s*$")
    kept, skipping = [], False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("["):
            skipping = bool(header.match(line))
        if not skipping:
            kept.append(line)
    rest = "".join(kept)
    if name in tomllib.loads(rest).get("mcp_servers", {}):
        raise _refuse(path, f"defines mcp_servers.{name} in a form this command cannot edit")
    updated = (rest.rstrip("\n") + "\n\n" if rest.strip() else "") + _toml_table(name, entry)
    assert tomllib.loads(updated)["mcp_servers"][name] == entry
    return updated


def _toml_table(name: str, entry: Entry) -> str:
    """[mcp_servers.NAME] with the entry's values (JSON strings are valid TOML strings)."""
    key = name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)
    env = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in entry["env"].items())
    return (
        f"[mcp_servers.{key}]\n"
        f"command = {json.dumps(entry['command'])}\n"
        f"args = {json.dumps(entry['args'])}\n"
        f"env = {{ {env} }}\n"
    )
