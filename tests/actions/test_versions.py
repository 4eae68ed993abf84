"""Versioned DocSets: one GitHub repository indexed at two refs side by side (issue 15)."""

import dataclasses
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from ragspace.actions import Actions
from ragspace.chunking.chunker import Chunker
from ragspace.embedding.embedders import Embedder
from ragspace.errors import NotFoundError, ValidationError
from ragspace.ingestion.worker import Ingestor
from ragspace.models import GithubOptions, SearchQuery, SourceKind
from ragspace.sources.files import UploadedFile
from ragspace.store import SearchRequest, Store
from ragspace.store.migrations import apply_migrations
from ragspace_mcp import read_tools as mcp_read_tools
from ragspace_ui.chat_sources import sources_markdown
from ragspace_ui.documents_panel import chosen_documents, listing, remove_chosen
from ragspace_ui.ref_picker import ALL_REFS, ref_choices
from ragspace_ui.viewer import open_citation, open_document
from tests.cli.test_cli import Run, cli  # noqa: F401 (the `cli` fixture)
from tests.fakes.embedders import RecordingEmbedder
from tests.fakes.github_server import FakeGithub
from tests.sources.test_github_source import APP_PY, make_service

MIGRATIONS = Path(__file__).parent.parent.parent / "supabase" / "migrations"
GUIDE = b"# Guide\n\n## Polishing\n\nPolish widgets with a soft cloth.\n"
V1 = {
    "README.md": b"# Widgets\n\nWidgets are made in the sprocket factory in Leeds.\n",
    "docs/guide.md": GUIDE,
    "src/widgets/app.py": APP_PY,
}
V2 = {**V1, "README.md": b"# Widgets\n\nWidgets are made in the laser foundry in Oslo.\n"}
QUESTION = "Where are widgets made?"


@dataclass
class Versions:
    """A DocSet `widgets` holding acme/widgets at v1.0 and v2.0, embedded."""

    service: Actions
    ingestor: Ingestor
    recorder: RecordingEmbedder
    v1: str
    v2: str
    # texts embedded while v2.0 was ingested (v1.0 was already there)
    embedded_for_v2: list[str]


@pytest.fixture
def versions(store: Store, embedder: Embedder, github: FakeGithub) -> Versions:
    """Both refs synced through the service and ingested by a real worker."""
    repo = github.add_repo("acme", "widgets", default_branch="main")
    v1 = repo.commit(V1, ref="v1.0")
    v2 = repo.commit(V2, ref="v2.0")
    recorder = RecordingEmbedder(embedder)
    service = make_service(store, recorder, github)
    service.docsets.create("widgets")
    ingestor = Ingestor(store, Chunker(1200, 1000, 100), recorder)  # type: ignore[arg-type]
    first = service.sources.add(
        "widgets", SourceKind.GITHUB_REPO, "acme/widgets", GithubOptions(ref="v1.0")
    )
    assert first.resolved == v1 and len(first.changed) == 3
    assert ingestor.process_all() == 3
    recorder.texts.clear()
    second = service.sources.add(
        "widgets", SourceKind.GITHUB_REPO, "acme/widgets", GithubOptions(ref="v2.0")
    )
    assert second.resolved == v2 and len(second.changed) == 3
    assert ingestor.process_all() == 3
    return Versions(service, ingestor, recorder, v1, v2, list(recorder.texts))


def test_each_ref_keeps_its_commit_and_files_unchanged_between_refs_are_embedded_once(
    versions: Versions, store: Store
) -> None:
    refs = versions.service.docsets.refs("widgets")
    assert [(r.ref, r.resolved_sha) for r in refs] == [("v1.0", versions.v1), ("v2.0", versions.v2)]
    assert all(r.indexed_at is not None for r in refs)
    documents = versions.service.documents.all("widgets")
    assert sorted((d.ref, d.path) for d in documents) == sorted(
        (ref, f"acme/widgets/{path}") for ref in ("v1.0", "v2.0") for path in V1
    )
    assert all(d.embedding_status.value == "done" and d.chunk_count > 0 for d in documents)
    # only the changed README was embedded for v2.0: guide.md and app.py came from the cache
    readme_v2 = next(d for d in documents if d.ref == "v2.0" and d.path.endswith("README.md"))
    assert len(versions.embedded_for_v2) == readme_v2.chunk_count
    assert all("laser foundry" in text for text in versions.embedded_for_v2)
    with store.pool.connection() as conn:
        rows = conn.execute(
            "select d.path, j.texts_embedded, j.texts_cached from ingestion_jobs j"
            " join documents d on d.id = j.document_id where d.ref = 'v2.0' order by d.path"
        ).fetchall()
    cached = {str(path): (embedded, hits) for path, embedded, hits in rows}
    assert cached["acme/widgets/docs/guide.md"][0] == 0 < cached["acme/widgets/docs/guide.md"][1]
    assert cached["acme/widgets/src/widgets/app.py"][0] == 0
    assert cached["acme/widgets/README.md"][0] == readme_v2.chunk_count


