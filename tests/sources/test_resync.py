"""Re-sync: only changed documents are re-embedded; deleted ones vanish; old chunks serve."""

import pytest

from ragspace.chunking.chunker import Chunker
from ragspace.embedding.embedders import Embedder
from ragspace.ingestion.worker import Ingestor
from ragspace.models import EmbeddingStatus, SearchQuery, SourceKind
from ragspace.runtime import build_actions
from ragspace.settings import load_settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from tests.fakes.embedders import RecordingEmbedder
from tests.fakes.github_server import FakeGithub, FakeRepo
from tests.sources.test_github_source import FILES, OPTIONS, make_service


@pytest.fixture
def counting(embedder: Embedder) -> RecordingEmbedder:
    """Counts embedding calls."""
    return RecordingEmbedder(embedder)


def test_resync_reembeds_one_changed_file_and_removes_a_deleted_one(
    store: Store, counting: RecordingEmbedder, github: FakeGithub
) -> None:
    repo: FakeRepo = github.add_repo("acme", "widgets")
    first = repo.commit(FILES)
    service = make_service(store, counting, github)
    service.docsets.create("widgets")
    ingestor = Ingestor(store, Chunker(1200, 1000, 100), counting)  # type: ignore[arg-type]
    report = service.sources.add("widgets", SourceKind.GITHUB_REPO, "acme/widgets", OPTIONS)
    assert ingestor.process_all() == 4
    counting.calls.clear()

    files = dict(FILES)
    files["README.md"] = b"# Widgets\n\nWidgets are now assembled by friendly robots.\n"
    del files["docs/guide.md"]
    second = repo.commit(files)
    github.requests.clear()
    resync = service.sources.resync(report.source_id)
    assert resync.changed == ["acme/widgets/README.md"]
    assert resync.removed == ["acme/widgets/docs/guide.md"]
    assert resync.unchanged == 2 and resync.resolved == second
    paths = {d.path: d for d in service.documents.all("widgets")}
    assert "acme/widgets/docs/guide.md" not in paths
    assert paths["acme/widgets/README.md"].embedding_status is EmbeddingStatus.PENDING

    # until the new chunks are complete, the DocSet keeps serving the old ones
    hit = service.search.hits(
        SearchQuery(question="sprocket factory", docsets=("widgets",), limit=1, floor=False)
    )[0]
    assert hit.path == "acme/widgets/README.md" and "sprocket factory" in hit.content
    assert hit.metadata["commit"] == first

    counting.calls.clear()
    assert ingestor.process_all() == 1
    assert len(counting.calls) == 1  # exactly one document re-embedded
    hit = service.search.hits(
        SearchQuery(question="friendly robots", docsets=("widgets",), limit=1, floor=False)
    )[0]
    assert "friendly robots" in hit.content and hit.metadata["commit"] == second
    assert service.search.hits(
        SearchQuery(question="soft cloth polishing", docsets=("widgets",), limit=5, floor=False)
    )  # other docs still there
    assert all(
        h.path != "acme/widgets/docs/guide.md"
        for h in service.search.hits(SearchQuery(question="polish", limit=8, floor=False))
    )


def test_resync_without_changes_downloads_nothing_and_embeds_nothing(
    store: Store, counting: RecordingEmbedder, github: FakeGithub
) -> None:
    github.add_repo("acme", "widgets").commit(FILES)
    service = make_service(store, counting, github)
    service.docsets.create("widgets")
    ingestor = Ingestor(store, Chunker(1200, 1000, 100), counting)  # type: ignore[arg-type]
    report = service.sources.add("widgets", SourceKind.GITHUB_REPO, "acme/widgets", OPTIONS)
    ingestor.process_all()
    github.requests.clear()
    counting.calls.clear()
    again = service.sources.resync(report.source_id)
    assert again.changed == [] and again.removed == [] and again.unchanged == 4
    assert github.count("/repos/acme/widgets/tarball") == 0 and len(github.requests) == 3
    assert ingestor.process_all() == 0 and counting.calls == []


def test_uploads_are_reembedded_only_when_their_content_changes(
    store: Store, counting: RecordingEmbedder
) -> None:
    service = build_actions(load_settings(env_file=None), store, counting)  # type: ignore[arg-type]
    service.docsets.create("notes")
    ingestor = Ingestor(store, Chunker(1200, 1000, 100), counting)  # type: ignore[arg-type]
    service.sources.add_files(
        "notes", [UploadedFile("a.md", b"# A\n\nalpha\n"), UploadedFile("b.md", b"beta")]
    )
    assert ingestor.process_all() == 2
    counting.calls.clear()
    service.sources.add_files(
        "notes", [UploadedFile("a.md", b"# A\n\nalpha\n"), UploadedFile("b.md", b"gamma")]
    )
    assert ingestor.process_all() == 1 and len(counting.calls) == 1
