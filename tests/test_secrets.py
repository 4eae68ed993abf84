"""Secrets never appear in logs, error messages or printed settings, even when things fail.

Each test configures distinctive values, makes an operation fail at the HTTP boundary (or
the database refuse), captures every log record at DEBUG (httpx, httpcore, openai, PyGithub,
urllib3 included) and greps logs and error texts for the values.
"""

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder, OpenAIEmbedder
from ragspace.errors import DatabaseError, RagspaceError, SourceError
from ragspace.ingestion.worker import Ingestor
from ragspace.models import SearchQuery, SourceKind
from ragspace.runtime import build_actions, build_chat_model
from ragspace.settings import Settings, load_settings
from ragspace.sources.files import UploadedFile
from ragspace.sources.github_client import GithubClient, GithubConfig
from ragspace.sources.github_fetcher import GithubFetcher
from ragspace.sources.sync import SourceSyncer
from ragspace.store import Database, Store
from ragspace_mcp.results import docset_data
from tests.fakes.chat_server import FakeChat, running_fake_chat
from tests.fakes.github_server import FakeGithub, running_github
from tests.fakes.openai_server import FakeOpenAI, ScriptedResponse, running_fake_openai

OPENAI_KEY = "sk-proj-SECRETopenaiKEY-7c1e9d"
GITHUB_TOKEN = "ghp_SECRETgithubTOKEN0042beef"
DB_PASSWORD = "Pg-SECRET-pa55w0rd-91"
SECRETS = (OPENAI_KEY, GITHUB_TOKEN, DB_PASSWORD)
MIGRATIONS = Path(__file__).parent.parent / "supabase" / "migrations"
LOGGERS = ("", "httpx", "httpcore", "openai", "github", "urllib3", "ragspace", "psycopg")