def test_the_same_question_is_answered_per_ref_with_each_refs_own_commit(
    versions: Versions,
) -> None:
    old = versions.service.answers.answer(
        SearchQuery(question=QUESTION, docsets=("widgets",), ref="v1.0")
    )
    new = versions.service.answers.answer(
        SearchQuery(question=QUESTION, docsets=("widgets",), ref="v2.0")
    )
    assert "sprocket factory" in old.text and "laser foundry" not in old.text
    assert "laser foundry" in new.text and "sprocket factory" not in new.text
    for answer, ref, sha in ((old, "v1.0", versions.v1), (new, "v2.0", versions.v2)):
        assert answer.citations
        for citation in answer.citations:
            assert (citation.docset, citation.ref, citation.resolved_sha) == ("widgets", ref, sha)
            assert citation.indexed_at is not None and citation.start_line >= 1
            assert citation.url is not None
            assert citation.url.startswith(f"https://github.com/acme/widgets/blob/{sha}/")
        readme = next(c for c in answer.citations if c.path == "acme/widgets/README.md")
        # the viewer opens the cited ref's own text
        shown = open_citation(versions.service, readme, "widgets")
        assert ("sprocket factory" in shown) is (ref == "v1.0")
        assert ("laser foundry" in shown) is (ref == "v2.0")


def test_search_without_a_ref_says_each_hits_version(versions: Versions) -> None:
    hits = versions.service.search.hits(
        SearchQuery(
            question="widgets made factory foundry", docsets=("widgets",), limit=8, floor=False
        )
    )
    readmes = {h.ref: h for h in hits if h.path == "acme/widgets/README.md"}
    assert set(readmes) == {"v1.0", "v2.0"}
    assert readmes["v1.0"].resolved_sha == versions.v1 and "sprocket" in readmes["v1.0"].content
    assert readmes["v2.0"].resolved_sha == versions.v2 and "laser" in readmes["v2.0"].content
    assert all(h.ref and h.resolved_sha and h.indexed_at for h in hits)
    only_v1 = versions.service.search.hits(
        SearchQuery(
            question="widgets made factory foundry",
            docsets=("widgets",),
            limit=8,
            ref="v1.0",
            floor=False,
        )
    )
    assert only_v1 and {h.ref for h in only_v1} == {"v1.0"}
    assert {h.resolved_sha for h in only_v1} == {versions.v1}


def test_a_ref_that_is_not_indexed_is_a_clear_error(versions: Versions) -> None:
    service = versions.service
    for attempt in (
        lambda: service.search.hits(
            SearchQuery(question=QUESTION, docsets=("widgets",), ref="v9.9", floor=False)
        ),
        lambda: service.answers.answer(
            SearchQuery(question=QUESTION, docsets=("widgets",), ref="v9.9")
        ),
        lambda: service.search.hits(SearchQuery(question=QUESTION, ref="v9.9", floor=False)),
        lambda: service.documents.read("widgets", "acme/widgets/README.md", ref="v9.9"),
    ):
        with pytest.raises(NotFoundError) as error:
            attempt()
        assert "'v9.9'" in str(error.value) and "v1.0, v2.0" in str(error.value)
    service.docsets.create("notes")
    with pytest.raises(NotFoundError, match=r"'notes' is not indexed at ref 'v1\.0'.*no versioned"):
        service.search.hits(
            SearchQuery(question=QUESTION, docsets=("widgets", "notes"), ref="v1.0", floor=False)
        )


def test_uploads_have_no_ref_and_a_ref_search_leaves_them_out(
    versions: Versions,
) -> None:
    service = versions.service
    service.sources.add_files(
        "widgets", [UploadedFile("notes.md", b"# Notes\n\nWidgets are made by hand, too.\n")]
    )
    versions.ingestor.process_all()
    everything = service.search.hits(
        SearchQuery(question="widgets made by hand", docsets=("widgets",), limit=8, floor=False)
    )
    notes = [h for h in everything if h.path == "notes.md"]
    assert notes and notes[0].ref is None and notes[0].resolved_sha is None
    assert notes[0].indexed_at is not None
    at_v2 = service.search.hits(
        SearchQuery(
            question="widgets made by hand", docsets=("widgets",), limit=8, ref="v2.0", floor=False
        )
    )
    assert at_v2 and all(h.path != "notes.md" and h.ref == "v2.0" for h in at_v2)
    assert service.documents.read("widgets", "notes.md").document.ref == ""


