"""`POST /webhooks/github`: signed pushes queue re-syncs of the matching GitHub sources."""

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import psycopg
import pytest
from pydantic import SecretStr

from ragspace.access import parse_auth
from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder
from ragspace.errors import ReadOnlyError
from ragspace.models import GithubOptions, Source, SourceKind
from ragspace.runtime import build_actions
from ragspace.settings import Settings
from ragspace.sources.push_events import PushEvent, push_matches, sign, signature_valid
from ragspace.store import Store
from tests.fakes.github_server import FakeGithub, FakeRepo
from tests.sources.test_github_source import FILES, make_service
from tests.worker.test_scheduled_resync import resync_scheduler

SECRET = "It's a Secret to Everybody"


@pytest.fixture
def repo(github: FakeGithub) -> FakeRepo:
    """acme/widgets with a default branch (trunk), a `stable` branch and a `v1` tag."""
    repo = github.add_repo("acme", "widgets", default_branch="trunk")
    repo.commit(FILES)
    repo.commit(FILES, ref="stable")
    repo.commit(FILES, ref="v1")
    return repo


def _push(ref: str, full_name: str = "acme/widgets", **extra: Any) -> bytes:
    """A push payload as GitHub sends it (the fields RAGSpace reads, and a few others)."""
    payload = {
        "ref": ref,
        "before": "0" * 40,
        "after": "a" * 40,
        "created": False,
        "deleted": False,
        "forced": False,
        "repository": {
            "id": 1296269,
            "name": full_name.split("/")[1],
            "full_name": full_name,
            "private": False,
            "html_url": f"https://github.com/{full_name}",
            "default_branch": "trunk",
            "master_branch": "trunk",
        },
        "pusher": {"name": "octocat", "email": "octocat@github.com"},
        "commits": [],
        **extra,
    }
    return json.dumps(payload).encode()


def _post(
    url: str,
    body: bytes,
    event: str = "push",
    signature: str | None = None,
    delivery: str | None = None,
) -> httpx.Response:
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery or str(uuid.uuid4()),  # a new GUID per delivery
        "X-Hub-Signature-256": sign(SECRET, body) if signature is None else signature,
        "User-Agent": "GitHub-Hookshot/044aadd",
    }
    return httpx.post(
        f"{url.rstrip('/')}/webhooks/github", content=body, headers=headers, timeout=30
    )


def _due(service: Actions) -> set[int]:
    now = datetime.now(UTC)
    return {
        s.id for s in service.sources.all("widgets") if s.next_sync_at and s.next_sync_at <= now
    }


def _add(service: Actions, location: str, ref: str | None = None) -> int:
    options = GithubOptions(ref=ref)
    return service.sources.add("widgets", SourceKind.GITHUB_REPO, location, options).source_id


def test_signature_is_hmac_sha256_of_the_body() -> None:
    body = b"Hello, World!"
    # the example of GitHub's "Validating webhook deliveries" documentation
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert sign(SECRET, body) == expected
    assert signature_valid(SECRET, body, expected)
    assert not signature_valid(SECRET, body + b" ", expected)
    assert not signature_valid("another secret", body, expected)
    assert not signature_valid(SECRET, body, expected.replace("sha256=", "sha1="))
    assert not signature_valid(SECRET, body, None)
    assert not signature_valid("", body, sign("", body))


def _source(location: str, options: dict[str, Any], commit: str = "") -> Source:
    return Source(
        id=1,
        docset_id=1,
        kind=SourceKind.GITHUB_REPO,
        location=location,
        options=options,
        created_at=datetime.now(UTC),
        sync_state={"commit": commit} if commit else {},
    )