@pytest.fixture
def all_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Every logger at DEBUG, whatever an earlier test or configure_logging set."""
    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog


def assert_no_secret(*texts: str) -> None:
    """None of the configured secret values occurs in any text."""
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, (
                f"secret leaked: ...{text[max(0, text.find(secret) - 80) :][:200]}"
            )


def ui_message(exc: Exception) -> str:
    """What the web UI would show for this error."""
    from ragspace_ui.error_messages import _translate

    return str(_translate(exc).message)


def test_settings_print_redacted() -> None:
    settings = load_settings(
        env_file=None,
        openai_api_key=OPENAI_KEY,
        github_token=GITHUB_TOKEN,
        database_url=f"postgresql://ragspace:{DB_PASSWORD}@db.example.com:5432/postgres",
    )
    assert settings.uses_openai  # the values are really there
    assert settings.sources.github_token is not None
    assert settings.sources.github_token.get_secret_value() == GITHUB_TOKEN
    assert_no_secret(
        repr(settings), str(settings), settings.model_dump_json(), str(settings.model_dump())
    )
    assert "**********" in settings.model_dump_json()


@pytest.fixture
def failing_chat() -> Iterator[FakeChat]:
    """A chat API that fails, echoing the key in its error body like a careless proxy."""
    with running_fake_chat() as fake:
        fake.error_message = f"Incorrect API key provided: {OPENAI_KEY}."
        yield fake


@pytest.mark.parametrize("status", [401, 500])
def test_failing_chat_model_leaks_no_key(
    status: int,
    failing_chat: FakeChat,
    settings: Settings,
    store: Store,
    embedder: Embedder,
    ingestor: Ingestor,
    all_logs: pytest.LogCaptureFixture,
) -> None:
    failing_chat.status = status
    keyed = settings.replace(
        openai_api_key=OPENAI_KEY,
        openai_base_url=failing_chat.base_url,
        openai_max_retries=0,
    )
    service = build_actions(keyed, store, embedder, chat=build_chat_model(keyed))
    service.docsets.create("notes")
    service.sources.add_files(
        "notes", [UploadedFile("a.md", b"# Deploys\n\nDeploys run at noon.\n")]
    )
    ingestor.process_all()
    answer = service.answers.answer(
        SearchQuery(question="When do deploys run?", docsets=("notes",))
    )
    assert f"answered {status}" in answer.text  # the failure is reported...
    assert failing_chat.requests  # ...after really calling the API with the key
    assert "HTTP Request: POST" in all_logs.text  # the HTTP libraries' DEBUG logs are captured
    assert_no_secret(answer.text, answer.model_dump_json(), all_logs.text)


@pytest.mark.parametrize("status", [401, 500])
def test_failing_embedding_api_leaks_no_key(
    status: int, store: Store, settings: Settings, all_logs: pytest.LogCaptureFixture
) -> None:
    with running_fake_openai() as fake:
        body = {"error": {"message": f"Incorrect API key provided: {OPENAI_KEY}", "code": None}}
        fake.script = [ScriptedResponse(status, body) for _ in range(5)]
        embedder = OpenAIEmbedder(
            OPENAI_KEY, "text-embedding-3-small", 8, base_url=fake.base_url, max_retries=0
        )
        from ragspace.runtime import build_chunker

        service = build_actions(settings, store, embedder)
        service.docsets.create("notes")
        service.sources.add_files("notes", [UploadedFile("a.md", b"# Deploys\n\nNoon.\n")])
        Ingestor(store, build_chunker(settings), embedder).process_all()
        assert _bearer(fake) == OPENAI_KEY
    (document,) = service.documents.all("notes")
    assert f"answered {status}" in (document.error_message or "")
    assert "[redacted]" in (document.error_message or "")
    assert "HTTP Request: POST" in all_logs.text
    assert_no_secret(document.error_message or "", all_logs.text)


def _bearer(fake: FakeOpenAI) -> str:
    return fake.headers[0]["authorization"].removeprefix("Bearer ")


@pytest.fixture
def github() -> Iterator[FakeGithub]:
    """The fake GitHub with one repository."""
    with running_github() as state:
        state.add_repo("acme", "widgets").commit({"README.md": b"# Widgets\n\nParts.\n"})
        yield state


@pytest.mark.parametrize(
    ("failing", "status", "message"),
    [
        ("/repos/acme/widgets", 401, "GitHub rejected GITHUB_TOKEN"),
        ("/repos/acme/widgets", 403, "GitHub answered HTTP 403"),
        ("/repos/acme/widgets/tarball", 403, "GitHub answered HTTP 403"),
        ("/codeload", 500, "GitHub answered HTTP 500"),
    ],
)
def test_failing_github_leaks_no_token(
    github: FakeGithub,
    store: Store,
    settings: Settings,
    embedder: Embedder,
    all_logs: pytest.LogCaptureFixture,
    failing: str,
    status: int,
    message: str,
) -> None:
    github.failing_paths = {failing: status}
    config = GithubConfig(
        api_url=github.base_url, token=GITHUB_TOKEN, timeout_seconds=5, allow_private_urls=True
    )
    syncer = SourceSyncer(store, [GithubFetcher(GithubClient(config), 10**6)])
    service = build_actions(settings, store, embedder, syncer=syncer)
    service.docsets.create("code")
    with pytest.raises(SourceError) as caught:
        service.sources.add("code", SourceKind.GITHUB_REPO, "acme/widgets")
    assert message in str(caught.value)
    assert any(GITHUB_TOKEN in a for a in github.authorizations)  # it was really sent
    assert any(r.name.startswith(("github", "urllib3")) for r in all_logs.records)
    (source,) = service.sources.all("code")
    assert_no_secret(
        str(caught.value), source.error_message or "", ui_message(caught.value), all_logs.text
    )


def test_database_error_leaks_no_password(all_logs: pytest.LogCaptureFixture) -> None:
    url = f"postgresql://ragspace:{DB_PASSWORD}@127.0.0.1:1/postgres?connect_timeout=3"
    with pytest.raises(DatabaseError) as caught:
        Database.open(load_settings(env_file=None, database_url=url))
    assert "Could not connect to the database" in str(caught.value)
    assert_no_secret(str(caught.value), repr(caught.value), ui_message(caught.value), all_logs.text)


def test_ui_shows_errors_without_secrets() -> None:
    """An unexpected exception (which might carry anything) is never shown to the user."""
    shown = ui_message(RuntimeError(f"driver said {DB_PASSWORD}"))
    assert_no_secret(shown)
    assert "server log" in shown
    assert ui_message(RagspaceError("A readable message.")) == "A readable message."


URL_TOKEN = "glpat-SECRETurlTOKEN-5a5a"
CREDENTIALED = [
    f"https://alice:{URL_TOKEN}@no-such-host.invalid/docs/",
    f"  http://{URL_TOKEN}@no-such-host.invalid:8080/a?b=1#c  ",
    f"https://x-access-token:{URL_TOKEN}@github.com/octo/docs",
]


def test_credentials_in_a_source_url_are_never_stored_or_shown(
    service: Actions, store: Store, database_url: str
) -> None:
    service.docsets.create("creds")
    for url in CREDENTIALED:
        kind = SourceKind.GITHUB_REPO if "github.com" in url else SourceKind.WEB
        try:
            service.sources.add("creds", kind, url)
        except RagspaceError as error:
            assert URL_TOKEN not in str(error) and "alice" not in str(error)
    locations = [s.location for s in service.sources.all("creds")]
    assert "https://no-such-host.invalid/docs/" in locations
    assert "http://no-such-host.invalid:8080/a?b=1#c" in locations
    listed = json.dumps([docset_data(service, d) for d in service.docsets.all()])
    assert URL_TOKEN not in listed and "alice" not in listed

    # a row stored by an earlier version is cleaned by the migration
    docset = service.docsets.get("creds")
    store.sources.create(docset.id, SourceKind.WEB, CREDENTIALED[0].strip())
    sql = (MIGRATIONS / "20261128100000_url_credentials.sql").read_text(encoding="utf-8")
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(sql)
    listed = json.dumps([docset_data(service, d) for d in service.docsets.all()])
    assert URL_TOKEN not in listed and "alice" not in listed
    locations = [s.location for s in service.sources.all("creds")]
    assert locations.count("https://no-such-host.invalid/docs/") == 2