def test_a_path_at_several_refs_is_read_at_the_chosen_one(versions: Versions) -> None:
    service = versions.service
    with pytest.raises(ValidationError, match=r"several refs \('v1\.0', 'v2\.0'\)"):
        service.documents.read("widgets", "acme/widgets/README.md")
    read = service.documents.read("widgets", "acme/widgets/README.md", 3, 3, ref="v2.0")
    assert read.text == "Widgets are made in the laser foundry in Oslo."
    assert read.document.ref == "v2.0"


def test_a_resync_of_one_ref_leaves_the_other_alone(versions: Versions, github: FakeGithub) -> None:
    repo = github.repos["acme/widgets"]
    v2b = repo.commit({**V2, "docs/guide.md": GUIDE + b"\nThen wax them.\n"}, ref="v2.0")
    v2_source = next(
        s for s in versions.service.sources.all("widgets") if s.github_options.ref == "v2.0"
    )
    report = versions.service.sources.resync(v2_source.id)
    assert report.resolved == v2b and report.changed == ["acme/widgets/docs/guide.md"]
    assert versions.ingestor.process_all() == 1
    refs = {r.ref: r.resolved_sha for r in versions.service.docsets.refs("widgets")}
    assert refs == {"v1.0": versions.v1, "v2.0": v2b}
    assert (
        "wax"
        in versions.service.documents.read("widgets", "acme/widgets/docs/guide.md", ref="v2.0").text
    )
    assert (
        "wax"
        not in versions.service.documents.read(
            "widgets", "acme/widgets/docs/guide.md", ref="v1.0"
        ).text
    )


def test_chat_ref_selector_appears_only_for_a_docset_with_several_refs(
    versions: Versions,
) -> None:
    service = versions.service
    shown = ref_choices(service, ["widgets"])
    assert shown["visible"] is True and shown["value"] == ALL_REFS
    values = [value for _, value in shown["choices"]]
    assert values == [ALL_REFS, "v1.0", "v2.0"]
    assert shown["choices"][1][0] == f"v1.0 @ {versions.v1[:12]}"
    # the lists refresh whenever a tab opens: a chosen ref that is still indexed stays
    assert ref_choices(service, ["widgets"], "v2.0")["value"] == "v2.0"
    assert ref_choices(service, ["widgets"], "v9.9")["value"] == ALL_REFS
    service.docsets.create("notes")
    for selected in ([], ["notes"], ["widgets", "notes"]):
        hidden = ref_choices(service, selected)
        assert hidden["visible"] is False and hidden["value"] == ALL_REFS
    answer = service.answers.answer(SearchQuery(question=QUESTION, docsets=("widgets",)))
    panel = sources_markdown(answer, ["widgets"])
    assert "`v1.0 @ " in panel and "`v2.0 @ " in panel  # all refs: each source says its ref
    assert "at ref **v2.0**" in sources_markdown(answer, ["widgets"], "v2.0")


def test_cli_search_and_ask_take_a_ref(versions: Versions, cli: Run) -> None:  # noqa: F811
    found = cli(
        "search", "where widgets are made", "--docset", "widgets", "--ref", "v2.0", "--json"
    )
    assert found.code == 0, found.err
    hits = json.loads(found.out)
    assert hits and {h["ref"] for h in hits} == {"v2.0"}
    assert {h["resolved_sha"] for h in hits} == {versions.v2} and hits[0]["indexed_at"]
    asked = cli("ask", QUESTION, "--docset", "widgets", "--ref", "v1.0")
    assert asked.code == 0, asked.err
    assert "sprocket factory" in asked.out and f"v1.0 @ {versions.v1[:12]}" in asked.out
    wrong = cli("search", "widgets", "--docset", "widgets", "--ref", "v9.9")
    assert wrong.code != 0 and "'v9.9'" in wrong.err and "v1.0, v2.0" in wrong.err


