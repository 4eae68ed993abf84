"""Shared fixtures: one real embedded Postgres per test process, a fresh database per test.

Migrations run once per process into a template database; each test gets a clone of it
(`create database ... template`), which is faster than migrating every test's database.
pytest-xdist runs one test process per core (`addopts` in pyproject.toml).
"""

import itertools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from playwright.sync_api import expect

from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder, LocalEmbedder
from ragspace.ingestion.worker import Ingestor
from ragspace.runtime import build_actions, build_chunker
from ragspace.settings import Settings, load_settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Database, Store
from ragspace.store.database import EmbeddedPostgres
from tests.browser.journey import WAIT_MS
from tests.fakes.chat_server import FakeChat, chat_model_of, running_fake_chat
from tests.fakes.embedders import RememberingEmbedder
from tests.fakes.github_server import FakeGithub, running_github
from tests.session_temp import remove_ended, session_basetemp

# browser assertions without their own limit give up after WAIT_MS too, not Playwright's 5 s
expect.set_options(timeout=WAIT_MS)

_database_numbers = itertools.count()
DATA = Path(__file__).parent / "data"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """As root, the session's temporary folders are its own (tests/session_temp.py says why);
    pytest-xdist's workers get theirs inside the controller's."""
    if os.geteuid() == 0 and config.option.basetemp is None and not hasattr(config, "workerinput"):
        config.option.basetemp = str(session_basetemp())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Modules holding `slow` tests run first, then those holding `browser` tests, each
    module's tests in their order: with one process per core, the longest modules start early
    instead of leaving one process alone with a long module at the end (pytest-xdist's own
    order, by number of tests, is switched off in pyproject.toml: a module of a few slow tests
    came last)."""

    def module(item: pytest.Item) -> str:
        return item.nodeid.split("::")[0]

    def group(marker: str) -> set[str]:
        return {module(item) for item in items if item.get_closest_marker(marker)}

    slow, browser = group("slow"), group("browser")

    def rank(item: pytest.Item) -> int:
        return 0 if module(item) in slow else 1 if module(item) in browser else 2

    items.sort(key=rank)


SERVER_PREFIX = "ragspace-test-pg-"
# Room the test servers may need: at most 1.7 GB in use for both test processes' servers
# during a full suite (sampled every 2 s, 2026-11-29; the 100,000-chunk test), and margin.
MEMORY_FOLDER_MIN_FREE = 6 * 2**30


def memory_folder(candidate: Path = Path("/dev/shm")) -> Path | None:
    """A tmpfs folder for the test server's files, when one is writable with room to spare;
    None (the default temporary folder) otherwise.

    Every test clones the migrated template (about 500 files, 8.6 MB) and drops the clone
    after: on the disk of the 2-core machine the suite runs on, the kernel's writeback of
    those copies made a clone take 120-380 ms, in memory 11 ms (20 clones each, 2026-11-29).
    Memory gives up only what `fsync = off` already gives up: the server's files if the whole
    machine stops. Test servers of sessions that ended without stopping theirs are removed
    first, so that none keeps its memory."""
    if not candidate.is_dir() or not os.access(candidate, os.W_OK):
        return None
    remove_ended(candidate, SERVER_PREFIX)
    if shutil.disk_usage(candidate).free < MEMORY_FOLDER_MIN_FREE:
        return None
    return candidate


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """URI of the real embedded PostgreSQL + pgvector server, started once.

    Its folder is not under pytest's tmp_path: pytest makes those private to the
    current user, and the server runs as another user when the tests run as root. It is in
    memory where the machine has a large enough tmpfs (`memory_folder`).
    """
    prefix = f"{SERVER_PREFIX}{os.getpid()}-"
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=memory_folder()))
    server = EmbeddedPostgres(folder)
    uri = server.start()
    with psycopg.connect(uri, autocommit=True) as conn:
        # No waiting for the disk at each commit or database clone.
        # This only gives up what a crash of the whole machine would lose: a killed Postgres
        # process loses nothing, its writes are already in the OS's page cache. The tests that
        # kill Postgres start servers of their own, with the product's settings.
        conn.execute("alter system set fsync = off")
        conn.execute("alter system set full_page_writes = off")
        conn.execute("select pg_reload_conf()")
    yield uri
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


def create_database(server_uri: str, template: str | None = None) -> str:
    """A new database on the embedded server (a clone of `template` if given); its URI."""
    name = f"test_{next(_database_numbers)}"
    # a file copy of the small template, not the default strategy (which writes the whole
    # template through the WAL); fast where the server's files are in memory (memory_folder)
    clause = f" template {template} strategy file_copy" if template else ""
    with psycopg.connect(server_uri, autocommit=True) as conn:
        conn.execute(f"create database {name}{clause}".encode())
    return server_uri.replace("/postgres?", f"/{name}?")


def database_name(database_uri: str) -> str:
    """The database a URI made by `create_database` names."""
    return database_uri.split("?")[0].rsplit("/", 1)[1]


@pytest.fixture(scope="session")
def migrated_template(postgres_server: str) -> str:
    """Name of a database holding every migration, cloned for each test that needs one."""
    uri = create_database(postgres_server)
    data_dir = Path(tempfile.mkdtemp(prefix="ragspace-test-template-"))
    Database.open(load_settings(env_file=None, database_url=uri, data_dir=data_dir)).close()
    shutil.rmtree(data_dir, ignore_errors=True)
    return database_name(uri)


@pytest.fixture
def empty_database_url(postgres_server: str) -> str:
    """A new database with no tables (for the migration tests)."""
    return create_database(postgres_server)


def drop_database(server_uri: str, database_uri: str) -> None:
    """Drop a test's database (its connections closed first): ~650 clones of the template
    would otherwise stay on disk until the session's server stops."""
    with psycopg.connect(server_uri, autocommit=True) as conn:
        conn.execute(f"drop database {database_name(database_uri)} with (force)".encode())


