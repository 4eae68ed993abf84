"""The keyword pass (issue 37 removed the fast tier of static vectors): a new document's
chunks are stored without vectors at once and found by keyword search; the vector pass then
fills them in. Real Postgres, the real MiniLM; no static vectors anywhere."""

import json
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder, LocalEmbedder, Vectors
from ragspace.errors import VectorsPendingError
from ragspace.ingestion.worker import (
    KEYWORD_BATCH,
    KEYWORD_BATCHES_IN_A_ROW,
    IngestOptions,
    Ingestor,
)
from ragspace.models import RetrievalMode, SearchQuery, VectorTier, tier_text
from ragspace.runtime import build_actions, build_chunker
from ragspace.settings import Settings, load_settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from ragspace.store.jobs import due_query, walk_the_queue
from ragspace_cli.main import main
from ragspace_ui.status_view import status_view

DATA = Path(__file__).parent.parent / "data"
SAMPLES = ["textwrap.py", "deployment-guide.md", "glossary.rst"]
# what textwrap.py does, in words other than its identifiers (wrap, fill, dedent)
PARAPHRASE = "break a long paragraph into lines of limited width"


class RecordingEmbedder:
    """The real local embedder; records every text it is asked to embed."""

    def __init__(self, inner: LocalEmbedder) -> None:
        self.inner = inner
        self.texts: list[str] = []
        self.lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def embed(self, texts: Sequence[str]) -> Vectors:
        with self.lock:
            self.texts.extend(texts)
        return self.inner.embed(texts)


@pytest.fixture
def model(embedder: Embedder) -> RecordingEmbedder:
    return RecordingEmbedder(embedder)  # type: ignore[arg-type]


@pytest.fixture
def keywords_first(
    store: Store, embedder: Embedder, model: RecordingEmbedder, settings: Settings
) -> tuple[Actions, Ingestor]:
    """Search embeds queries with the plain model; ingestion's embedding is recorded."""
    service = build_actions(settings, store, embedder)
    options = IngestOptions(keywords_first=True)
    return service, Ingestor(store, build_chunker(settings), model, options)  # type: ignore[arg-type]


def _upload(service: Actions, docset: str, *names: str) -> None:
    service.sources.add_files(docset, [UploadedFile(n, (DATA / n).read_bytes()) for n in names])


def _jobs(store: Store) -> list[tuple[str, int]]:
    with store.pool.connection() as conn:
        rows = conn.execute("select state, attempts from ingestion_jobs order by id").fetchall()
    return [(str(r[0]), int(r[1])) for r in rows]


def test_new_documents_are_found_by_keywords_before_their_vectors_and_vector_search_says_so(
    keywords_first: tuple[Actions, Ingestor], model: RecordingEmbedder, store: Store
) -> None:
    service, ingestor = keywords_first
    service.docsets.create("docs")
    _upload(service, "docs", *SAMPLES)
    # one batch: every new document's keyword pass, claimed and stored together
    assert ingestor.process_next() == len(SAMPLES)
    documents = service.documents.all("docs")
    assert {d.vector_tier for d in documents} == {VectorTier.KEYWORDS}
    assert model.texts == []  # the keyword pass embeds nothing, with no model of any kind
    assert [state for state, _ in _jobs(store)] == ["queued"] * len(SAMPLES)

    hits = service.search.hits(
        SearchQuery(
            question="dedent", docsets=("docs",), limit=5, mode=RetrievalMode.KEYWORD, floor=False
        )
    )
    assert hits and hits[0].path == "textwrap.py"
    hybrid = service.search.hits(
        SearchQuery(
            question="dedent common leading whitespace", docsets=("docs",), limit=5, floor=False
        )
    )
    assert hybrid and hybrid[0].path == "textwrap.py"  # the keyword side serves it
    waiting = sum(d.chunk_count for d in documents)
    with pytest.raises(VectorsPendingError, match=f"{waiting:,} chunk.* no vectors yet"):
        service.search.hits(
            SearchQuery(
                question=PARAPHRASE,
                docsets=("docs",),
                limit=5,
                mode=RetrievalMode.VECTOR,
                floor=False,
            )
        )

    assert ingestor.process_all() == len(SAMPLES)
    assert {d.vector_tier for d in service.documents.all("docs")} == {VectorTier.QUALITY}
    # one job row per document: the keyword pass requeued it without spending an attempt
    assert _jobs(store) == [("done", 1)] * len(SAMPLES)
    hits = service.search.hits(
        SearchQuery(
            question=PARAPHRASE, docsets=("docs",), limit=5, mode=RetrievalMode.VECTOR, floor=False
        )
    )
    assert hits[0].path == "textwrap.py"