def test_which_sources_a_push_matches() -> None:
    push = PushEvent("Acme/Widgets", "refs/heads/trunk", "trunk")
    assert push_matches(_source("acme/widgets", {}), push)  # follows the default branch
    assert push_matches(_source("https://github.com/acme/widgets", {"ref": "trunk"}), push)
    assert push_matches(_source("https://github.com/acme/widgets/tree/trunk/docs", {}), push)
    assert not push_matches(_source("acme/widgets", {"ref": "stable"}), push)
    assert not push_matches(_source("acme/gadgets", {}), push)
    tag = PushEvent("acme/widgets", "refs/tags/v1", "trunk")
    assert push_matches(_source("acme/widgets", {"ref": "v1"}), tag)
    assert not push_matches(_source("acme/widgets", {}), tag)
    sha = "3f786850e387550fdab836ed7e6dc881de23001b"
    pinned = PushEvent("acme/widgets", f"refs/heads/{sha}", "trunk")
    assert not push_matches(_source("acme/widgets", {"ref": sha}), pinned)
    short = PushEvent("acme/widgets", "refs/heads/3f78685", "trunk")
    assert not push_matches(_source("acme/widgets", {"ref": "3f78685"}, sha), short)
    # a hex-looking branch name that is not the resolved commit is still a branch
    assert push_matches(
        _source("acme/widgets", {"ref": "cafe123"}, sha),
        PushEvent("acme/widgets", "refs/heads/cafe123", "trunk"),
    )


def test_valid_push_queues_matching_sources_and_invalid_signature_queues_nothing(
    store: Store,
    embedder: Embedder,
    github: FakeGithub,
    repo: FakeRepo,
    settings: Settings,
    launch_app: Callable[..., str],
) -> None:
    service = make_service(store, embedder, github)
    service.docsets.create("widgets")
    default = _add(service, "acme/widgets")
    stable = _add(service, "https://github.com/acme/widgets", "stable")
    tagged = _add(service, "acme/widgets", "v1")
    pinned = _add(service, "acme/widgets", repo.refs["trunk"])
    github.add_repo("acme", "gadgets").commit(FILES)
    other = _add(service, "acme/gadgets")
    # logins on: GitHub cannot sign in, the signature is its credential
    credentials = parse_auth(SecretStr("alice:s3cret"))
    secured = settings.replace(
        github_webhook_secret=SecretStr(SECRET), auth=SecretStr("alice:s3cret")
    )
    url = launch_app(service, credentials, secured)
    assert httpx.get(f"{url}/config", timeout=30).status_code == 401  # the guard is on

    body = _push("refs/heads/trunk")
    forged = _post(url, body, signature=sign("guessed", body))
    assert forged.status_code == 401
    assert forged.json() == {"error": "Missing or invalid X-Hub-Signature-256."}
    unsigned = _post(url, body, signature="")
    assert unsigned.status_code == 401
    tampered = _post(url, _push("refs/heads/stable"), signature=sign(SECRET, body))
    assert tampered.status_code == 401
    assert _due(service) == set()  # nothing queued

    ping = _post(url, json.dumps({"zen": "Design for failure.", "hook_id": 1}).encode(), "ping")
    assert ping.status_code == 200 and ping.json()["event"] == "ping"
    assert _due(service) == set()

    pushed = _post(url, body)
    assert pushed.status_code == 202 and pushed.json() == {"queued": [default]}
    assert _due(service) == {default}
    tag = _post(url, _push("refs/tags/v1"))
    assert tag.json() == {"queued": [tagged]}
    assert _due(service) == {default, tagged}
    assert (
        stable not in _due(service) and pinned not in _due(service) and other not in _due(service)
    )
    deleted = _post(url, _push("refs/heads/stable", deleted=True))
    assert deleted.status_code == 202 and deleted.json()["queued"] == []
    issue = _post(url, json.dumps({"action": "opened"}).encode(), "issues")
    assert issue.status_code == 202 and stable not in _due(service)
    garbage = _post(url, b"not json")
    assert garbage.status_code == 400

    # the queued syncs run on the workers' schedule path and fetch the pushed commit
    new_commit = repo.commit({**FILES, "README.md": b"# Widgets\n\nNow with gears.\n"})
    synced: list[int] = []
    scheduler = resync_scheduler(store, github, synced)
    assert scheduler.run_due() == 2 and _due(service) == set()
    by_id = {s.id: s for s in service.sources.all("widgets")}
    assert by_id[default].sync_state["commit"] == new_commit
    assert by_id[default].next_sync_at is None  # not scheduled: a one-off re-sync


