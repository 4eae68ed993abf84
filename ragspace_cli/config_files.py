"""One server's entry merged into an agent's MCP config file, everything else kept as it was.

What `mcp install` owns in an entry: `type`, `command`, the `mcp` and `--read-only` arguments,
RAGSPACE_DATA_DIR and the variables passed with `--env`. Everything else of an entry already
there is kept: its other arguments (`--no-workers`), its other variables (a user's own
values win over the secret references install would add), its other fields (`cwd`,
`disabled`, `timeout`...). An entry of another kind (a URL) is never turned into this one.

A file is written only if it parses back, with the same reader an agent uses, to exactly
what was meant: the old content with this one entry changed. Numbers are kept as written
(`1e400` stays `1e400`; the json module alone would write it back as `Infinity`, which no
agent parses); TOML is edited in place with tomlkit, comments and layout kept. Anything else
is refused with a message, never written.
"""

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomlkit

from ragspace.errors import ConfigError

Entry = dict[str, Any]
OWN_ARGS = ("mcp", "--read-only")
SHOWN_VALUES = ("RAGSPACE_DATA_DIR",)  # env values named in the summary; others may be secret


@dataclass
class Edit:
    """The file's new text (the old one when nothing changes) and what changed in the entry."""

    text: str
    changes: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Wanted:
    """The entry install would write, and which of its variables it owns (the others only
    fill a gap)."""

    name: str
    entry: Entry
    owned_env: frozenset[str]


def refusal(path: Path, why: str) -> ConfigError:
    """The error for a file this command will not write."""
    return ConfigError(f"{path} {why}; fix or move it and run this again (nothing was written).")


def merged_entry(current: Any, wanted: Wanted, path: Path) -> Entry:
    """The entry to write: `wanted` over what `current` (the entry already there) holds."""
    entry = wanted.entry
    if current is None:
        return dict(entry)
    if not isinstance(current, dict):
        raise refusal(path, f"has a {wanted.name!r} server that is not a table of settings")
    if "url" in current or current.get("type", "stdio") != "stdio":
        raise refusal(
            path,
            f"has a {wanted.name!r} server of another kind (a URL); pass --name to add this "
            "one beside it",
        )
    theirs = _env(current)
    env = {k: v for k, v in entry["env"].items() if k not in wanted.owned_env}
    env |= theirs | {k: v for k, v in entry["env"].items() if k in wanted.owned_env}
    merged = current | {k: entry[k] for k in ("type", "command") if k in entry}
    return merged | {"args": _merged_args(current, entry["args"]), "env": env}


def _env(entry: Entry) -> dict[str, Any]:
    env = entry.get("env")
    return env if isinstance(env, dict) else {}


def _merged_args(current: Entry, own: list[str]) -> list[str]:
    """Ours, with the arguments of a `ragspace … mcp …` entry that are not ours around them."""
    theirs = current.get("args")
    command = current.get("command")
    if not (isinstance(command, str) and Path(command).name == "ragspace"):
        return own
    if not (isinstance(theirs, list) and "mcp" in theirs):
        return own
    at = theirs.index("mcp")
    return [*theirs[:at], *own, *(a for a in theirs[at + 1 :] if a not in OWN_ARGS)]


def summary(current: Any, merged: Entry) -> tuple[list[str], list[str]]:
    """What changed in the entry and what of it was kept, for the user (no secret values)."""
    if current is None:
        return [], []
    changes = [
        f"{key}: {json.dumps(current[key]) if key in current else '(none)'} -> "
        f"{json.dumps(merged[key])}"
        for key in ("type", "command", "args")
        if key in merged and current.get(key) != merged[key]
    ]
    kept = [key for key in current if key not in ("type", "command", "args", "env")]
    theirs = _env(current)
    for name, value in merged["env"].items():
        if name not in theirs:
            changes.append(f"env {name} added")
        elif theirs[name] != value:
            shown = f": {theirs[name]} -> {value}" if name in SHOWN_VALUES else " changed"
            changes.append(f"env {name}{shown}")
        else:
            kept.append(f"env {name}")
    own = [*merged["args"]]
    kept += [f"argument {a}" for a in own if a not in OWN_ARGS]
    return changes, kept


# JSON


@dataclass(frozen=True)
class _Number:
    """A JSON number other than an integer, as written in the file."""

    text: str


_NUMBER_MARK = re.compile(r'"\\u0000([-+.0-9eE]+)\\u0000"')


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON value")


def _exact_json(text: str) -> Any:
    """The JSON value, numbers as written, NaN and Infinity refused (no agent parses them)."""
    return json.loads(text, parse_float=_Number, parse_constant=_not_json)


def _dump_exact(data: Any) -> str:
    def mark(value: object) -> str:
        if isinstance(value, _Number):
            return f"\0{value.text}\0"  # written as "\u0000…\u0000", then unquoted below
        raise TypeError(f"{type(value).__name__} is not JSON")

    text = json.dumps(data, indent=2, ensure_ascii=False, default=mark)
    return _NUMBER_MARK.sub(lambda match: match.group(1), text) + "\n"


def json_with(text: str, path: Path, key: str, wanted: Wanted) -> Edit:
    """The JSON file's text with the entry under key/name, every other setting kept."""
    try:
        data = _exact_json(text) if text.strip() else {}
    except ValueError as exc:
        raise refusal(path, f"is not valid JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.setdefault(key, {}), dict):
        raise refusal(path, f"does not hold a JSON object with an object {key!r}")
    current = data[key].get(wanted.name)
    merged = merged_entry(current, wanted, path)
    if merged == current:
        return Edit(text)
    data[key][wanted.name] = merged
    updated = _dump_exact(data)
    try:
        same = _exact_json(updated) == data
    except ValueError:
        same = False
    if not same:
        raise refusal(path, "holds values this command cannot write back unchanged")
    return Edit(updated, *summary(current, merged))


# TOML (Codex)


def toml_with(text: str, path: Path, wanted: Wanted) -> Edit:
    """Codex's TOML with [mcp_servers.NAME] merged in place, comments and the rest kept."""
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise refusal(path, f"is not valid TOML ({exc})") from None
    servers = before.setdefault("mcp_servers", {})
    if not isinstance(servers, dict):
        raise refusal(path, "has an mcp_servers that is not a table")
    current = servers.get(wanted.name)
    merged = merged_entry(current, wanted, path)
    if merged == current:
        return Edit(text)
    servers[wanted.name] = merged
    try:
        updated = _toml_edited(text, wanted.name, merged)
        same = tomllib.loads(updated) == before
    except Exception:  # tomlkit fails in its own ways on shapes it did not expect
        same = False
    if not same:
        raise refusal(path, f"defines mcp_servers.{wanted.name} in a form this command cannot edit")
    return Edit(updated, *summary(current, merged))


def _toml_edited(text: str, name: str, merged: Entry) -> str:
    document = tomlkit.parse(text)
    if "mcp_servers" not in document:
        document["mcp_servers"] = tomlkit.table(is_super_table=True)
    servers: Any = document["mcp_servers"]
    if name not in servers:
        servers[name] = tomlkit.table()
    _update(servers[name], merged)
    return tomlkit.dumps(document)


def _update(container: Any, values: Entry) -> None:
    """Set what differs, key by key, so the table keeps its comments and layout."""
    for key, value in values.items():
        if isinstance(value, dict) and isinstance(container.get(key), dict):
            _update(container[key], value)
        elif key not in container or container[key] != value:
            container[key] = _inline(value) if isinstance(value, dict) else value


def _inline(values: Entry) -> Any:
    table = tomlkit.inline_table()
    table.update(values)
    return table
