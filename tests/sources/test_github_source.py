"""GitHub repositories and files against a local fake of the REST API and tarball endpoint."""

from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.answering.citations import cite_hit
from ragspace.errors import SourceError, ValidationError
from ragspace.ingestion.worker import Ingestor
from ragspace.models import EmbeddingStatus, GithubOptions, SearchQuery, SourceKind, StoredDocument
from ragspace.runtime import build_actions
from ragspace.settings import load_settings
from ragspace.sources.fetcher import PreviousSync
from ragspace.sources.github_client import GithubClient, GithubConfig, parse_location
from ragspace.sources.github_fetcher import GithubFetcher
from ragspace.sources.sync import SourceSyncer
from ragspace.store import Store
from tests.fakes.github_server import FakeGithub, FakeRepo, blob_sha

DATA = Path(__file__).parent.parent / "data"
APP_PY = b'''"""Widget factory."""


def make_widget(name: str) -> dict[str, str]:
    """Build a widget."""
    return {"name": name, "kind": "sprocket"}


def polish(widget: dict[str, str]) -> dict[str, str]:
    """Polish a widget until it shines."""
    widget["shine"] = "mirror"
    return widget
'''
FILES = {
    "README.md": b"# Widgets\n\nWidgets are made in the sprocket factory.\n",
    "src/widgets/app.py": APP_PY,
    "docs/guide.md": b"# Guide\n\n## Polishing\n\nPolish widgets with a soft cloth.\n",
    "docs/field.pdf": (DATA / "sample.pdf").read_bytes(),
    "package-lock.json": b'{"lockfileVersion": 3}\n',
    "node_modules/left-pad/index.js": b"module.exports = () => 1;\n",
    "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "src/widgets/big.py": b"# big\n" + b"x = 1\n" * 500,
    "src/widgets/blob.py": b"\x00\x01binary pretending to be python",
    "tests/test_app.py": b"def test_it():\n    assert True\n",
}


@pytest.fixture
def repo(github: FakeGithub) -> FakeRepo:
    """acme/widgets with a default branch named `trunk`, not `main`."""
    repo = github.add_repo("acme", "widgets", default_branch="trunk")
    repo.commit(FILES)
    return repo


def make_service(store: Store, embedder: object, github: FakeGithub) -> Actions:
    """The real service wired to the fake GitHub."""
    config = GithubConfig(
        api_url=github.base_url, timeout_seconds=5, max_file_bytes=2000, allow_private_urls=True
    )
    syncer = SourceSyncer(store, [GithubFetcher(GithubClient(config), config.max_file_bytes)])
    return build_actions(load_settings(env_file=None), store, embedder, syncer=syncer)  # type: ignore[arg-type]


@pytest.fixture
def gh_service(store: Store, embedder: object, github: FakeGithub) -> Actions:
    """Service with a syncer pointing at the fake."""
    service = make_service(store, embedder, github)
    service.docsets.create("widgets")
    return service


OPTIONS = GithubOptions(exclude=["tests/**"])


def test_repository_sync_documents_skips_and_requests(
    gh_service: Actions, github: FakeGithub, repo: FakeRepo
) -> None:
    report = gh_service.sources.add(
        "widgets", SourceKind.GITHUB_REPO, "https://github.com/acme/widgets", OPTIONS
    )
    commit = repo.refs["trunk"]
    assert report.resolved == commit
    documents = {d.path: d for d in gh_service.documents.all("widgets")}
    assert set(documents) == {
        "acme/widgets/README.md",
        "acme/widgets/src/widgets/app.py",
        "acme/widgets/docs/guide.md",
        "acme/widgets/docs/field.pdf",
    }
    assert all(d.embedding_status is EmbeddingStatus.PENDING for d in documents.values())
    assert documents["acme/widgets/src/widgets/app.py"].content_hash == blob_sha(APP_PY)
    reasons = {item.path: item.reason for item in report.skipped}
    assert reasons == {
        "package-lock.json": "lock file",
        "node_modules/left-pad/index.js": "vendored or generated folder (node_modules/)",
        "assets/logo.png": "binary content",  # recognised by its bytes
        "src/widgets/big.py": "larger than 2,000 bytes",
        "src/widgets/blob.py": "binary content",
        "tests/test_app.py": "excluded by filter tests/**",
    }
    [source] = gh_service.sources.all("widgets")
    assert source.sync_state["commit"] == commit
    assert source.sync_state["skipped_counts"]["lock file"] == 1
    assert source.error_message is None
    # repository, commit, tree, tarball (+ its redirect to codeload): constant in the file count
    assert github.requests == [
        "/repos/acme/widgets",
        "/repos/acme/widgets/commits/trunk",
        f"/repos/acme/widgets/git/trees/{commit}",
        f"/repos/acme/widgets/tarball/{commit}",
        f"/codeload/acme/widgets/legacy.tar.gz/{commit}",
    ]


