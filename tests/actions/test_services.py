"""Uploaded files end to end on real parts: store, chunk, embed, search, answer."""

from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.errors import EmbeddingModelMismatchError, NotFoundError, ValidationError
from ragspace.ingestion.worker import Ingestor
from ragspace.models import EmbeddingStatus, SearchQuery
from ragspace.sources.files import UploadedFile
from ragspace.store import Store

DATA = Path(__file__).parent.parent / "data"
SAMPLES = ["textwrap.py", "deployment-guide.md", "glossary.rst"]


def _upload(service: Actions, docset: str, *names: str) -> None:
    service.sources.add_files(docset, [UploadedFile(n, (DATA / n).read_bytes()) for n in names])


@pytest.fixture
def filled(service: Actions, ingestor: Ingestor) -> Actions:
    service.docsets.create("handbook", "ops docs and code")
    _upload(service, "handbook", *SAMPLES)
    ingestor.process_all()
    return service


def test_three_files_reach_done(filled: Actions) -> None:
    documents = filled.documents.all("handbook")
    assert sorted(d.path for d in documents) == sorted(SAMPLES)
    assert {d.embedding_status for d in documents} == {EmbeddingStatus.DONE}
    assert all(d.chunk_count > 0 for d in documents)
    [docset] = filled.docsets.all()
    assert docset.document_count == 3
    assert docset.chunk_count == sum(d.chunk_count for d in documents)


@pytest.mark.parametrize("name", ["textwrap.py", "deployment-guide.md"])
def test_chunks_are_exactly_their_lines(filled: Actions, store: Store, name: str) -> None:
    lines = (DATA / name).read_text().split("\n")
    [document] = [d for d in filled.documents.all("handbook") if d.path == name]
    chunks = store.chunks.of_document(document.id)
    assert len(chunks) > 1, "the sample must be long enough to need several chunks"
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    covered: set[int] = set()
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines)
        expected = "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        assert chunk.content.rstrip() == expected.rstrip()
        covered.update(range(chunk.start_line, chunk.end_line + 1))
    non_blank = {number for number, line in enumerate(lines, start=1) if line.strip()}
    assert non_blank <= covered


@pytest.mark.parametrize(
    ("question", "expected_path"),
    [
        ("How often should backups be restored to check them?", "deployment-guide.md"),
        ("wrap a paragraph of text to a maximum line width", "textwrap.py"),
        ("What is a DocSet?", "glossary.rst"),
    ],
)
def test_search_finds_the_right_file(filled: Actions, question: str, expected_path: str) -> None:
    hits = filled.search.hits(
        SearchQuery(question=question, docsets=("handbook",), limit=3, floor=False)
    )
    assert hits[0].path == expected_path
    assert hits[0].score > hits[-1].score or len(hits) == 1


def test_answer_cites_passages_with_line_ranges(filled: Actions) -> None:
    answer = filled.answers.answer(
        SearchQuery(question="Which endpoint does the load balancer check?", docsets=("handbook",))
    )
    first = answer.citations[0]
    assert first.path == "deployment-guide.md"
    assert "/healthz" in first.snippet
    assert answer.text.startswith("Expose the `/healthz` endpoint to your load balancer. [1]")
    assert f"- [1] deployment-guide.md (lines {first.start_line}-{first.end_line})" in answer.text
    lines = (DATA / "deployment-guide.md").read_text().split("\n")
    assert any("/healthz" in line for line in lines[first.start_line - 1 : first.end_line])


def test_read_document_returns_the_cited_lines(filled: Actions) -> None:
    lines = (DATA / "textwrap.py").read_text().split("\n")
    [hit] = filled.search.hits(
        SearchQuery(
            question="wrap a paragraph of text to a maximum line width",
            docsets=("handbook",),
            limit=1,
            floor=False,
        )
    )
    read = filled.documents.read("handbook", hit.path, hit.start_line, hit.end_line)
    assert read.document.path == "textwrap.py" and read.document.docset_name == "handbook"
    assert read.text == "\n".join(lines[hit.start_line - 1 : hit.end_line])
    assert (read.start_line, read.end_line, read.total_lines) == (
        hit.start_line,
        hit.end_line,
        len(lines),
    )
    whole = filled.documents.read("handbook", "textwrap.py")
    assert whole.text == "\n".join(lines) and whole.end_line == len(lines)
    clipped = filled.documents.read("handbook", "textwrap.py", len(lines) - 1, len(lines) + 50)
    assert clipped.end_line == len(lines)
    with pytest.raises(NotFoundError) as missing:
        filled.documents.read("handbook", "nope.py")
    assert "nope.py" in str(missing.value)
    with pytest.raises(ValidationError) as beyond:
        filled.documents.read("handbook", "textwrap.py", len(lines) + 1)
    assert str(len(lines)) in str(beyond.value)
    with pytest.raises(ValidationError):
        filled.documents.read("handbook", "textwrap.py", 5, 4)