def test_endpoint_refuses_wrong_methods_and_oversized_bodies(
    store: Store,
    embedder: Embedder,
    github: FakeGithub,
    settings: Settings,
    launch_app: Callable[..., str],
) -> None:
    service = make_service(store, embedder, github)
    secured = settings.replace(github_webhook_secret=SecretStr(SECRET))
    url = launch_app(service, None, secured)
    assert httpx.get(f"{url.rstrip('/')}/webhooks/github", timeout=30).status_code == 405
    huge = b"x" * (5 * 1024 * 1024 + 1)
    assert _post(url, huge).status_code == 413


def test_endpoint_is_off_without_a_secret(
    store: Store,
    embedder: Embedder,
    github: FakeGithub,
    repo: FakeRepo,
    launch_app: Callable[..., str],
) -> None:
    service = make_service(store, embedder, github)
    service.docsets.create("widgets")
    _add(service, "acme/widgets", repo.default_branch)
    url = launch_app(service)
    response = _post(url, _push("refs/heads/trunk"))
    assert response.status_code in (404, 405)
    assert _due(service) == set()


def test_read_only_instances_refuse_signed_pushes(
    store: Store,
    embedder: Embedder,
    github: FakeGithub,
    repo: FakeRepo,
    settings: Settings,
    launch_app: Callable[..., str],
) -> None:
    service = make_service(store, embedder, github)
    service.docsets.create("widgets")
    _add(service, "acme/widgets", repo.default_branch)
    secured = settings.replace(github_webhook_secret=SecretStr(SECRET), read_only=True)
    read_only = build_actions(secured, store, embedder)
    with pytest.raises(ReadOnlyError):
        read_only.sources.github_push(PushEvent("acme/widgets", "refs/heads/trunk", "trunk"))
    url = launch_app(read_only, None, secured)
    refused = _post(url, _push("refs/heads/trunk"))
    assert refused.status_code == 403 and "read-only" in refused.json()["error"]
    assert _due(service) == set()
    assert _post(url, b"{}", signature="sha256=00").status_code == 401


@pytest.mark.usefixtures("repo")
def test_a_replayed_delivery_is_handled_once_and_deep_json_is_refused(
    store: Store,
    embedder: Embedder,
    github: FakeGithub,
    settings: Settings,
    database_url: str,
    launch_app: Callable[..., str],
) -> None:
    service = make_service(store, embedder, github)
    service.docsets.create("widgets")
    default = _add(service, "acme/widgets")
    secured = settings.replace(github_webhook_secret=SecretStr(SECRET))
    url = launch_app(service, None, secured)
    body = _push("refs/heads/trunk")
    delivery = "72d3162e-cc78-11e3-81ab-4c9367dc0958"
    first = _post(url, body, delivery=delivery)
    assert first.status_code == 202 and first.json() == {"queued": [default]}
    scheduler = resync_scheduler(store, github, [])
    assert scheduler.run_due() == 1 and _due(service) == set()

    replayed = _post(url, body, delivery=delivery)  # same id, valid signature
    assert replayed.status_code == 200 and replayed.json() == {"duplicate": delivery}
    # the signature covers the body, not the headers: a new id on a captured body
    renamed = _post(url, body, delivery="8f0e1a2b-0000-11e3-81ab-4c9367dc0958")
    assert renamed.status_code == 200 and "duplicate" in renamed.json()
    assert _due(service) == set()  # nothing re-synced

    # deliveries are remembered for a day
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("update webhook_deliveries set received_at = now() - interval '25 hours'")
    again = _post(url, body, delivery=delivery)
    assert again.status_code == 202 and again.json() == {"queued": [default]}

    for deep in (b"[" * 200_000 + b"]" * 200_000, b'{"a":' * 100_000 + b"1" + b"}" * 100_000):
        refused = _post(url, deep)
        assert refused.status_code == 400 and "nested" in refused.json()["error"]