def test_request_count_is_constant_in_the_number_of_files(
    gh_service: Actions, github: FakeGithub
) -> None:
    small = github.add_repo("acme", "small")
    small.commit({"a.md": b"# A\n\nalpha\n"})
    large = github.add_repo("acme", "large")
    large.commit({f"pkg/m{n}.py": f"VALUE = {n}\n".encode() for n in range(60)})
    gh_service.sources.add("widgets", SourceKind.GITHUB_REPO, "acme/small")
    small_requests = len(github.requests)
    report = gh_service.sources.add("widgets", SourceKind.GITHUB_REPO, "acme/large")
    assert len(report.changed) == 60
    assert len(github.requests) - small_requests == small_requests == 5


def test_chunks_cite_commit_pinned_line_ranges(
    gh_service: Actions, ingestor: Ingestor, repo: FakeRepo
) -> None:
    gh_service.sources.add("widgets", SourceKind.GITHUB_REPO, "acme/widgets", OPTIONS)
    ingestor.process_all()
    commit = repo.refs["trunk"]
    hit = gh_service.search.hits(
        SearchQuery(
            question="polish a widget until it shines", docsets=("widgets",), limit=1, floor=False
        )
    )[0]
    assert hit.path == "acme/widgets/src/widgets/app.py"
    lines = APP_PY.decode().splitlines()
    assert hit.content.splitlines() == lines[hit.start_line - 1 : hit.end_line]
    assert hit.metadata["commit"] == commit and hit.metadata["repo"] == "acme/widgets"
    assert cite_hit(hit, 1).url == (
        f"https://github.com/acme/widgets/blob/{commit}/src/widgets/app.py"
        f"#L{hit.start_line}-L{hit.end_line}"
    )


def test_tag_ref_resolves_to_its_commit(gh_service: Actions, repo: FakeRepo) -> None:
    tagged = repo.commit({"README.md": b"# Old widgets\n\nVersion one.\n"}, ref="v1.0")
    report = gh_service.sources.add(
        "widgets", SourceKind.GITHUB_REPO, "acme/widgets", GithubOptions(ref="v1.0")
    )
    assert report.resolved == tagged != repo.refs["trunk"]
    assert [d.path for d in gh_service.documents.all("widgets")] == ["acme/widgets/README.md"]


def test_single_file_url_is_pinned_to_the_commit(
    gh_service: Actions, store: Store, ingestor: Ingestor, repo: FakeRepo
) -> None:
    url = "https://github.com/acme/widgets/blob/trunk/src/widgets/app.py"
    report = gh_service.sources.add("widgets", SourceKind.GITHUB_FILE, url)
    commit = repo.refs["trunk"]
    assert report.resolved == commit
    [document] = gh_service.documents.all("widgets")
    assert document.path == "acme/widgets/src/widgets/app.py"
    ingestor.process_all()
    chunks = store.chunks.of_document(document.id)
    assert {c.metadata["commit"] for c in chunks} == {commit}
    assert chunks[0].metadata["repo_path"] == "src/widgets/app.py"


@pytest.mark.usefixtures("repo")
def test_rate_limit_is_a_clear_error_on_the_source(gh_service: Actions, github: FakeGithub) -> None:
    github.rate_limited_paths = ("/repos/acme/widgets/git/trees",)
    with pytest.raises(SourceError, match="rate limit exceeded") as raised:
        gh_service.sources.add("widgets", SourceKind.GITHUB_REPO, "acme/widgets")
    assert "resets at" in str(raised.value) and "UTC" in str(raised.value)
    [source] = gh_service.sources.all("widgets")
    assert source.error_message == str(raised.value)
    assert gh_service.documents.all("widgets") == []
    assert github.count("/repos/acme/widgets/git/trees") == 1  # failed at once, no retry loop


def test_rate_limit_on_the_tarball_keeps_the_previous_sync(
    gh_service: Actions, github: FakeGithub, repo: FakeRepo
) -> None:
    report = gh_service.sources.add("widgets", SourceKind.GITHUB_REPO, "acme/widgets", OPTIONS)
    before = {(d.path, d.content_hash) for d in gh_service.documents.all("widgets")}
    repo.commit({**FILES, "README.md": b"# Widgets v2\n"})
    github.rate_limited_paths = ("/repos/acme/widgets/tarball",)
    with pytest.raises(SourceError, match="resets at"):
        gh_service.sources.resync(report.source_id)
    after = gh_service.documents.all("widgets")
    assert {(d.path, d.content_hash) for d in after} == before
    assert all(d.embedding_status is not EmbeddingStatus.PROCESSING for d in after)


def test_secondary_rate_limit_on_the_tarball_stores_nothing(
    gh_service: Actions, github: FakeGithub, repo: FakeRepo
) -> None:
    github.secondary_limited_paths = ("/repos/acme/widgets/tarball",)
    with pytest.raises(SourceError, match=r"in about 2 min") as raised:
        gh_service.sources.add("widgets", SourceKind.GITHUB_REPO, "acme/widgets")
    assert "rate limit exceeded while fetching acme/widgets" in str(raised.value)
    assert gh_service.documents.all("widgets") == []
    [source] = gh_service.sources.all("widgets")
    assert source.error_message == str(raised.value) and source.last_synced_at is None
    assert repo.refs  # the listing itself succeeded; only the download was limited