def test_removed_documents_leave_search_at_once(filled: Actions) -> None:
    question = "wrap a paragraph of text to a maximum line width"
    assert (
        filled.search.hits(
            SearchQuery(question=question, docsets=("handbook",), limit=1, floor=False)
        )[0].path
        == "textwrap.py"
    )
    assert filled.documents.remove("handbook", ["textwrap.py"]) == ["textwrap.py"]
    assert "textwrap.py" not in {
        h.path
        for h in filled.search.hits(
            SearchQuery(question=question, docsets=("handbook",), limit=10, floor=False)
        )
    }
    assert sorted(d.path for d in filled.documents.all("handbook")) == [
        "deployment-guide.md",
        "glossary.rst",
    ]
    [docset] = filled.docsets.all()
    assert docset.chunk_count == sum(d.chunk_count for d in filled.documents.all("handbook"))
    with pytest.raises(NotFoundError) as missing:
        filled.documents.remove("handbook", ["glossary.rst", "textwrap.py"])
    assert "textwrap.py" in str(missing.value)
    assert [d.path for d in filled.documents.all("handbook")] == ["deployment-guide.md"]


def test_search_never_leaks_other_docsets(filled: Actions, ingestor: Ingestor) -> None:
    filled.docsets.create("other")
    _upload(filled, "other", "glossary.rst")
    ingestor.process_all()
    hits = filled.search.hits(
        SearchQuery(question="What is a DocSet?", docsets=("handbook",), limit=20, floor=False)
    )
    assert {h.docset_name for h in hits} == {"handbook"}
    everything = filled.search.hits(
        SearchQuery(question="What is a DocSet?", limit=50, floor=False)
    )
    assert {h.docset_name for h in everything} == {"handbook", "other"}


def test_unreadable_files_become_error_documents(service: Actions, ingestor: Ingestor) -> None:
    service.docsets.create("mixed")
    documents = service.sources.add_files(
        "mixed",
        [
            UploadedFile("notes.txt", "Caf\u00e9 opening hours: 8 to 18.\n".encode()),
            UploadedFile("photo.png", b"\x89PNG\r\n\x1a\n\x00\x00"),
            UploadedFile("latin1.txt", "Caf\u00e9".encode("latin-1")),
            UploadedFile("empty.md", b"  \n"),
            UploadedFile("blob.py", b"import os\x00\x00\x00"),
        ],
    )
    ingestor.process_all()
    states = {d.path: (d.embedding_status, d.error_message or "") for d in documents}
    assert states["photo.png"][0] == EmbeddingStatus.ERROR
    assert "photo.png looks binary (it contains NUL bytes)" in states["photo.png"][1]
    assert "not UTF-8" in states["latin1.txt"][1]
    assert "empty" in states["empty.md"][1]
    assert "binary" in states["blob.py"][1]
    done = {d.path: d.embedding_status for d in service.documents.all("mixed")}
    assert done["notes.txt"] == EmbeddingStatus.DONE


def test_reupload_of_unchanged_file_is_not_reembedded(filled: Actions, ingestor: Ingestor) -> None:
    _upload(filled, "handbook", "glossary.rst")
    assert ingestor.process_all() == 0


def test_docset_embedded_with_another_model_cannot_be_searched(
    store: Store, service: Actions
) -> None:
    store.docsets.create("old", "", "openai/text-embedding-3-small@1536", 1536)
    with pytest.raises(EmbeddingModelMismatchError, match="re-embed"):
        service.search.hits(SearchQuery(question="anything", docsets=("old",), floor=False))
    assert (
        service.search.hits(SearchQuery(question="anything", floor=False)) == []
    )  # "all" skips it instead of failing


def test_input_is_validated(service: Actions) -> None:
    with pytest.raises(ValidationError):
        service.docsets.create("   ")
    with pytest.raises(ValidationError):
        service.search.hits(SearchQuery(question="   ", floor=False))
    with pytest.raises(NotFoundError, match="ghost"):
        service.sources.add_files("ghost", [UploadedFile("a.md", b"# a")])
    service.docsets.create("real")
    with pytest.raises(ValidationError):
        service.sources.add_files("real", [])
