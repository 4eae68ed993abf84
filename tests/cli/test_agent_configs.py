"""`ragspace mcp install CLIENT`: each agent's config file, written in a temporary HOME and
project, parsed back and checked against the format the client documents."""

import json
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from ragspace_cli.main import main

SCRIPT = str((Path(sys.executable).parent / "ragspace").absolute())


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A temporary HOME, CODEX_HOME-less environment and project folder (the cwd)."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    for name in ("CODEX_HOME", "DATABASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAGSPACE_DATA_DIR", "relative-data")
    return {"home": home, "project": project}


def install(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["mcp", "install", *args])
    out, err = capsys.readouterr()
    return code, out, err


def expected_env(places: dict[str, Path]) -> dict[str, str]:
    # the data folder made absolute: the agent starts the server in another folder
    return {"RAGSPACE_DATA_DIR": str(places["project"] / "relative-data")}


# client -> (file relative to HOME or the project, key of the servers, entry has "type")
JSON_CLIENTS = {
    "claude-code": ("project", ".mcp.json", "mcpServers", True),
    "cursor": ("home", ".cursor/mcp.json", "mcpServers", False),
    "vscode": ("project", ".vscode/mcp.json", "servers", True),
    "windsurf": ("home", ".codeium/windsurf/mcp_config.json", "mcpServers", False),
}