def test_no_static_vectors_are_stored_or_indexed(store: Store) -> None:
    with store.pool.connection() as conn:
        columns = {
            r[0]
            for r in conn.execute(
                "select column_name from information_schema.columns where table_name = 'chunks'"
            )
        }
        indexes = {
            r[0]
            for r in conn.execute("select indexname from pg_indexes where tablename = 'chunks'")
        }
    assert "embedding" in columns and "fast_embedding" not in columns
    assert not any("fast" in name for name in indexes)


def test_a_document_added_later_gets_its_keyword_pass_before_earlier_vector_passes(
    keywords_first: tuple[Actions, Ingestor], model: RecordingEmbedder
) -> None:
    service, ingestor = keywords_first
    service.docsets.create("docs")
    _upload(service, "docs", "glossary.rst")
    assert ingestor.process_next()  # keyword pass; its vector job is now the oldest due
    _upload(service, "docs", "textwrap.py")
    assert ingestor.process_next()
    tiers = {d.path: d.vector_tier for d in service.documents.all("docs")}
    assert tiers == {"glossary.rst": VectorTier.KEYWORDS, "textwrap.py": VectorTier.KEYWORDS}
    assert model.texts == []


def _definitions(store: Store, docset: str) -> list[tuple[str, int, str]]:
    """The DocSet's symbol definitions as (name, first line, xmin): a row written again,
    even with the same values, has a new xmin (the transaction that wrote it)."""
    with store.pool.connection() as conn:
        rows = conn.execute(
            "select s.name, s.start_line, s.xmin::text from symbol_definitions s"
            " join docsets ds on ds.id = s.docset_id where ds.name = %s order by 2, 1",
            (docset,),
        ).fetchall()
    return [(str(name), int(line), str(xmin)) for name, line, xmin in rows]


def test_the_vector_pass_keeps_the_symbol_rows_of_its_keyword_pass_and_a_reembed_renews_them(
    keywords_first: tuple[Actions, Ingestor], store: Store
) -> None:
    service, ingestor = keywords_first
    service.docsets.create("code")
    _upload(service, "code", "textwrap.py")
    assert ingestor.process_next()  # the keyword pass: chunks and symbol rows
    stored = _definitions(store, "code")
    assert {"TextWrapper", "dedent", "fill"} <= {name for name, _, _ in stored}
    assert ingestor.process_all() == 1  # the vector pass, over the same content
    assert _definitions(store, "code") == stored  # kept as they were, not parsed or written

    [document] = service.documents.all("code")
    service.documents.reembed([document.id])  # forced: everything is made again
    assert ingestor.process_all() == 1
    renewed = _definitions(store, "code")
    assert [row[:2] for row in renewed] == [row[:2] for row in stored]
    assert {xmin for *_, xmin in renewed}.isdisjoint(xmin for *_, xmin in stored)


def test_fully_cached_documents_skip_the_keyword_pass(
    keywords_first: tuple[Actions, Ingestor], model: RecordingEmbedder, store: Store
) -> None:
    service, ingestor = keywords_first
    service.docsets.create("one")
    _upload(service, "one", *SAMPLES)
    ingestor.process_all()
    model.texts.clear()
    service.docsets.create("two")  # same chunks: their vectors are all cached
    _upload(service, "two", *SAMPLES)
    assert ingestor.process_all() == len(SAMPLES)  # straight to the vector pass, one job each
    assert model.texts == []
    assert {d.vector_tier for d in service.documents.all("two")} == {VectorTier.QUALITY}
    # the vector pass, the only one, stored the symbol rows
    assert [row[:2] for row in _definitions(store, "two")] == [
        row[:2] for row in _definitions(store, "one")
    ]