def test_unknown_repository_names_it(gh_service: Actions) -> None:
    with pytest.raises(SourceError, match="GitHub has no acme/nothing"):
        gh_service.sources.preview(SourceKind.GITHUB_REPO, "acme/nothing")


@pytest.mark.usefixtures("repo")
def test_unknown_ref_names_it(gh_service: Actions) -> None:
    with pytest.raises(SourceError, match=r"GitHub has no acme/widgets at v9\.9"):
        gh_service.sources.preview(
            SourceKind.GITHUB_REPO, "acme/widgets", GithubOptions(ref="v9.9")
        )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("acme/widgets", ("acme", "widgets", None, None)),
        ("https://github.com/acme/widgets.git", ("acme", "widgets", None, None)),
        ("git@github.com:acme/widgets.git", ("acme", "widgets", None, None)),
        ("github.com/acme/widgets/tree/v2", ("acme", "widgets", "v2", None)),
        (
            "https://github.com/acme/widgets/blob/abc123/src/a.py#L3",
            ("acme", "widgets", "abc123", "src/a.py"),
        ),
    ],
)
def test_parse_location_forms(text: str, expected: tuple[object, ...]) -> None:
    location = parse_location(text)
    assert (location.owner, location.repo, location.ref, location.path) == expected


def test_parse_location_rejects_other_hosts() -> None:
    with pytest.raises(SourceError, match=r"'https://gitlab\.com/a/b' is not a GitHub repository"):
        parse_location("https://gitlab.com/a/b")


def test_fetcher_diffs_against_the_previous_sync(github: FakeGithub, repo: FakeRepo) -> None:
    """The GitHub fetcher on its own: a named result, and only changed blobs downloaded."""
    config = GithubConfig(api_url=github.base_url, timeout_seconds=5, allow_private_urls=True)
    fetcher = GithubFetcher(GithubClient(config), max_file_bytes=2000)
    first = fetcher.fetch(SourceKind.GITHUB_REPO, "acme/widgets", OPTIONS, PreviousSync())
    assert (first.resolved, first.ref) == (repo.refs["trunk"], "trunk")
    assert first.unchanged_paths == []
    assert first.state["binary_blobs"] == {
        "assets/logo.png": blob_sha(FILES["assets/logo.png"]),
        "src/widgets/blob.py": blob_sha(FILES["src/widgets/blob.py"]),
    }
    stored = {
        d.path: StoredDocument(n, d.path, d.content_hash, "done", d.metadata)
        for n, d in enumerate(first.documents)
    }
    tarballs = github.count("/repos/acme/widgets/tarball")
    again = fetcher.fetch(
        SourceKind.GITHUB_REPO, "acme/widgets", OPTIONS, PreviousSync(stored, first.state)
    )
    assert again.documents == [] and sorted(again.unchanged_paths) == sorted(stored)
    assert github.count("/repos/acme/widgets/tarball") == tarballs  # nothing to download
    assert again.skipped == first.skipped and again.state == first.state


ESCAPES = [
    "../user",
    "acme/..",
    "./user",
    "https://github.com/../user",
    "github.com/acme/../../user/tree/main",
    "-acme/widgets",
    "acme/" + "w" * 101,
    "a" * 40 + "/widgets",
]


@pytest.mark.parametrize("text", ESCAPES)
def test_a_location_outside_owner_name_is_refused_before_any_request(
    gh_service: Actions, github: FakeGithub, text: str
) -> None:
    for act in (gh_service.sources.preview, _add):
        with pytest.raises(SourceError) as refused:
            act(SourceKind.GITHUB_REPO, text) if act is not _add else _add(gh_service, text)
        assert text.strip()[:60] in str(refused.value)  # names it (long ones shortened)
    assert github.requests == []  # never `GET /user` with the configured token
    assert gh_service.sources.all("widgets") == []


def _add(service: Actions, text: str) -> None:
    service.sources.add("widgets", SourceKind.GITHUB_REPO, text)


@pytest.mark.parametrize(
    "ref", ["v" * 5000, "main\u202etxt.exe", "ma\u200bin", "%2e%2e/%2e%2e/user", "tag\ufeff"]
)
def test_an_overlong_or_disguised_ref_is_refused_before_any_request(
    gh_service: Actions, github: FakeGithub, ref: str
) -> None:
    with pytest.raises(SourceError) as refused:
        gh_service.sources.preview(SourceKind.GITHUB_REPO, "acme/widgets", GithubOptions(ref=ref))
    assert "not a valid git branch, tag or commit name" in str(refused.value)
    assert len(str(refused.value)) < 400
    assert github.requests == []


def test_a_bad_filter_is_refused_before_the_source_is_stored(
    gh_service: Actions, github: FakeGithub
) -> None:
    options = GithubOptions(include=["docs/" + "*" * 600])
    with pytest.raises(ValidationError) as refused:
        gh_service.sources.add("widgets", SourceKind.GITHUB_REPO, "acme/widgets", options)
    assert "docs/***" in str(refused.value)
    assert gh_service.sources.all("widgets") == [] and github.requests == []