@pytest.mark.parametrize("client", sorted(JSON_CLIENTS))
def test_json_clients_get_a_stdio_entry_idempotently_beside_other_servers(
    client: str, places: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, relative, key, typed = JSON_CLIENTS[client]
    path = places[base] / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    theirs = {"command": "npx", "args": ["-y", "other-server"]}
    path.write_text(json.dumps({key: {"other": theirs}, "keepMe": 1}), encoding="utf-8")

    assert install(capsys, client)[0] == 0
    data = json.loads(path.read_text(encoding="utf-8"))
    entry: dict[str, Any] = data[key]["ragspace"]
    assert data[key]["other"] == theirs and data["keepMe"] == 1  # the user's servers stay
    assert entry["command"] == SCRIPT and Path(entry["command"]).is_absolute()
    assert entry["args"] == ["mcp"]
    assert entry["env"] == expected_env(places)
    assert ("type" in entry) is typed and entry.get("type", "stdio") == "stdio"
    assert set(entry) <= {"type", "command", "args", "env"}  # the documented fields only

    written = path.stat().st_mtime_ns
    code, _, err = install(capsys, client)  # a second run changes nothing
    assert code == 0 and "nothing changed" in err
    assert path.stat().st_mtime_ns == written


def test_codex_table_in_config_toml_keeps_the_rest(
    places: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = places["home"] / ".codex" / "config.toml"
    path.parent.mkdir()
    mine = '# my settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "npx"\nargs = ["x"]\n'
    path.write_text(mine, encoding="utf-8")

    assert install(capsys, "codex", "--read-only")[0] == 0
    text = path.read_text(encoding="utf-8")
    assert text.startswith(mine.rstrip("\n"))  # comments and order kept
    data = tomllib.loads(text)
    assert data["model"] == "o3" and data["mcp_servers"]["other"]["args"] == ["x"]
    assert data["mcp_servers"]["ragspace"] == {
        "command": SCRIPT,
        "args": ["mcp", "--read-only"],
        "env": expected_env(places),
    }
    assert install(capsys, "codex", "--read-only")[2].endswith("nothing changed.\n")
    assert path.read_text(encoding="utf-8") == text
    # a changed entry replaces the table in place of being added twice
    assert install(capsys, "codex")[0] == 0
    again = tomllib.loads(path.read_text(encoding="utf-8"))
    assert again["mcp_servers"]["ragspace"]["args"] == ["mcp"]
    assert path.read_text(encoding="utf-8").count("[mcp_servers.ragspace]") == 1


def test_dry_run_prints_and_writes_nothing(
    places: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = install(capsys, "cursor", "--scope", "project", "--dry-run")
    assert code == 0
    assert json.loads(out)["mcpServers"]["ragspace"]["command"] == SCRIPT
    assert str(places["project"] / ".cursor" / "mcp.json") in err
    assert not (places["project"] / ".cursor").exists()
    assert not (places["home"] / ".cursor").exists()


@pytest.mark.parametrize(
    ("client", "relative", "text"),
    [
        ("cursor", ".cursor/mcp.json", '{"mcpServers": {"other": {}},'),
        ("vscode", ".vscode/mcp.json", '{"servers": ["not", "an", "object"]}'),
        ("codex", ".codex/config.toml", "[mcp_servers.other\ncommand = 1\n"),
    ],
)
def test_a_malformed_config_is_refused_never_overwritten(
    client: str,
    relative: str,
    text: str,
    places: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = places["project"] if client == "vscode" else places["home"]
    path = base / relative
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    code, _, err = install(capsys, client)
    assert code == 1
    assert str(path) in err and "nothing was written" in err
    assert path.read_text(encoding="utf-8") == text


def test_secrets_are_referenced_never_copied(
    places: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://app:hunter2@db.example.com/rag")
    install(capsys, "claude-code")
    text = (places["project"] / ".mcp.json").read_text(encoding="utf-8")
    assert "hunter2" not in text
    assert json.loads(text)["mcpServers"]["ragspace"]["env"]["DATABASE_URL"] == "${DATABASE_URL}"
    install(capsys, "windsurf")
    windsurf = (places["home"] / ".codeium/windsurf/mcp_config.json").read_text(encoding="utf-8")
    assert '"DATABASE_URL": "${env:DATABASE_URL}"' in windsurf and "hunter2" not in windsurf
    # codex documents no expansion: the value is left out and the user told how to add it
    code, _, err = install(capsys, "codex")
    assert code == 0 and "pass --env DATABASE_URL=" in err
    assert "DATABASE_URL" not in (places["home"] / ".codex/config.toml").read_text(encoding="utf-8")
    # written only when the user passes it explicitly
    install(capsys, "codex", "--env", "DATABASE_URL=postgresql://x@h/db")
    codex = tomllib.loads((places["home"] / ".codex/config.toml").read_text(encoding="utf-8"))
    assert codex["mcp_servers"]["ragspace"]["env"]["DATABASE_URL"] == "postgresql://x@h/db"


@pytest.mark.usefixtures("places")
def test_unknown_client_and_scope_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["mcp", "install", "emacs"])
    assert exit_info.value.code == 2
    code, _, err = install(capsys, "windsurf", "--scope", "project")
    assert code == 1 and "user scope only" in err


def strict_json(text: str) -> Any:
    """JSON as an agent reads it (Node's JSON.parse): NaN and Infinity are not JSON."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("client", ["claude-code", "cursor"])
def test_an_existing_entry_keeps_what_install_does_not_own(
    client: str, places: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, relative, key, _ = JSON_CLIENTS[client]
    path = places[base] / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    mine = {
        "command": "/old/venv/bin/ragspace",
        "args": ["-v", "mcp", "--no-workers"],
        "env": {"RAGSPACE_DATA_DIR": "/old/data", "RAGSPACE_LOG_LEVEL": "DEBUG"},
        "timeout": 30000,
    }
    path.write_text(json.dumps({key: {"ragspace": mine}}), encoding="utf-8")

    code, _, err = install(capsys, client, "--read-only")
    assert code == 0
    entry = json.loads(path.read_text(encoding="utf-8"))[key]["ragspace"]
    assert entry["command"] == SCRIPT
    assert entry["args"] == ["-v", "mcp", "--read-only", "--no-workers"]
    assert entry["env"] == expected_env(places) | {"RAGSPACE_LOG_LEVEL": "DEBUG"}
    assert entry["timeout"] == 30000
    # what changed, and what was kept, is said
    assert '/old/venv/bin/ragspace" -> "' + SCRIPT in err
    assert f"RAGSPACE_DATA_DIR: /old/data -> {places['project'] / 'relative-data'}" in err
    assert "kept timeout, env RAGSPACE_LOG_LEVEL, argument -v, argument --no-workers" in err
    assert install(capsys, client, "--read-only")[2].count("nothing changed") == 1


def test_a_url_server_of_the_same_name_is_not_turned_into_this_one(
    places: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = places["project"] / ".mcp.json"
    text = '{"mcpServers": {"ragspace": {"type": "http", "url": "http://127.0.0.1:7860/mcp"}}}'
    path.write_text(text, encoding="utf-8")
    code, _, err = install(capsys, "claude-code")
    assert code == 1 and "of another kind (a URL); pass --name" in err
    assert path.read_text(encoding="utf-8") == text
    assert install(capsys, "claude-code", "--name", "ragspace-local")[0] == 0
    servers = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]
    assert servers["ragspace"]["url"] and servers["ragspace-local"]["command"] == SCRIPT


def test_numbers_are_written_back_as_they_were_written(
    places: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """`1e400` read by the json module is infinity, which it writes back as `Infinity`: a file
    no agent parses. Every number the user wrote stays as written."""
    path = places["home"] / ".cursor" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        '{"mcpServers": {"other": {"command": "x", "timeout": 1e400}},'
        ' "limits": {"precise": 1.00000000000000000001, "tiny": -2.5E-400, "n": 12}}',
        encoding="utf-8",
    )
    assert install(capsys, "cursor")[0] == 0
    text = path.read_text(encoding="utf-8")
    data = strict_json(text)  # an agent parses it
    assert data["mcpServers"]["ragspace"]["command"] == SCRIPT
    assert '"timeout": 1e400' in text
    assert '"precise": 1.00000000000000000001' in text and '"tiny": -2.5E-400' in text
    # a file an agent cannot parse is never written either
    path.write_text('{"mcpServers": {}, "x": NaN}', encoding="utf-8")
    code, _, err = install(capsys, "cursor")
    assert code == 1 and "NaN is not a JSON value" in err and "nothing was written" in err


@pytest.mark.parametrize(
    ("text", "written"),
    [
        # a multi-line string holding a line like the table's header: once a raw traceback
        ('[notes]\ntext = """\n[mcp_servers.ragspace]\n"""\n', True),
        ("mcp_servers = 1\n", False),  # once an AttributeError traceback
        ('[mcp_servers]\nragspace.command = "/old/ragspace"\n', True),  # dotted keys
        ("[mcp_servers.'ragspace'] # mine\ncommand = 'x'\n", True),  # literal key, a comment
        ('mcp_servers = { ragspace = { command = "x" } }\n', True),  # inline tables
        ('[[mcp_servers.ragspace]]\ncommand = "x"\n', False),  # an array of tables
    ],
)
def test_codex_edge_cases_are_edited_or_refused_never_a_traceback(
    text: str, written: bool, places: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = places["home"] / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    code, _, err = install(capsys, "codex")  # an exception would fail the test here
    after = path.read_text(encoding="utf-8")
    if written:
        assert code == 0, err
        data = tomllib.loads(after)
        assert data["mcp_servers"]["ragspace"]["command"] == SCRIPT
        assert data["mcp_servers"]["ragspace"]["env"] == expected_env(places)
        assert tomllib.loads(after) | {"mcp_servers": {}} == tomllib.loads(text) | {
            "mcp_servers": {}
        }  # the rest as it was
    else:
        assert code == 1 and "nothing was written" in err and after == text


def test_claude_code_says_the_server_waits_for_approval_and_how_to_skip_it(
    places: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = install(capsys, "claude-code")
    assert code == 0
    assert '"Pending approval"' in err and f"start `claude` in {places['project']}" in err
    manual = err.split("add it for yourself instead: ")[1].strip()
    data_dir = places["project"] / "relative-data"
    assert manual == (
        f"claude mcp add --scope user ragspace --env=RAGSPACE_DATA_DIR={data_dir} -- {SCRIPT} mcp"
    )