def test_changed_content_gets_a_keyword_pass_again(
    keywords_first: tuple[Actions, Ingestor], model: RecordingEmbedder, store: Store
) -> None:
    service, ingestor = keywords_first
    service.docsets.create("code")
    _upload(service, "code", "textwrap.py")
    ingestor.process_all()
    source = (DATA / "textwrap.py").read_text().replace("def dedent(", "def dedent_text(")
    service.sources.add_files("code", [UploadedFile("textwrap.py", source.encode())])
    [document] = service.documents.all("code")
    assert document.vector_tier is None  # its vectors belong to the old content
    model.texts.clear()
    assert ingestor.process_next()
    [document] = service.documents.all("code")
    assert document.vector_tier is VectorTier.KEYWORDS and model.texts == []
    hits = service.search.hits(
        SearchQuery(
            question="remove common leading whitespace dedent_text",
            docsets=("code",),
            limit=5,
            floor=False,
        )
    )
    assert any("def dedent_text(" in hit.content for hit in hits)  # the new content, at once
    assert ingestor.process_all() == 1
    assert 1 <= len(model.texts) < document.chunk_count  # only changed chunks re-embedded
    names = {name for name, _, _ in _definitions(store, "code")}
    assert "dedent_text" in names and "dedent" not in names  # the new content's, kept


def test_status_shows_keywords_and_vectors_progress(
    keywords_first: tuple[Actions, Ingestor],
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    service, ingestor = keywords_first
    service.docsets.create("docs")
    _upload(service, "docs", "glossary.rst", "textwrap.py")
    assert tier_text(service.documents.all("docs")) == "keywords 0/2, vectors 0/2"
    assert ingestor.process_next() == 2  # both keyword passes, in one batch
    assert "searchable: keywords 2/2, vectors 0/2" in status_view(service, "docs", None).summary
    ingestor.process_next()
    assert tier_text(service.documents.all("docs")) == "keywords 2/2, vectors 1/2"

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("RAGSPACE_DATA_DIR", str(tmp_path / "data"))
    assert main(["status", "docs"]) == 0
    assert "Searchable: keywords 2/2, vectors 1/2" in capsys.readouterr().out
    assert main(["status", "docs", "--json"]) == 0
    tiers = json.loads(capsys.readouterr().out)["tiers"]
    assert tiers == {"documents": 2, "keywords": 2, "vectors": 1}


def test_the_keyword_pass_runs_with_the_local_model_and_not_with_openai() -> None:
    assert IngestOptions.from_settings(load_settings(env_file=None)).keywords_first
    openai = load_settings(env_file=None, openai_api_key="sk-x")
    assert not IngestOptions.from_settings(openai).keywords_first
    assert IngestOptions().keywords_first is False  # tests and scripts: one pass per job
    assert not hasattr(load_settings(env_file=None).embedding, "fast_tier")


def test_the_keyword_first_claim_walks_the_queue_index_even_without_statistics(
    service: Actions, store: Store, model: RecordingEmbedder
) -> None:
    # right after a bulk upload the tables have no statistics; sorting every queued job per
    # claim cost 4-7 ms at 3,000 jobs (and grew with the queue), the index walk 0.6 ms
    service.docsets.create("bulk")
    files = [UploadedFile(f"notes/{n}.txt", f"note number {n}\n".encode()) for n in range(3000)]
    service.sources.add_files("bulk", files)
    parameters = {"owner": "test", "lease": 60.0, "max": 3, "limit": KEYWORD_BATCH.documents}
    with (
        store.pool.connection() as conn,
        conn.transaction(force_rollback=True),
        conn.cursor() as cur,
    ):
        walk_the_queue(cur)
        explain = b"explain " + due_query("and d.vector_tier is null")
        plan = "\n".join(str(row[0]) for row in cur.execute(explain, parameters))
    assert "Index Scan using ingestion_jobs_queue_idx" in plan and "Sort" not in plan
    options = IngestOptions(keywords_first=True)
    chunker = build_chunker(load_settings(env_file=None))
    ingestor = Ingestor(store, chunker, model, options)  # type: ignore[arg-type]
    # and the claims it plans take the first batches of jobs, in order
    first = KEYWORD_BATCH.documents * KEYWORD_BATCHES_IN_A_ROW
    assert ingestor.process_next() == first
    searchable = [d.path for d in service.documents.all("bulk") if d.vector_tier]
    assert sorted(searchable) == sorted(f"notes/{n}.txt" for n in range(first))
    assert model.texts == []
