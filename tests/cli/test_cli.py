"""The `ragspace` command line, run in-process against the real per-test database."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from ragspace.actions import Actions
from ragspace.ingestion.worker import Ingestor
from ragspace.models import EmbeddingStatus, GithubOptions, RetrievalMode, WebOptions
from ragspace.sources.files import UploadedFile
from ragspace_cli.main import main
from ragspace_cli.query import MODES
from ragspace_ui.server import free_local_port
from tests.fakes import chat_server
from tests.fakes.chat_server import FakeChat
from tests.fakes.docs_site import DocsSite, running_site
from tests.fakes.github_server import FakeGithub, FakeRepo, running_github
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.serving import serving

DATA = Path(__file__).parent.parent / "data"
REPO_FILES = {
    "README.md": b"# Widgets\n\nWidgets are made in the sprocket factory.\n",
    "src/widgets/app.py": b'def polish(widget):\n    """Polish until it shines."""\n    return 1\n',
    "tests/test_app.py": b"def test_it():\n    assert True\n",
    "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
}


@dataclass
class Result:
    """What a command printed and returned."""

    code: int
    out: str
    err: str


Run = Callable[..., Result]


@pytest.fixture
def cli(
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Run:
    """`cli("docset", "list")` runs `ragspace docset list` on the per-test database."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    monkeypatch.chdir(workdir)  # no stray .env is read
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("RAGSPACE_DATA_DIR", str(tmp_path / "data"))
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "GITHUB_TOKEN",
        "RAGSPACE_LOG_LEVEL",
        "RAGSPACE_AUTH",
        "RAGSPACE_READ_ONLY",
        "RAGSPACE_ALLOW_PRIVATE_URLS",
    ):
        monkeypatch.delenv(name, raising=False)

    def run(*argv: str) -> Result:
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err
        return Result(code, captured.out, captured.err)

    return run


@pytest.fixture
def handbook(service: Actions, ingestor: Ingestor) -> Actions:
    """A DocSet `handbook` with two embedded documents, made through the service."""
    service.docsets.create("handbook", "Team handbook")
    names = ("deployment-guide.md", "glossary.rst")
    service.sources.add_files("handbook", [UploadedFile(n, (DATA / n).read_bytes()) for n in names])
    ingestor.process_all()
    return service


def _usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    return capsys.readouterr().err


# usage and configuration


