"""Uploaded file types end to end: extraction, documents, chunks and citation positions."""

import io
import threading
import zipfile
from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.answering.citations import cite_hit
from ragspace.chunking.chunker import Chunker
from ragspace.embedding.embedders import Embedder
from ragspace.ingestion.worker import Ingestor
from ragspace.models import EmbeddingStatus, Hit, SearchQuery
from ragspace.sources.files import ArchiveLimits, UploadedFile, read_upload, upload_path
from ragspace.store import JobQueue, Store

DATA = Path(__file__).parent.parent / "data"


def _upload(name: str) -> UploadedFile:
    return UploadedFile(name, (DATA / name).read_bytes())


def _small_chunk_ingestor(store: Store, embedder: Embedder) -> Ingestor:
    return Ingestor(store, Chunker(100, 100, 0), embedder)


def test_pdf_text_per_page_and_citations_give_pages(
    service: Actions, store: Store, embedder: Embedder
) -> None:
    service.docsets.create("field")
    [document] = service.sources.add_files("field", [_upload("sample.pdf")])
    assert document.embedding_status is EmbeddingStatus.PENDING
    assert document.size_bytes == len(_upload("sample.pdf").data)  # the file's, not its text's
    _small_chunk_ingestor(store, embedder).process_all()
    chunks = store.chunks.of_document(document.id)
    assert "heron migration" in chunks[0].content
    assert (chunks[0].metadata["page"], chunks[-1].metadata["page"]) == (1, 2)
    otter = next(c for c in chunks if "willow branches" in c.content)
    assert otter.metadata["page"] == otter.metadata["page_end"] == 2
    hit = service.search.hits(
        SearchQuery(
            question="otters build dams from willow", docsets=("field",), limit=1, floor=False
        )
    )[0]
    assert "willow" in hit.content
    assert cite_hit(hit, 1).label == "sample.pdf (page 2)"


def test_notebook_cells_in_order_with_code_fenced(
    service: Actions, store: Store, ingestor: Ingestor
) -> None:
    service.docsets.create("nb")
    [document] = service.sources.add_files("nb", [_upload("sample.ipynb")])
    ingestor.process_all()
    [chunk] = store.chunks.of_document(document.id)
    text = chunk.content
    assert text.index("# Tide analysis") < text.index("```python\nimport csv")
    assert text.index("import csv") < text.index("## Spring tides") < text.index("print(len(rows))")
    assert "42" not in text  # outputs are not indexed, only the cells
    assert (chunk.start_line, chunk.end_line) == (1, text.count("\n") + 1)
    assert (chunk.metadata["cell"], chunk.metadata["cell_end"]) == (1, 4)


def test_notebook_citations_name_cells(service: Actions, store: Store, embedder: Embedder) -> None:
    service.docsets.create("nb")
    [document] = service.sources.add_files("nb", [_upload("sample.ipynb")])
    _small_chunk_ingestor(store, embedder).process_all()
    chunks = store.chunks.of_document(document.id)
    last = next(c for c in chunks if "print(len(rows))" in c.content)
    assert last.metadata["cell_end"] == 4
    spring = next(c for c in chunks if c.content.startswith("## Spring tides"))
    assert spring.metadata["cell"] == 3 and spring.start_line == 10
    hit = service.search.hits(
        SearchQuery(question="spring tides peak at new moon", docsets=("nb",), limit=1, floor=False)
    )[0]
    assert cite_hit(hit, 1).label.startswith("sample.ipynb (cell")


def test_html_becomes_markdown_with_headings_and_anchors(
    service: Actions, store: Store, embedder: Embedder
) -> None:
    service.docsets.create("ice")
    [document] = service.sources.add_files("ice", [_upload("sample.html")])
    assert document.language == "markdown"
    _small_chunk_ingestor(store, embedder).process_all()
    chunks = store.chunks.of_document(document.id)
    text = "\n".join(c.content for c in chunks)
    assert "## Moraines and till" in text and "Copyright" not in text and "Home" not in text
    calving = next(c for c in chunks if "terminus" in c.content)
    assert calving.metadata["anchor"] == "calving"
    moraine = next(c for c in chunks if "ridge of rock debris" in c.content)
    assert moraine.metadata["anchor"] == "moraines"


def test_zip_members_keep_archive_paths_and_bad_members_are_errors(
    service: Actions, store: Store, ingestor: Ingestor
) -> None:
    service.docsets.create("zip")
    documents = {d.path: d for d in service.sources.add_files("zip", [_upload("sample.zip")])}
    assert set(documents) == {
        "sample.zip/docs/guide.md",
        "sample.zip/src/app.py",
        "sample.zip/papers/field.pdf",
        "sample.zip/images/logo.png",
        "sample.zip/../escape.txt",
    }
    png = documents["sample.zip/images/logo.png"]
    assert png.embedding_status is EmbeddingStatus.ERROR
    assert "looks binary (it contains NUL bytes)" in (png.error_message or "")
    escape = documents["sample.zip/../escape.txt"]
    assert escape.embedding_status is EmbeddingStatus.ERROR
    assert "unsafe path '../escape.txt'" in (escape.error_message or "")
    ingestor.process_all()
    [code] = store.chunks.of_document(documents["sample.zip/src/app.py"].id)
    assert (code.content, code.start_line, code.end_line) == (
        "def beacon() -> str:\n    return 'flash'",
        1,
        2,
    )
    [pdf] = store.chunks.of_document(documents["sample.zip/papers/field.pdf"].id)
    assert (pdf.metadata["page"], pdf.metadata["page_end"]) == (1, 2)