@pytest.fixture
def database_url(postgres_server: str, migrated_template: str) -> Iterator[str]:
    """A new database on the embedded server, already migrated (opening it migrates nothing);
    dropped after the test."""
    url = create_database(postgres_server, template=migrated_template)
    yield url
    drop_database(postgres_server, url)


def settings_for(database_url: str, data_dir: Path) -> Settings:
    """Settings pointing at a test database, ignoring any `.env` file.

    The fake GitHub and web servers listen on 127.0.0.1, so the SSRF guard is off here;
    tests/sources/test_netguard.py and tests/actions/test_bad_inputs.py test it switched on.
    """
    return load_settings(
        env_file=None,
        database_url=database_url,
        data_dir=data_dir,
        allow_private_urls=True,
    )


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    """Settings pointing at the per-test database (`settings_for`)."""
    return settings_for(database_url, tmp_path / "data")


@dataclass(frozen=True)
class ModuleParts:
    """The real parts on a database of one test module's own."""

    service: Actions
    store: Store
    ingestor: Ingestor


@pytest.fixture(scope="module")
def module_parts(
    postgres_server: str,
    migrated_template: str,
    embedder: Embedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[ModuleParts]:
    """Service, store and ingestor on a database of their own, shared by one module's tests:
    for a corpus that the tests only read, ingested once instead of once per test."""
    url = create_database(postgres_server, template=migrated_template)
    module_settings = settings_for(url, tmp_path_factory.mktemp("data"))
    database = Database.open(module_settings)
    store = Store(database.pool)
    yield ModuleParts(
        build_actions(module_settings, store, embedder),
        store,
        Ingestor(store, build_chunker(module_settings), embedder),
    )
    database.close()


@pytest.fixture
def database(settings: Settings) -> Iterator[Database]:
    """The migrated per-test database with its pool."""
    db = Database.open(settings)
    yield db
    db.close()


@pytest.fixture
def store(database: Database) -> Store:
    """Typed queries on the per-test database."""
    return Store(database.pool)


@pytest.fixture(scope="session")
def local_model() -> LocalEmbedder:
    """The real bundled MiniLM model, loaded once (for tests of the model itself).

    With one test process per core, each runs the model on one thread: threads beyond its
    share only contend with the other processes for the same cores (test_extractive.py's
    ingestion of the repository's docs: 30.1 CPU seconds with two threads, 24.7 with one)."""
    processes = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    return LocalEmbedder(threads=max(1, (os.cpu_count() or 1) // processes))


@pytest.fixture(scope="session")
def embedder(local_model: LocalEmbedder) -> RememberingEmbedder:
    """The real bundled MiniLM model, run once per distinct text in the session: the
    handbook and the repository's docs are ingested by many tests (`RememberingEmbedder`)."""
    return RememberingEmbedder(local_model)


@pytest.fixture
def ingestor(store: Store, embedder: Embedder, settings: Settings) -> Ingestor:
    """Runs ingestion synchronously when a test calls it."""
    return Ingestor(store, build_chunker(settings), embedder)


@pytest.fixture
def service(store: Store, embedder: Embedder, settings: Settings) -> Actions:
    """The actions on real parts; tests drive ingestion with `ingestor`."""
    return build_actions(settings, store, embedder)


@pytest.fixture
def served(service: Actions) -> Iterator[str]:
    """The Gradio app over `service`, running on 127.0.0.1; yields its URL."""
    from ragspace_ui.app import CSS, build_ui
    from ragspace_ui.routes import app_routes
    from ragspace_ui.server import launch_on_localhost

    demo = build_ui(service)
    url = launch_on_localhost(demo, css=CSS, app_kwargs={"routes": app_routes(service)})
    yield url
    demo.close()


@pytest.fixture
def launch_app(settings: Settings) -> Iterator[Callable[..., str]]:
    """Start the app over a service as `ragspace serve` does (login, MCP) on 127.0.0.1."""
    from ragspace.access import Credentials
    from ragspace_ui.app import build_ui
    from ragspace_ui.server import launch_on_localhost, launch_options

    apps: list[Any] = []

    def launch(
        service: Actions,
        credentials: Credentials | None = None,
        settings_override: Settings | None = None,
    ) -> str:
        demo = build_ui(service, credentials)
        apps.append(demo)
        options = launch_options(settings_override or settings, credentials, service)
        return launch_on_localhost(demo, **options)

    yield launch
    for demo in apps:
        demo.close()


@pytest.fixture
def github() -> Iterator[FakeGithub]:
    """A running fake GitHub API with no repositories (tests add theirs)."""
    with running_github() as state:
        yield state


@pytest.fixture
def fake_chat() -> Iterator[FakeChat]:
    """An OpenAI-compatible chat server on 127.0.0.1; tests set its replies."""
    with running_fake_chat() as fake:
        yield fake


@pytest.fixture
def chat_service(
    settings: Settings,
    store: Store,
    embedder: Embedder,
    ingestor: Ingestor,
    fake_chat: FakeChat,
) -> Actions:
    """The service with the fake chat model and DocSet `handbook` (a guide and a glossary)."""
    tuned = settings.replace(rerank_timeout_seconds=1.0)
    service = build_actions(tuned, store, embedder, chat=chat_model_of(fake_chat))
    service.docsets.create("handbook")
    names = ("deployment-guide.md", "glossary.rst")
    service.sources.add_files("handbook", [UploadedFile(n, (DATA / n).read_bytes()) for n in names])
    ingestor.process_all()
    return service
