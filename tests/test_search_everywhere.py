"""One question, three front ends: `ragspace search --json`, the MCP tool `search` of a real
`ragspace mcp` over stdio, and the web app's HTTP API return the same hits with the same
scores, the relevance floor applied alike (an off-topic question gets none anywhere), and
show what the floor hid, marked, when asked to."""

import json
from pathlib import Path
from typing import Any

import pytest
from gradio_client import Client
from mcp import ClientSession

from ragspace.actions import Actions
from ragspace_cli.main import main
from tests.cli.test_mcp_command import (
    CLEARED,
    handbook,  # noqa: F401  (the fixture: DocSet handbook)
    over_stdio,
    payload,
    server_env,
)

OFF_TOPIC = "How long should I knead bread dough by hand before the first rise?"
ON_TOPIC = "How do I roll back a deployment?"
QUESTIONS = (OFF_TOPIC, ON_TOPIC)
# where each front end's app address differs (the CLI and `ragspace mcp` take it from the
# settings, the app from the request); everything else about a hit must be the same
ADDRESS_FIELDS = ("view_url",)

Hits = list[dict[str, Any]]


def comparable(hits: Hits) -> Hits:
    return [{k: v for k, v in hit.items() if k not in ADDRESS_FIELDS} for hit in hits]


def unnumbered(hits: Hits) -> Hits:
    return [{k: v for k, v in hit.items() if k != "number"} for hit in hits]


def cli_hits(question: str, capsys: pytest.CaptureFixture[str], *flags: str) -> Hits:
    """`ragspace search QUESTION --json` in this process, on the test's database."""
    capsys.readouterr()
    assert main(["search", question, "--json", *flags]) == 0
    found: Hits = json.loads(capsys.readouterr().out)
    return found


def mcp_hits(database_url: str, data_dir: Path, show_hidden: bool) -> dict[str, Hits]:
    """The `search` tool of a `ragspace mcp` subprocess, each question in one session."""

    async def session_work(session: ClientSession) -> dict[str, Hits]:
        found = {}
        for question in QUESTIONS:
            arguments: dict[str, Any] = {"query": question}
            if show_hidden:
                arguments["show_hidden"] = True
            found[question] = payload(await session.call_tool("search", arguments))["hits"]
        return found

    return over_stdio(server_env(database_url, data_dir), session_work)


def app_hits(client: Client, question: str, show_hidden: bool) -> Hits:
    """The app's public HTTP API (`/search`, the same tool the app serves over MCP)."""
    extra = {"show_hidden": True} if show_hidden else {}
    found: Hits = json.loads(client.predict(query=question, api_name="/search", **extra))["hits"]
    return found


def test_cli_mcp_and_app_return_the_same_hits_and_scores(
    handbook: Actions,  # noqa: F811  (the fixture imported above)
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    launch_app: Any,
) -> None:
    # the CLI in this process: the environment `ragspace mcp` gets (server_env)
    monkeypatch.chdir(tmp_path)  # no stray .env is read
    for name in CLEARED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("RAGSPACE_DATA_DIR", str(tmp_path / "data"))
    client = Client(launch_app(handbook), verbose=False)

    for show_hidden in (False, True):
        flags = ("--show-hidden",) if show_hidden else ()
        over_mcp = mcp_hits(database_url, tmp_path / "data", show_hidden)
        for question in QUESTIONS:
            cli = comparable(cli_hits(question, capsys, *flags))
            app = comparable(app_hits(client, question, show_hidden))
            assert cli == comparable(over_mcp[question]) == app, (question, show_hidden)
            assert [hit["number"] for hit in cli] == list(range(1, len(cli) + 1))
            hidden = [hit for hit in cli if hit["hidden"]]
            if not show_hidden:
                assert hidden == []
            else:  # the same hits as without the flag, in the same order, and those it hid
                shown = [hit for hit in cli if not hit["hidden"]]
                assert unnumbered(shown) == unnumbered(comparable(cli_hits(question, capsys)))
                assert hidden, question
            if question == OFF_TOPIC:  # the floor hides every hit of an off-topic question
                assert hidden == cli
            else:
                assert cli[0]["path"] == "deployment-guide.md" and not cli[0]["hidden"]
                assert all(0 <= hit["score"] <= 1 for hit in cli)  # the cosine similarity