def test_zip_bomb_limits_refuse_the_archive() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("big.txt", "a" * 5_000_000)  # compresses to a few kilobytes
    upload = UploadedFile("bomb.zip", buffer.getvalue())
    [document] = read_upload(upload, 10**8, ArchiveLimits(max_total_bytes=1_000_000))
    assert document.path == "bomb.zip"
    assert document.error_message == "bomb.zip expands to 5,000,000 bytes; the limit is 1,000,000."
    many = io.BytesIO()
    with zipfile.ZipFile(many, "w") as archive:
        for number in range(5):
            archive.writestr(f"f{number}.txt", "x")
    [document] = read_upload(UploadedFile("many.zip", many.getvalue()), 10**8, ArchiveLimits(3))
    assert document.error_message == "many.zip has 5 files; the limit is 3."


def test_text_rst_and_code_uploads_keep_exact_lines(
    service: Actions, store: Store, ingestor: Ingestor
) -> None:
    service.docsets.create("plain")
    documents = service.sources.add_files(
        "plain",
        [
            _upload("sample.rst"),
            UploadedFile("notes.txt", b"first line\nsecond line about buoys\n"),
            UploadedFile("tide.go", b"package tide\n\nfunc High() int { return 7 }\n"),
        ],
    )
    assert [d.language for d in documents] == ["rst", "text", "go"]
    ingestor.process_all()
    [rst] = store.chunks.of_document(documents[0].id)
    assert rst.content.startswith("Harbour operations") and (rst.start_line, rst.end_line) == (1, 9)
    [go] = store.chunks.of_document(documents[2].id)
    assert (go.start_line, go.end_line) == (1, 3) and "func High()" in go.content


def test_unreadable_files_are_error_documents_not_dropped(service: Actions) -> None:
    service.docsets.create("bad")
    documents = service.sources.add_files(
        "bad",
        [
            UploadedFile("broken.pdf", b"%PDF-1.4 this is not really a pdf"),
            UploadedFile("notes.ipynb", b"{not json"),
            UploadedFile("photo.jpg", b"\xff\xd8\xff\xe0"),
            UploadedFile("broken.zip", b"PK\x03\x04 truncated"),
        ],
    )
    messages = {d.path: d.error_message or "" for d in documents}
    assert all(d.embedding_status is EmbeddingStatus.ERROR for d in documents)
    assert "broken.pdf is not a readable PDF" in messages["broken.pdf"]
    assert "not a Jupyter notebook" in messages["notes.ipynb"]
    assert "photo.jpg is not UTF-8 text (invalid byte at offset 0)" in messages["photo.jpg"]
    assert messages["broken.zip"] == "broken.zip is not a readable .zip archive."


def test_citation_urls_for_github_and_web_metadata() -> None:
    github = {
        "source": "github",
        "html_url": "https://github.com/o/r",
        "commit": "abc123",
        "repo_path": "src/a b.py",
    }
    hit = Hit(
        chunk_id=1,
        document_id=1,
        docset_name="d",
        path="o/r/src/a b.py",
        title="a b.py",
        ordinal=0,
        content="x",
        start_line=3,
        end_line=9,
        metadata=github,
        score=1.0,
    )
    assert cite_hit(hit, 1).url == "https://github.com/o/r/blob/abc123/src/a%20b.py#L3-L9"
    web = hit.model_copy(update={"metadata": {"url": "https://d.example/p", "anchor": "setup"}})
    assert cite_hit(web, 1).url == "https://d.example/p#setup"
    assert cite_hit(hit.model_copy(update={"metadata": {}}), 1).url is None
    pdf = hit.model_copy(update={"metadata": {**github, "page": 2, "page_end": 2}})
    assert cite_hit(pdf, 1).url == "https://github.com/o/r/blob/abc123/src/a%20b.py"
    assert cite_hit(pdf, 1).label == "o/r/src/a b.py (page 2)"


def test_a_document_changed_while_embedding_is_embedded_again(
    service: Actions, store: Store, ingestor: Ingestor
) -> None:
    service.docsets.create("race")
    [document] = service.sources.add_files(
        "race", [UploadedFile("a.md", b"old words about herons")]
    )
    job = JobQueue(store.pool).claim("test-worker", lease_seconds=60, max_attempts=3)
    assert job is not None and job.document_id == document.id
    service.sources.add_files(
        "race", [UploadedFile("a.md", b"new words about otters")]
    )  # a re-sync
    ingestor._ingest(job, threading.Event())  # the worker finishes the old content after it
    assert store.documents.get(document.id).embedding_status is EmbeddingStatus.PENDING
    assert (
        store.chunks.of_document(document.id)[0].content == "old words about herons"
    )  # served meanwhile
    assert ingestor.process_all() == 1
    assert store.chunks.of_document(document.id)[0].content == "new words about otters"
    assert store.documents.get(document.id).embedding_status is EmbeddingStatus.DONE


@pytest.mark.parametrize(
    ("name", "stored"),
    [
        ("notes.md", "notes.md"),
        ("docs/api/index.md", "docs/api/index.md"),  # `ragspace add files docs/`
        ("./docs/a.md", "docs/a.md"),
        ("/etc/passwd", "passwd"),
        ("../../secret.md", "secret.md"),
        ("docs/../../x.md", "x.md"),
        ("C:\\Users\\me\\notes.md", "notes.md"),
        ("", "unnamed"),
    ],
)
def test_upload_paths_keep_safe_relative_folders(name: str, stored: str) -> None:
    assert upload_path(name) == stored