def test_migration_gives_existing_github_documents_their_ref(
    empty_database_url: str, tmp_path: Path
) -> None:
    before = tmp_path / "before"
    before.mkdir()
    for path in sorted(MIGRATIONS.glob("*.sql")):
        if path.name < "20261124300000":
            shutil.copy(path, before / path.name)
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        apply_migrations(conn, before)
        conn.execute(
            "insert into docsets (name, embedding_model, embedding_dimensions)"
            " values ('old', 'm', 384)"
        )
        conn.execute(
            "insert into sources (docset_id, kind, location, sync_state) values"
            ' (1, \'github_repo\', \'acme/widgets\', \'{"ref": "main", "commit": "abc"}\'),'
            " (1, 'upload', 'notes.md', '{}')"
        )
        conn.execute(
            "insert into documents (docset_id, source_id, path, content, content_hash) values"
            " (1, 1, 'acme/widgets/README.md', 'x', 'h1'), (1, 2, 'notes.md', 'y', 'h2')"
        )
        applied = apply_migrations(conn, MIGRATIONS)
        assert "20261124300000" in applied
        refs = dict(conn.execute("select path, ref from documents").fetchall())
        assert refs == {"acme/widgets/README.md": "main", "notes.md": ""}
        # the same path may now exist at another ref, never twice at one
        conn.execute(
            "insert into documents (docset_id, source_id, path, content, content_hash, ref)"
            " values (1, 1, 'acme/widgets/README.md', 'z', 'h3', 'v2')"
        )
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(
                "insert into documents (docset_id, path, content, content_hash, ref)"
                " values (1, 'acme/widgets/README.md', 'z', 'h3', 'v2')"
            )


def test_mcp_tools_pass_the_ref_through(versions: Versions) -> None:
    service = versions.service
    [listed] = json.loads(mcp_read_tools.list_docsets(service))
    assert [(r["ref"], r["resolved_sha"]) for r in listed["refs"]] == [
        ("v1.0", versions.v1),
        ("v2.0", versions.v2),
    ]
    found = json.loads(
        mcp_read_tools.search(service, "where widgets are made", ["widgets"], 4, ref="v1.0")
    )
    hits = found["hits"]
    assert hits and {(h["ref"], h["resolved_sha"]) for h in hits} == {("v1.0", versions.v1)}
    asked = json.loads(mcp_read_tools.ask(service, QUESTION, ["widgets"], ref="v2.0"))
    assert "laser foundry" in asked["answer"]
    assert {c["ref"] for c in asked["citations"]} == {"v2.0"}
    read = json.loads(
        mcp_read_tools.read_document(service, "widgets", "acme/widgets/README.md", 3, 3, "v1.0")
    )
    assert read["text"] == "Widgets are made in the sprocket factory in Leeds."


def test_documents_panel_chooses_opens_and_removes_one_ref_of_a_path(
    versions: Versions,
) -> None:
    service = versions.service
    _, choices, _ = listing(service, "widgets", "README")
    assert choices["choices"] == ["acme/widgets/README.md @ v1.0", "acme/widgets/README.md @ v2.0"]
    chosen = chosen_documents(service, "widgets", ["acme/widgets/README.md @ v2.0"])
    assert [(d.path, d.ref) for d in chosen] == [("acme/widgets/README.md", "v2.0")]
    shown = open_document(service, "widgets", chosen[0].path, chosen[0].ref)
    assert "laser foundry" in shown and "sprocket" not in shown
    assert remove_chosen(service, "widgets", ["acme/widgets/README.md @ v1.0"]) == 1
    left = [(d.path, d.ref) for d in service.documents.all("widgets") if "README" in d.path]
    assert left == [("acme/widgets/README.md", "v2.0")]
    with pytest.raises(NotFoundError, match=r"README\.md @ v1\.0"):
        remove_chosen(service, "widgets", ["acme/widgets/README.md @ v1.0"])


def test_every_search_side_filters_by_ref(
    versions: Versions, store: Store, embedder: Embedder
) -> None:
    # run each side alone at each ref
    vector = embedder.embed(["where widgets are made"])[0]
    docset_id = versions.service.docsets.get("widgets").id
    sides = {
        "vector": SearchRequest([docset_id], 384, query_vector=vector, candidates=20),
        "keyword": SearchRequest([docset_id], 384, keyword_terms=["widgets", "made"]),
    }
    for name, request in sides.items():
        unfiltered = [c.hit for c in store.chunks.search(request)]
        assert {h.ref for h in unfiltered} == {"v1.0", "v2.0"}, name
        for ref, sha in (("v1.0", versions.v1), ("v2.0", versions.v2)):
            hits = [c.hit for c in store.chunks.search(dataclasses.replace(request, ref=ref))]
            assert hits and {(h.ref, h.resolved_sha) for h in hits} == {(ref, sha)}, name
            assert len(hits) == len([h for h in unfiltered if h.ref == ref]), name
