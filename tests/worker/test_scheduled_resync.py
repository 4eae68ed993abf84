"""Scheduled re-sync: intervals, due sources claimed once, failures wait for the next interval."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder
from ragspace.errors import ReadOnlyError, ValidationError
from ragspace.ingestion.scheduler import ResyncScheduler
from ragspace.models import GithubOptions, Source, SourceKind
from ragspace.runtime import build_actions
from ragspace.settings import load_settings
from ragspace.sources.github_client import GithubClient, GithubConfig
from ragspace.sources.github_fetcher import GithubFetcher
from ragspace.sources.sync import SourceSyncer
from ragspace.store import Store, SyncSchedule
from tests.fakes.github_server import FakeGithub
from tests.sources.test_github_source import FILES, OPTIONS, make_service
from tests.waiting import wait_for
from tests.worker.test_worker_processes import StartWorker, start_worker

__all__ = ["start_worker"]  # the fixture, shared with tests/worker/test_worker_processes.py

HOUR = timedelta(hours=1)


def _make_due(store: Store, source_ids: list[int]) -> None:
    """Make sources due now by moving their next run into the past (no waiting an hour)."""
    with store.pool.connection() as conn:
        conn.execute(
            "update sources set next_sync_at = now() - interval '1 second' where id = any(%s)",
            (source_ids,),
        )


def _syncer(store: Store, github: FakeGithub) -> SourceSyncer:
    config = GithubConfig(api_url=github.base_url, timeout_seconds=5, allow_private_urls=True)
    return SourceSyncer(store, [GithubFetcher(GithubClient(config), config.max_file_bytes)])


def resync_scheduler(store: Store, github: FakeGithub, synced: list[int]) -> ResyncScheduler:
    """A scheduler over the fake GitHub that appends to `synced` after each sync it runs."""
    return ResyncScheduler(store, _syncer(store, github).sync, lambda: synced.append(1), 60.0)


def test_interval_is_stored_and_validated(
    store: Store, embedder: Embedder, github: FakeGithub
) -> None:
    github.add_repo("acme", "widgets").commit(FILES)
    service = make_service(store, embedder, github)
    service.docsets.create("widgets")
    before = datetime.now(UTC)
    report = service.sources.add("widgets", SourceKind.GITHUB_REPO, "acme/widgets", OPTIONS, HOUR)
    [source] = service.sources.all("widgets")
    assert source.id == report.source_id and source.resync_interval == HOUR
    assert source.next_sync_at is not None
    assert before + HOUR <= source.next_sync_at <= datetime.now(UTC) + HOUR

    with pytest.raises(ValidationError, match="at least 5 minutes"):
        service.sources.set_resync_interval(source.id, timedelta(minutes=1))
    with pytest.raises(ValidationError, match="at least 5 minutes"):
        service.sources.add("widgets", SourceKind.GITHUB_REPO, "acme/widgets", None, timedelta(0))
    assert len(service.sources.all("widgets")) == 1  # refused before anything was stored

    off = service.sources.set_resync_interval(source.id, None)
    assert off.resync_interval is None and off.next_sync_at is None
    daily = service.sources.set_resync_interval(source.id, timedelta(days=1))
    assert daily.resync_interval == timedelta(days=1)

    read_only = build_actions(load_settings(env_file=None, read_only=True), store, embedder)
    with pytest.raises(ReadOnlyError):
        read_only.sources.set_resync_interval(source.id, HOUR)
    with pytest.raises(ReadOnlyError):
        read_only.sources.add("widgets", SourceKind.WEB, "https://example.com/", None, HOUR)


def test_a_due_source_is_claimed_once_and_its_next_run_moves_on(
    store: Store, embedder: Embedder, github: FakeGithub
) -> None:
    github.add_repo("acme", "widgets").commit(FILES)
    service = make_service(store, embedder, github)
    service.docsets.create("widgets")
    scheduled = service.sources.add("widgets", SourceKind.GITHUB_REPO, "acme/widgets", None, HOUR)
    service.sources.add(
        "widgets", SourceKind.GITHUB_REPO, "acme/widgets", GithubOptions(ref="trunk")
    )
    schedule = SyncSchedule(store.pool)
    assert schedule.claim_due("a", 60) is None  # due in an hour

    _make_due(store, [scheduled.source_id])
    claimed = schedule.claim_due("a", 60)
    assert claimed is not None and claimed.id == scheduled.source_id
    assert claimed.next_sync_at is not None
    assert claimed.next_sync_at > datetime.now(UTC) + HOUR - timedelta(minutes=1)
    assert schedule.claim_due("b", 60) is None  # taken, and no longer due

    # a push while the sync runs makes it due again, but only after the claim is released
    assert schedule.make_due([scheduled.source_id]) == [scheduled.source_id]
    assert schedule.claim_due("b", 60) is None
    schedule.release(scheduled.source_id, "a")
    again = schedule.claim_due("b", 60)
    assert again is not None and again.id == scheduled.source_id


def test_scheduler_syncs_with_the_shared_syncer_and_a_failure_waits_for_the_next_interval(
    store: Store, embedder: Embedder, github: FakeGithub
) -> None:
    repo = github.add_repo("acme", "widgets")
    repo.commit(FILES)
    service = make_service(store, embedder, github)
    service.docsets.create("widgets")
    report = service.sources.add("widgets", SourceKind.GITHUB_REPO, "acme/widgets", OPTIONS, HOUR)
    synced: list[int] = []
    scheduler = resync_scheduler(store, github, synced)
    assert scheduler.run_due() == 0

    files = dict(FILES)
    files["README.md"] = b"# Widgets\n\nWidgets are now assembled by friendly robots.\n"
    second = repo.commit(files)
    _make_due(store, [report.source_id])
    assert scheduler.run_due() == 1 and synced == [1]
    [source] = service.sources.all("widgets")
    assert source.sync_state["commit"] == second and source.error_message is None
    paths = {d.path: d.embedding_status.value for d in service.documents.all("widgets")}
    assert paths["acme/widgets/README.md"] == "pending"  # changed: queued for the workers

    github.failing_paths["/repos/acme/widgets"] = 500
    _make_due(store, [report.source_id])
    requests = len(github.requests)
    assert scheduler.run_due() == 1  # one attempt, not a retry loop
    assert len(github.requests) - requests == 1
    [failed] = service.sources.all("widgets")
    assert failed.error_message == "GitHub answered HTTP 500 for acme/widgets."
    assert failed.sync_state["commit"] == second  # the DocSet is left as it was
    assert failed.next_sync_at is not None and failed.next_sync_at > datetime.now(UTC)
    assert scheduler.run_due() == 0  # retried at the next interval


def test_scheduler_thread_runs_a_source_made_due_and_stops(
    store: Store, embedder: Embedder, github: FakeGithub
) -> None:
    github.add_repo("acme", "widgets").commit(FILES)
    service = make_service(store, embedder, github)
    service.docsets.create("widgets")
    report = service.sources.add("widgets", SourceKind.GITHUB_REPO, "acme/widgets", OPTIONS)
    synced: list[int] = []
    scheduler = ResyncScheduler(
        store, _syncer(store, github).sync, lambda: synced.append(1), 60.0, idle_seconds=30
    )
    scheduler.start()
    try:
        assert SyncSchedule(store.pool).make_due([report.source_id]) == [report.source_id]
        scheduler.wake()  # what the service's on_new_work does after a webhook
        wait_for(lambda: bool(synced), "the woken scheduler to sync", 30)
    finally:
        scheduler.stop()
    [source] = service.sources.all("widgets")
    assert source.next_sync_at is None  # a one-off (push) sync of an unscheduled source


REPOS = [f"w{n}" for n in range(6)]


def _sources(store: Store) -> list[Source]:
    with store.pool.connection() as conn:
        [(docset_id,)] = conn.execute("select id from docsets").fetchall()
    return store.sources.of_docset(int(docset_id))


@pytest.mark.slow  # two `ragspace worker` processes
def test_two_worker_processes_run_each_due_sync_exactly_once(
    service: Actions,
    store: Store,
    github: FakeGithub,
    start_worker: StartWorker,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    for name in REPOS:
        github.add_repo("acme", name).commit({"README.md": f"# {name}\n\nAbout {name}.\n".encode()})
    docset = service.docsets.create("many")
    schedule = SyncSchedule(store.pool)
    for name in REPOS:
        source = store.sources.create(docset.id, SourceKind.GITHUB_REPO, f"acme/{name}")
        schedule.set_interval(source.id, HOUR)
    github.delay_seconds = 0.3  # a sync takes over a second: both workers get their share
    monkeypatch.setenv("GITHUB_API_URL", github.base_url)
    monkeypatch.setenv("RAGSPACE_ALLOW_PRIVATE_URLS", "true")
    start_worker("a")
    start_worker("b")
    logs = [tmp_path / "a.log", tmp_path / "b.log"]

    def ready() -> bool:
        return all(p.exists() and "Worker running" in p.read_text() for p in logs)

    wait_for(ready, "both worker processes to start", 180)
    assert github.requests == [] and all(s.last_synced_at is None for s in _sources(store))

    ids = [s.id for s in _sources(store)]
    _make_due(store, ids)

    def all_synced() -> bool:
        trees = [github.count(f"/repos/acme/{name}/git/trees/") for name in REPOS]
        assert max(trees) <= 1, f"a source was synced twice: {trees}"
        return all(s.last_synced_at is not None for s in _sources(store))

    def claims_released() -> bool:
        with store.pool.connection() as conn:
            [(claimed,)] = conn.execute(
                "select count(*) from sources where sync_claimed_by is not null"
            ).fetchall()
        return bool(claimed == 0)

    wait_for(all_synced, "every due source to be synced", 120)
    # a worker records the sync, then releases its claim: on a busy machine the test can look
    # in between (it did, beside another suite), so it waits for every claim's release too
    wait_for(claims_released, "every claim to be released", 60)
    for name in REPOS:  # one sync each: one repository, one commit and one tree request
        assert github.count(f"/repos/acme/{name}/git/trees/") == 1, name
        assert github.count(f"/repos/acme/{name}/commits/") == 1, name
    texts = [p.read_text() for p in logs]
    runs = {i: sum(t.count(f"Scheduled re-sync of source #{i} ") for t in texts) for i in ids}
    assert runs == dict.fromkeys(ids, 1)
    assert all("Scheduled re-sync of source #" in t for t in texts)  # both took part
    for source in _sources(store):
        assert source.error_message is None
        assert source.next_sync_at is not None
        assert source.next_sync_at > datetime.now(UTC) + HOUR - timedelta(minutes=5)