def test_console_script_help_and_unknown_command() -> None:
    script = Path(sys.executable).parent / "ragspace"
    shown = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0
    for command in ("serve", "worker", "docset", "add", "sync", "status", "search", "ask"):
        assert command in shown.stdout
    wrong = subprocess.run([script, "frobnicate"], capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2
    assert "invalid choice: 'frobnicate'" in wrong.stderr
    assert wrong.stdout == ""


def test_mode_choices_match_the_retrieval_modes() -> None:
    assert set(MODES) == {mode.value for mode in RetrievalMode}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["docset"], "required: ACTION"),
        (["add", "web", "docs"], "required: url"),
        (["add", "web", "docs", "https://x.test/", "--max-pages", "0"], "must be at least 1"),
        (["worker", "--threads", "0"], "at least 1 thread"),
        (["search", "q", "--mode", "fuzzy"], "invalid choice: 'fuzzy'"),
        (["status", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_usage_errors_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert message in _usage_error(argv, capsys)


def test_invalid_configuration_and_unreachable_database(
    cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGSPACE_PORT", "not-a-port")
    bad = cli("docset", "list")
    assert bad.code == 1
    assert bad.err.startswith("ragspace: error: invalid configuration: RAGSPACE_PORT")
    monkeypatch.delenv("RAGSPACE_PORT")
    port = free_local_port()  # nothing listens there
    monkeypatch.setenv("DATABASE_URL", f"postgresql://u:hunter2@127.0.0.1:{port}/x")
    down = cli("docset", "list")
    assert down.code == 1
    assert "ragspace: error: Could not connect to the database" in down.err
    assert "hunter2" not in down.err


# docset


def test_docset_create_list_rename_delete(cli: Run) -> None:
    created = cli("docset", "create", "handbook", "--description", "Team handbook")
    assert created.code == 0 and "Created DocSet 'handbook'" in created.out
    duplicate = cli("docset", "create", "handbook")
    assert duplicate.code == 1
    assert duplicate.err.startswith("ragspace: error: ") and "handbook" in duplicate.err

    table = cli("docset", "list")
    header, row = table.out.splitlines()
    assert header.split()[:4] == ["NAME", "DOCUMENTS", "CHUNKS", "LAST"]
    assert row.split()[:4] == ["handbook", "0", "0", "never"]
    assert row.endswith("Team handbook")

    renamed = cli("docset", "rename", "handbook", "manual")
    assert renamed.code == 0 and "'manual'" in renamed.out
    missing = cli("docset", "rename", "handbook", "other")
    assert missing.code == 1 and "handbook" in missing.err

    deleted = cli("docset", "delete", "manual", "--yes")
    assert deleted.code == 0 and "Deleted DocSet 'manual'" in deleted.out
    again = cli("docset", "delete", "manual", "--yes")
    assert again.code == 1 and "manual" in again.err
    empty = cli("docset", "list", "--json")
    assert (empty.code, json.loads(empty.out)) == (0, [])


def test_read_only_refuses_changes(
    cli: Run, service: Actions, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.docsets.create("keep")
    monkeypatch.setenv("RAGSPACE_READ_ONLY", "true")
    for argv in (["docset", "create", "new"], ["docset", "delete", "keep", "--yes"]):
        refused = cli(*argv)
        assert refused.code == 1
        assert refused.err.startswith("ragspace: error: ") and "read-only" in refused.err.lower()
    assert [d.name for d in service.docsets.all()] == ["keep"]
    assert cli("docset", "list").code == 0


@pytest.mark.usefixtures("handbook")
def test_docset_list_json_counts_and_last_sync(cli: Run) -> None:
    listed = cli("docset", "list", "--json")
    assert listed.code == 0
    [entry] = json.loads(listed.out)
    assert entry["name"] == "handbook"
    assert entry["documents"] == 2
    assert entry["chunks"] >= 2
    assert entry["last_sync"] is not None  # the upload
    assert entry["needs_reembedding"] is False


@pytest.mark.usefixtures("handbook")
def test_docs_list_show_rm(cli: Run) -> None:
    listed = json.loads(cli("docs", "list", "handbook", "--json").out)
    assert sorted(e["path"] for e in listed) == ["deployment-guide.md", "glossary.rst"]
    assert all(e["status"] == "done" and e["chunks"] >= 1 for e in listed)
    table = cli("docs", "list", "handbook")
    assert table.out.splitlines()[0].split()[:3] == ["PATH", "STATUS", "CHUNKS"]

    lines = (DATA / "glossary.rst").read_text().split("\n")
    shown = cli("docs", "show", "handbook", "glossary.rst", "--lines", "2-4")
    assert shown.code == 0
    printed = [line.rstrip() for line in shown.out.splitlines()]
    assert printed == [f"{n}  {lines[n - 1]}".rstrip() for n in (2, 3, 4)]
    whole = json.loads(cli("docs", "show", "handbook", "glossary.rst", "--json").out)
    assert whole["text"] == "\n".join(lines) and whole["total_lines"] == len(lines)
    bad = cli("docs", "show", "handbook", "glossary.rst", "--lines", "x-y")
    assert bad.code == 1 and "--lines" in bad.err

    removed = cli("docs", "rm", "handbook", "glossary.rst", "--yes")
    assert removed.code == 0 and "Removed 1 document(s)" in removed.out
    after = json.loads(cli("docs", "list", "handbook", "--json").out)
    assert [e["path"] for e in after] == ["deployment-guide.md"]
    gone = cli("docs", "rm", "handbook", "glossary.rst", "--yes")
    assert gone.code == 1 and "glossary.rst" in gone.err


def test_docset_delete_confirmation(
    cli: Run, service: Actions, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.docsets.create("keep")
    refused = cli("docset", "delete", "keep")  # stdin is not a terminal under pytest
    assert refused.code == 2
    assert "pass --yes" in refused.err

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    answers = iter(["n", "y"])
    monkeypatch.setattr("builtins.input", lambda: next(answers))
    declined = cli("docset", "delete", "keep")
    assert declined.code == 1
    assert "Delete DocSet 'keep' and its 0 document(s)? [y/N]" in declined.err
    assert [d.name for d in service.docsets.all()] == ["keep"]
    accepted = cli("docset", "delete", "keep")
    assert accepted.code == 0
    assert service.docsets.all() == []


# add files, status


def test_add_files_recurses_waits_and_reports_errors(
    cli: Run, service: Actions, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    (folder / "api").mkdir(parents=True)
    (folder / "guide").mkdir()
    (folder / ".git").mkdir()
    (folder / "api" / "index.md").write_text("# API\n\nThe widget endpoint polishes widgets.\n")
    (folder / "guide" / "index.md").write_text("# Guide\n\nPolish widgets with a soft cloth.\n")
    (folder / ".git" / "config").write_text("[core]\n")
    service.docsets.create("notes")

    added = cli("add", "files", "notes", str(folder), str(DATA / "glossary.rst"), "--wait")
    assert added.code == 0, added.err
    assert "Preview: 3 file(s)" in added.out and "skipped 1 hidden" in added.out
    assert "3 document(s): 3 done." in added.out
    # stderr is not a terminal: progress as lines, not a bar
    assert "━" not in added.err and "All 3 document(s) with vectors." in added.err
    status = json.loads(cli("status", "notes", "--json").out)
    assert status["counts"] == {"pending": 0, "processing": 0, "done": 3, "error": 0}
    paths = {d.path for d in service.documents.all("notes")}
    assert paths == {"notes/api/index.md", "notes/guide/index.md", "glossary.rst"}

    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    # a binary file is skipped with its reason, not stored as a failed document
    skipped = cli("add", "files", "notes", str(tmp_path / "logo.png"), "--wait")
    assert skipped.code == 0, skipped.err
    assert "Added 0 document(s)" in skipped.out
    assert "Skipped 1:\n  logo.png: logo.png looks binary" in skipped.out

    shown = cli("status", "notes")
    assert shown.code == 0
    assert "3 document(s): 0 pending, 0 processing, 3 done, 0 error" in shown.out
    assert "logo.png" not in shown.out
    assert cli("status", "nowhere").code == 1
    absent = cli("add", "files", "notes", str(tmp_path / "absent.md"))
    assert absent.code == 1 and "absent.md" in absent.err
    unknown = cli("add", "files", "nowhere", str(DATA / "glossary.rst"))
    assert unknown.code == 1 and "nowhere" in unknown.err


def test_add_files_lists_the_lines_redacted_as_secrets(cli: Run, tmp_path: Path) -> None:
    token = "ghp_" + "R7x2ZkP9qLm4Tn8Vb1Yc6Wd3Hf5Gj0Ks2Ae9"  # split: not a secret itself
    (tmp_path / "deploy.md").write_text(f"# Deploy\n\nGITHUB_TOKEN={token}\nThe end.\n")
    assert cli("docset", "create", "notes").code == 0
    added = cli("add", "files", "notes", str(tmp_path / "deploy.md"))
    assert added.code == 0, added.err
    assert "Added 1 document(s) to 'notes'." in added.out
    assert "Skipped 1:\n  deploy.md#L3: line 3 redacted: looks like a secret (GitHub Token)" in (
        added.out
    )
    assert token not in added.out + added.err


def test_status_wait_embeds_queued_documents(
    cli: Run, service: Actions, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.docsets.create("handbook")
    queued = cli("add", "files", "handbook", str(DATA / "deployment-guide.md"))
    assert queued.code == 0
    assert "1 document(s) queued" in queued.err and "status handbook --wait" in queued.err
    assert json.loads(cli("status", "--json").out)["counts"]["pending"] == 1
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # rich draws the bar as on a terminal
    monkeypatch.setenv("NO_COLOR", "1")
    waited = cli("status", "handbook", "--wait")
    assert waited.code == 0
    assert "Embedding" in waited.err and "1/1 documents" in waited.err
    assert "1 document(s): 0 pending, 0 processing, 1 done, 0 error" in waited.out


# add github, sync


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGithub]:
    """The fake GitHub API, configured through GITHUB_API_URL."""
    with running_github() as state:
        monkeypatch.setenv("GITHUB_API_URL", state.base_url)
        monkeypatch.setenv("RAGSPACE_ALLOW_PRIVATE_URLS", "true")  # the fake is on 127.0.0.1
        yield state


@pytest.fixture
def repo(github: FakeGithub) -> FakeRepo:
    """acme/widgets, default branch `trunk`."""
    repo = github.add_repo("acme", "widgets")
    repo.commit(REPO_FILES)
    return repo


def test_add_github_previews_ingests_and_syncs(cli: Run, service: Actions, repo: FakeRepo) -> None:
    service.docsets.create("widgets")
    dry = cli(
        "add", "github", "widgets", "acme/widgets", "--exclude", "tests/**,docs/**", "--dry-run"
    )
    assert dry.code == 0
    assert "Preview of acme/widgets at " in dry.out and "3 item(s)" in dry.out
    # the preview lists by name; the PNG's bytes are judged (and skipped) when it syncs
    assert "  README.md\n" in dry.out and "  assets/logo.png\n" in dry.out
    assert service.documents.all("widgets") == []

    added = cli(
        "add", "github", "widgets", "acme/widgets", "--exclude", "tests/**", "--token", "t0k"
    )
    assert added.code == 0, added.err
    assert "Synced source #1 at " in added.out and "2 new or changed" in added.out
    assert "2 skipped, 0 unreadable" in added.out  # tests/** and the PNG, by its bytes
    assert "t0k" not in added.out + added.err
    [source] = service.sources.all("widgets")  # typed options, and the token not among them
    assert source.options == GithubOptions(exclude=["tests/**"])
    assert "t0k" not in source.model_dump_json()

    repo.commit({**REPO_FILES, "README.md": b"# Widgets\n\nNow with gears.\n"})
    synced = cli("sync", "widgets", "--wait")
    assert synced.code == 0, synced.err
    assert "1 new or changed, 1 unchanged" in synced.out
    assert "2 document(s): 2 done." in synced.out
    hits = json.loads(cli("search", "gears", "--docset", "widgets", "--json", "-k", "1").out)
    assert hits[0]["url"].startswith("https://github.com/acme/widgets/blob/")
    assert hits[0]["url"].endswith("/README.md#L1-L3")


def test_add_github_and_sync_failures(cli: Run, repo: FakeRepo, handbook: Actions) -> None:
    handbook.docsets.create("widgets")
    missing = cli("add", "github", "widgets", "acme/nothing")
    assert missing.code == 1
    assert missing.err.startswith("ragspace: error: ") and "acme/nothing" in missing.err
    no_docset = cli("add", "github", "nowhere", "acme/widgets")
    assert no_docset.code == 1 and "nowhere" in no_docset.err

    uploads_only = cli("sync", "handbook")
    assert uploads_only.code == 1 and "no GitHub or web sources" in uploads_only.err
    assert cli("add", "github", "widgets", "acme/widgets").code == 0
    wrong_source = cli("sync", "widgets", "--source", "99")
    assert wrong_source.code == 1 and "#99" in wrong_source.err
    repo.refs.clear()  # the default branch vanished: the re-sync fails
    broken = cli("sync", "widgets")
    assert broken.code == 1 and "source #" in broken.err


@pytest.mark.usefixtures("repo")
def test_resync_interval_on_add_and_with_schedule(
    cli: Run, service: Actions, capsys: pytest.CaptureFixture[str]
) -> None:
    service.docsets.create("widgets")
    added = cli("add", "github", "widgets", "acme/widgets", "--resync-every", "6h")
    assert added.code == 0, added.err
    assert "Re-synced every 6h by the running workers." in added.out
    [source] = service.sources.all("widgets")
    assert source.resync_interval == timedelta(hours=6) and source.next_sync_at is not None
    status = json.loads(cli("status", "widgets", "--json").out)
    assert status["sources"][0]["resync_every"] == "6h"
    assert "re-sync every 6h, next " in cli("status", "widgets").out

    daily = cli("schedule", "widgets", "--source", str(source.id), "daily")
    assert daily.code == 0 and f"Source #{source.id} re-syncs every 1d; next at " in daily.out
    assert service.sources.all("widgets")[0].resync_interval == timedelta(days=1)
    off = cli("schedule", "widgets", "--source", str(source.id), "off")
    assert off.code == 0 and "no longer re-synced on a schedule" in off.out
    assert service.sources.all("widgets")[0].next_sync_at is None

    too_often = cli("schedule", "widgets", "--source", str(source.id), "1m")
    assert too_often.code == 1 and "at least 5 minutes" in too_often.err
    assert cli("schedule", "widgets", "--source", "99", "1h").code == 1
    assert "is not an interval" in _usage_error(
        ["add", "github", "widgets", "acme/widgets", "--resync-every", "soon"], capsys
    )


# add web


@pytest.fixture
def site() -> Iterator[DocsSite]:
    """The fake documentation site."""
    with running_site() as running:
        yield running


def test_add_web_previews_and_queues(
    cli: Run, service: Actions, site: DocsSite, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.docsets.create("lantern")
    start = f"{site.origin}/docs/"
    guarded = cli("add", "web", "lantern", start)
    assert guarded.code == 1 and "RAGSPACE_ALLOW_PRIVATE_URLS" in guarded.err
    monkeypatch.setenv("RAGSPACE_ALLOW_PRIVATE_URLS", "true")  # the fake is on 127.0.0.1
    added = cli("add", "web", "lantern", start, "--prefix", "/docs/", "--max-depth", "2")
    assert added.code == 0, added.err
    assert f"Preview of {start}" in added.out
    assert "outside the path prefix /docs/" in added.out
    assert "5 new or changed" in added.out
    assert "5 document(s) queued" in added.err
    [source] = service.sources.all("lantern")
    assert source.options == WebOptions(depth=2, max_pages=50, path_prefix="/docs/")
    unreachable = cli("add", "web", "lantern", "http://127.0.0.1:9/docs/")
    assert unreachable.code == 1 and "127.0.0.1:9" in unreachable.err


# search, ask


@pytest.mark.usefixtures("handbook")
def test_search_prints_ranked_cited_passages(cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGSPACE_PUBLIC_URL", "https://ops.example/ragspace/")
    shown = cli("search", "restore the latest backup", "--docset", "handbook", "-k", "2")
    assert shown.code == 0
    first, link = shown.out.splitlines()[:2]
    assert first.startswith("[1] deployment-guide.md (lines ")
    assert "handbook" in first and "score " in first
    # an upload has no origin: the app's viewer opens its lines
    viewer = "https://ops.example/ragspace/?docset=handbook&path=deployment-guide.md&lines="
    assert link.startswith(f"    {viewer}")
    assert "    | " in shown.out
    as_json = json.loads(cli("search", "backup", "--mode", "keyword", "--json").out)
    assert as_json[0]["number"] == 1 and as_json[0]["hidden"] is False
    assert as_json[0]["start_line"] <= as_json[0]["end_line"]
    assert "backup" in as_json[0]["snippet"].lower()
    assert 0 <= as_json[0]["score"] <= 1  # the cosine similarity; the ranking's is rank_score
    first_line, last_line = map(int, as_json[0]["view_url"].rsplit("=", 1)[1].split("-"))
    assert as_json[0]["start_line"] <= first_line <= last_line <= as_json[0]["end_line"]

    unknown = cli("search", "backup", "--docset", "nowhere")
    assert unknown.code == 1 and "nowhere" in unknown.err
    blank = cli("search", "   ")
    assert blank.code == 1 and "Type a question first" in blank.err


@pytest.mark.usefixtures("handbook")
def test_ask_without_key_gives_extractive_answer(cli: Run) -> None:
    answered = cli("ask", "How do I roll back a migration?", "--docset", "handbook")
    assert answered.code == 0
    assert answered.out.startswith("To roll back, restore the latest backup: there are no down-")
    sources = answered.out.split("\nSources:\n")[1]
    assert sources.startswith("[1] deployment-guide.md (lines ")
    assert answered.out.count("Sources") == 1  # listed once, not also in the answer's text
    as_json = json.loads(cli("ask", "How do I roll back a migration?", "--json").out)
    assert "Sources" not in as_json["answer"]  # the citations are the sources
    assert as_json["citations"][0]["path"] == "deployment-guide.md"
    assert as_json["citations"][0]["start_line"] >= 1
    assert as_json["citations"][0]["view_url"].startswith(
        "http://127.0.0.1:7860/?docset=handbook&path=deployment-guide.md&lines="
    )
    missing = cli("ask", "anything", "--docset", "nowhere")
    assert missing.code == 1 and "nowhere" in missing.err


class QuietServer(ThreadingHTTPServer):
    """Says nothing when a client hangs up early (the Ctrl+C test does)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@contextmanager
def running_openai_api(chat: FakeChat) -> Iterator[str]:
    """One base URL: embeddings as FakeOpenAI serves them, chat as FakeChat does."""
    embeddings = FakeOpenAI()

    class Handler(chat_server._handler(chat)):  # type: ignore[misc]
        def do_POST(self) -> None:  # noqa: N802
            if not self.path.endswith("/embeddings"):
                super().do_POST()
                return
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
            reply = embeddings.respond(body)
            self._json(reply.status, reply.body)

    server = QuietServer(("127.0.0.1", 0), Handler)
    with serving(server):
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"


class Recorder:
    """Stands in for stdout and keeps every write separately."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return len(text)

    def flush(self) -> None:
        pass


@pytest.fixture
def chat(cli: Run, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeChat]:
    """A fake OpenAI API configured through the environment, with a DocSet embedded by it."""
    fake = FakeChat()
    with running_openai_api(fake) as base_url:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        monkeypatch.setenv("OPENAI_EMBEDDING_DIMENSIONS", "64")
        monkeypatch.setenv("OPENAI_MAX_RETRIES", "0")
        cli("docset", "create", "handbook")
        added = cli("add", "files", "handbook", str(DATA / "deployment-guide.md"), "--wait")
        assert added.code == 0, added.err
        yield fake


def test_ask_streams_the_answer_then_sources(
    chat: FakeChat, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = "Restore the latest backup [1]; there are no down-migrations [1]."
    chat.reply = lambda _request: reply
    recorder = Recorder()
    monkeypatch.setattr(sys, "stdout", recorder)
    code = main(["ask", "How do I roll back?", "--no-rerank"])
    assert code == 0
    printed = "".join(recorder.writes)
    assert printed.startswith(reply + "\n\nSources:\n[1] deployment-guide.md (lines ")
    streamed = [w for w in recorder.writes if w and w in reply]
    assert len(streamed) >= len(chat_server.stream_pieces(reply)) - 1  # piece by piece
    assert chat.requests[-1]["stream"] is True


def _ctrl_c_as_in_a_terminal() -> None:
    """In the child: SIGINT handled by default, even when the tests run where it is ignored
    (a shell's background job), so Python turns it into KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_exits_130(chat: FakeChat) -> None:
    chat.delay = 5.0
    asked = len(chat.requests)
    # a real process, so the SIGINT meets the default handler (a Gradio app launched by an
    # earlier test in this process may have installed its own)
    script = str(Path(sys.executable).parent / "ragspace")
    process = subprocess.Popen(
        [script, "ask", "How do I roll back?", "--no-rerank"],
        preexec_fn=_ctrl_c_as_in_a_terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not any("messages" in r for r in chat.requests[asked:]):
            assert time.monotonic() < deadline and process.poll() is None, "no model request"
            time.sleep(0.1)
        interrupted_at = time.monotonic()
        process.send_signal(signal.SIGINT)  # Ctrl+C while the CLI waits for the slow model
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert "ragspace: interrupted" in err
    assert "Traceback" not in err
    assert time.monotonic() - interrupted_at < 3.5


# serve, worker


def _when(condition: Callable[[], bool], then: Callable[[], Any], timeout: float = 60) -> None:
    """In a thread: once `condition()` holds (or time runs out), call `then()`."""

    def watch() -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if condition():
                    break
            except Exception:
                pass
            time.sleep(0.2)
        then()

    threading.Thread(target=watch, daemon=True).start()


def test_worker_embeds_queued_documents_until_sigterm(cli: Run, service: Actions) -> None:
    service.docsets.create("handbook")
    service.sources.add_files(
        "handbook", [UploadedFile("glossary.rst", (DATA / "glossary.rst").read_bytes())]
    )

    def embedded() -> bool:
        documents = service.documents.all("handbook")
        return all(d.embedding_status is EmbeddingStatus.DONE for d in documents)

    before = signal.getsignal(signal.SIGTERM)
    _when(embedded, lambda: os.kill(os.getpid(), signal.SIGTERM))
    stopped = cli("worker", "--threads", "1")
    assert stopped.code == 0
    assert embedded()
    assert signal.getsignal(signal.SIGTERM) is before  # the handler is restored


@pytest.mark.slow  # a real `ragspace serve` process
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_serve_runs_until_ctrl_c_or_sigterm(
    stop: signal.Signals, cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_local_port()
    # a real process: Ctrl+C (SIGINT) reaches it whatever it is doing, as in a terminal
    env = os.environ | {"RAGSPACE_PORT": str(port), "RAGSPACE_WORKER_THREADS": "0"}
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "ragspace"), "serve"],
        env=env,
        preexec_fn=_ctrl_c_as_in_a_terminal,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        status = None
        while status != 200 and time.monotonic() < deadline and server.poll() is None:
            try:
                status = httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code
            except httpx.HTTPError:
                time.sleep(0.3)
        assert status == 200, "the app never answered"
        server.send_signal(stop)
        _, err = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
    assert server.returncode == 0
    assert "Traceback" not in err
    monkeypatch.setenv("DATABASE_URL", f"postgresql://127.0.0.1:{port}/gone")
    failed = cli("serve")
    assert failed.code == 1
    assert "ragspace: error: Could not connect to the database" in failed.err


# commands that do not embed never load the model


def test_light_commands_never_build_the_embedder(cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    import ragspace.runtime

    built: list[str] = []

    def build_embedder(*_: object) -> None:
        built.append("embedder")
        raise AssertionError("a light command built the embedder")

    monkeypatch.setattr(ragspace.runtime, "build_embedder", build_embedder)
    assert cli("docset", "create", "notes", "--description", "Notes").code == 0
    listed = cli("docset", "list", "--json")
    assert listed.code == 0 and json.loads(listed.out)[0]["name"] == "notes"
    assert json.loads(listed.out)[0]["embedding_model"] == "local/all-MiniLM-L6-v2-int8"
    assert cli("docset", "rename", "notes", "memos").code == 0
    assert cli("status", "memos").code == 0
    assert cli("docset", "delete", "memos", "--yes").code == 0
    assert built == []
    assert not any(t.name.startswith("ingest-") for t in threading.enumerate())


def test_docset_list_does_not_import_onnxruntime(cli: Run) -> None:
    cli("docset", "create", "notes")  # the database exists and is migrated
    # nor the libraries only fetching and extraction need (PyGithub, trafilatura, pypdf)
    heavy = ["onnxruntime", "github", "trafilatura", "pypdf"]
    probe = (
        "import sys\n"
        "from ragspace_cli.main import main\n"
        "code = main(['docset', 'list'])\n"
        f"print(any(name in sys.modules for name in {heavy!r}), code)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=os.environ
    )
    assert shown.stdout.splitlines()[-1:] == ["False 0"], shown.stderr
    assert "notes" in shown.stdout


@pytest.mark.parametrize("every", ["99999999999w", "999999999w", "9" * 30 + "m", "٣d"])
def test_an_interval_too_long_or_in_other_digits_is_a_usage_error(
    every: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _usage_error(["schedule", "widgets", "--source", "1", every], capsys)
    assert "Traceback" not in err and "OverflowError" not in err
    assert every[:12] in err and ("at most 365 days" in err or "is not an interval" in err)
