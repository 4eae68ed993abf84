"""Two embedding tiers on real Postgres, the real MiniLM and the real distilled static table:
new documents are searchable by fast vectors at once, the quality pass replaces them."""

import json
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from ragspace.actions import Actions
from ragspace.embeddings import Embedder, LocalEmbedder, Vectors
from ragspace.models import EmbeddingStatus, RetrievalMode, SearchTier, VectorTier, tier_text
from ragspace.runtime import build_actions, build_chunker, build_retriever, open_runtime
from ragspace.settings import Settings, load_settings
from ragspace.sources.files import UploadedFile
from ragspace.static_embedder import FastTier, StaticEmbedder
from ragspace.store import Store
from ragspace.worker import Ingestor
from ragspace_cli.main import main
from ragspace_ui.status_tab import status_view
from tests.eval.test_evaluation import write_eval_docs

DATA = Path(__file__).parent.parent / "data"
SAMPLES = ["textwrap.py", "deployment-guide.md", "glossary.rst"]
# what textwrap.py does, in words other than its identifiers (wrap, fill, dedent)
PARAPHRASE = "break a long paragraph into lines of limited width"


class GatedEmbedder:
    """The real local embedder; records texts and can hold each call until released."""

    def __init__(self, inner: LocalEmbedder) -> None:
        self.inner = inner
        self.texts: list[str] = []
        self.started = threading.Event()
        self.release = threading.Event()
        self.release.set()

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts.extend(texts)
        self.started.set()
        assert self.release.wait(60), "the test never released the quality embedder"
        return self.inner.embed(texts)


@pytest.fixture
def quality(embedder: Embedder) -> GatedEmbedder:
    return GatedEmbedder(embedder)


@pytest.fixture
def fast(static_embedder: StaticEmbedder) -> FastTier:
    return FastTier.of(static_embedder)


@pytest.fixture
def two_tier(
    store: Store,
    embedder: Embedder,
    quality: GatedEmbedder,
    fast: FastTier,
    settings: Settings,
) -> tuple[Actions, Ingestor]:
    """Search embeds queries with the plain model; only ingestion goes through the gate."""
    service = build_actions(settings, store, embedder, fast=fast)
    ingestor = Ingestor(store, build_chunker(settings), quality, fast=fast)  # type: ignore[arg-type]
    return service, ingestor


def _upload(service: Actions, docset: str, *names: str) -> None:
    service.sources.add_files(docset, [UploadedFile(n, (DATA / n).read_bytes()) for n in names])


def _jobs(store: Store) -> list[tuple[str, int]]:
    with store.pool.connection() as conn:
        rows = conn.execute("select state, attempts from ingestion_jobs order by id").fetchall()
    return [(str(r[0]), int(r[1])) for r in rows]


def test_new_documents_are_searchable_by_fast_vectors_before_the_quality_pass(
    two_tier: tuple[Actions, Ingestor],
    quality: GatedEmbedder,
    store: Store,
    embedder: Embedder,
    fast: FastTier,
    settings: Settings,
) -> None:
    service, ingestor = two_tier
    docset = service.docsets.create("docs")
    _upload(service, "docs", *SAMPLES)
    for _ in SAMPLES:  # every document gets its fast pass before any quality pass
        assert ingestor.process_next()
    assert quality.texts == []  # the quality model has not run at all
    documents = service.documents.all("docs")
    assert {d.vector_tier for d in documents} == {VectorTier.FAST}
    assert {d.embedding_status for d in documents} == {EmbeddingStatus.PENDING}
    chunks, with_fast, with_quality = store.chunks.vector_coverage(docset.id)
    assert chunks == with_fast == sum(d.chunk_count for d in documents) > 0
    assert with_quality == 0
    # vector-only search ranks the fast vectors: the paraphrase finds the code
    hits = service.search.hits(PARAPHRASE, ["docs"], k=5, mode=RetrievalMode.VECTOR)
    assert hits and hits[0].path == "textwrap.py"
    assert all(h.vector_similarity is not None for h in hits)

    assert ingestor.process_all() == len(SAMPLES)  # one quality pass per document
    documents = service.documents.all("docs")
    assert {d.vector_tier for d in documents} == {VectorTier.QUALITY}
    assert {d.embedding_status for d in documents} == {EmbeddingStatus.DONE}
    assert len(quality.texts) == chunks  # every chunk embedded once by the quality model
    assert store.chunks.vector_coverage(docset.id) == (chunks, chunks, chunks)  # fast vectors kept
    # one job row per document: the fast pass requeued it without spending an attempt
    assert _jobs(store) == [("done", 1)] * len(SAMPLES)
    retriever = build_retriever(settings, store, embedder, fast)  # as build_actions wires it
    for tier in SearchTier:
        hits = retriever.search(PARAPHRASE, [docset.id], 5, RetrievalMode.VECTOR, tier)
        assert hits[0].path == "textwrap.py", tier


def test_hybrid_search_weighs_the_fast_ranking_by_the_setting(
    store: Store, embedder: Embedder, fast: FastTier, settings: Settings
) -> None:
    # by default (weight 0) a chunk without its quality vector is found by keywords only;
    # weighted in, its fast-vector rank joins the fusion (docs/benchmarks.md: it scored lower)
    ingestor = Ingestor(store, build_chunker(settings), embedder, fast=fast)
    keywords_only = build_actions(settings, store, embedder, fast=fast)
    weighted = build_actions(settings.replace(fast_tier_weight=1.0), store, embedder, fast=fast)
    keywords_only.docsets.create("docs")
    _upload(keywords_only, "docs", *SAMPLES)
    for _ in SAMPLES:
        assert ingestor.process_next()  # fast passes only
    assert {d.vector_tier for d in keywords_only.documents.all("docs")} == {VectorTier.FAST}

    hits = keywords_only.search.hits(PARAPHRASE, ["docs"], k=10, mode=RetrievalMode.HYBRID)
    assert all(h.vector_similarity is None and h.keyword_rank is not None for h in hits)
    hits = weighted.search.hits(PARAPHRASE, ["docs"], k=10, mode=RetrievalMode.HYBRID)
    assert "textwrap.py" in {h.path for h in hits if h.vector_similarity is not None}
    identifier = keywords_only.search.hits("dedent common leading whitespace", ["docs"], k=3)
    assert identifier[0].path == "textwrap.py"  # keywords alone find what they name


def test_vector_search_ranks_fast_only_chunks_by_their_static_vectors_at_weight_0(
    store: Store, embedder: Embedder, fast: FastTier, settings: Settings
) -> None:
    # the fast ranking's weight (0 by default) is its share in hybrid fusion; vector search has
    # no other ranking for these chunks and must still order them by their static cosine
    assert settings.embedding.fast_tier_weight == 0
    ingestor = Ingestor(store, build_chunker(settings), embedder, fast=fast)
    service = build_actions(settings, store, embedder, fast=fast)
    service.docsets.create("docs")
    _upload(service, "docs", *SAMPLES)
    for _ in SAMPLES:
        assert ingestor.process_next()  # fast passes only
    hits = service.search.hits(PARAPHRASE, ["docs"], k=10, mode=RetrievalMode.VECTOR)
    cosines = [h.vector_similarity for h in hits]
    assert None not in cosines and len(hits) == 10
    assert cosines == sorted(cosines, reverse=True)  # type: ignore[type-var]
    assert hits[0].path == "textwrap.py"


def test_a_document_added_later_gets_its_fast_pass_before_earlier_quality_passes(
    two_tier: tuple[Actions, Ingestor], quality: GatedEmbedder
) -> None:
    service, ingestor = two_tier
    service.docsets.create("docs")
    _upload(service, "docs", "glossary.rst")
    assert ingestor.process_next()  # fast pass; its quality job is now the oldest due
    _upload(service, "docs", "textwrap.py")
    assert ingestor.process_next()
    tiers = {d.path: d.vector_tier for d in service.documents.all("docs")}
    assert tiers == {"glossary.rst": VectorTier.FAST, "textwrap.py": VectorTier.FAST}
    assert quality.texts == []


def test_vector_search_is_never_empty_while_a_document_upgrades(
    two_tier: tuple[Actions, Ingestor], quality: GatedEmbedder
) -> None:
    service, ingestor = two_tier
    service.docsets.create("code")
    _upload(service, "code", "textwrap.py")
    assert ingestor.process_next()  # fast pass
    results: list[list[str]] = []
    searched = threading.Event()
    stop = threading.Event()

    def search() -> None:
        while not stop.is_set():
            hits = service.search.hits(PARAPHRASE, ["code"], k=10, mode=RetrievalMode.VECTOR)
            results.append([h.path for h in hits])
            if quality.started.is_set() and len(results) >= 3:
                searched.set()  # some searches ran while the quality model was working

    quality.release.clear()
    thread = threading.Thread(target=search)
    thread.start()
    upgrade = threading.Thread(target=ingestor.process_all)
    try:
        upgrade.start()
        assert quality.started.wait(60)
        assert searched.wait(60)
        quality.release.set()
        upgrade.join(120)
        before = len(results)
        while len(results) < before + 3 and thread.is_alive():  # and some after the swap
            searched.clear()
            searched.wait(10)
    finally:
        quality.release.set()
        stop.set()
        thread.join()
        upgrade.join()
    assert [d.vector_tier for d in service.documents.all("code")] == [VectorTier.QUALITY]
    assert len(results) >= 6
    assert all(paths and paths[0] == "textwrap.py" for paths in results)


def test_status_shows_both_tiers_progress(
    two_tier: tuple[Actions, Ingestor],
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    service, ingestor = two_tier
    service.docsets.create("docs")
    _upload(service, "docs", "glossary.rst", "textwrap.py")
    assert tier_text(service.documents.all("docs")) == "fast 0/2, quality 0/2"
    ingestor.process_next()
    ingestor.process_next()
    assert "vectors: fast 2/2, quality 0/2" in status_view(service, "docs", None).summary
    ingestor.process_next()
    assert tier_text(service.documents.all("docs")) == "fast 2/2, quality 1/2"

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("RAGSPACE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RAGSPACE_FAST_TIER", "on")  # status never builds or loads the table
    assert main(["status", "docs"]) == 0
    assert "Searchable by vectors: fast 2/2, quality 1/2" in capsys.readouterr().out
    assert main(["status", "docs", "--json"]) == 0
    tiers = json.loads(capsys.readouterr().out)["tiers"]
    assert tiers == {"documents": 2, "fast": 2, "quality": 1}
    assert not (tmp_path / "data" / "static-embedder").exists()


def test_fully_cached_documents_skip_the_fast_pass(
    two_tier: tuple[Actions, Ingestor], quality: GatedEmbedder
) -> None:
    service, ingestor = two_tier
    service.docsets.create("one")
    _upload(service, "one", *SAMPLES)
    ingestor.process_all()
    quality.texts.clear()
    service.docsets.create("two")  # same chunks: their quality vectors are all cached
    _upload(service, "two", *SAMPLES)
    assert ingestor.process_all() == len(SAMPLES)  # straight to quality, one job each
    assert quality.texts == []
    assert {d.vector_tier for d in service.documents.all("two")} == {VectorTier.QUALITY}


def test_changed_content_gets_a_fast_pass_again(
    two_tier: tuple[Actions, Ingestor], quality: GatedEmbedder
) -> None:
    service, ingestor = two_tier
    service.docsets.create("code")
    _upload(service, "code", "textwrap.py")
    ingestor.process_all()
    source = (DATA / "textwrap.py").read_text().replace("def dedent(", "def dedent_text(")
    service.sources.add_files("code", [UploadedFile("textwrap.py", source.encode())])
    [document] = service.documents.all("code")
    assert document.vector_tier is None  # its vectors belong to the old content
    quality.texts.clear()
    assert ingestor.process_next()
    [document] = service.documents.all("code")
    assert document.vector_tier is VectorTier.FAST and quality.texts == []
    hits = service.search.hits("remove common leading whitespace dedent_text", ["code"], k=5)
    assert any("def dedent_text(" in hit.content for hit in hits)  # the new content, at once
    assert ingestor.process_all() == 1
    assert 1 <= len(quality.texts) < document.chunk_count  # only changed chunks re-embedded


def test_fast_tier_off_is_the_single_tier_path(
    service: Actions, ingestor: Ingestor, store: Store
) -> None:
    docset = service.docsets.create("docs")
    _upload(service, "docs", *SAMPLES)
    assert ingestor.process_next()
    first = [d for d in service.documents.all("docs") if d.chunk_count]
    assert [d.vector_tier for d in first] == [VectorTier.QUALITY]  # straight to quality
    assert ingestor.process_all() == len(SAMPLES) - 1
    chunks, with_fast, with_quality = store.chunks.vector_coverage(docset.id)
    assert with_fast == 0 and with_quality == chunks > 0
    assert _jobs(store) == [("done", 1)] * len(SAMPLES)


def test_setting_turns_the_fast_tier_on_with_the_local_model_only() -> None:
    assert load_settings(env_file=None, fast_tier="auto").fast_tier_enabled
    assert not load_settings(
        env_file=None, fast_tier="auto", openai_api_key="sk-x"
    ).fast_tier_enabled
    assert load_settings(env_file=None, fast_tier="on", openai_api_key="sk-x").fast_tier_enabled
    assert not load_settings(env_file=None, fast_tier="off").fast_tier_enabled


def test_runtime_wires_the_fast_tier_from_the_cached_table(
    settings: Settings, static_table_dir: Path
) -> None:
    tiered = settings.replace(fast_tier="on", static_embedder_dir=static_table_dir)
    runtime = open_runtime(tiered, worker_threads=0)
    try:
        assert runtime.fast is not None and runtime.fast.wait(60) is not None
        runtime.actions.docsets.create("code")
        _upload(runtime.actions, "code", "textwrap.py")
        assert runtime.ingestor.process_next()
        [document] = runtime.actions.documents.all("code")
        assert document.vector_tier is VectorTier.FAST
        hits = runtime.actions.search.hits(PARAPHRASE, ["code"], k=3, mode=RetrievalMode.VECTOR)
        assert hits and hits[0].path == "textwrap.py"
    finally:
        runtime.close()
    # a CLI command (models loaded on first use) loads the cached table for its search
    command = open_runtime(tiered, worker_threads=0, load_models=False)
    try:
        assert command.fast is not None and command.fast.embedder is None
        hits = command.actions.search.hits(PARAPHRASE, ["code"], k=3, mode=RetrievalMode.VECTOR)
        assert hits and hits[0].path == "textwrap.py"
    finally:
        command.close()


def test_eval_scores_the_fast_tier_alone(
    tmp_path: Path,
    settings: Settings,
    static_table_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_eval_docs(tmp_path / "docs")
    monkeypatch.chdir(tmp_path)
    assert settings.database.database_url is not None
    monkeypatch.setenv("DATABASE_URL", settings.database.database_url.get_secret_value())
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["eval", str(tmp_path / "docs"), "--tier", "fast"]) == 1  # fast tier off
    assert "RAGSPACE_FAST_TIER=on" in capsys.readouterr().err

    monkeypatch.setenv("RAGSPACE_FAST_TIER", "on")
    monkeypatch.setenv("RAGSPACE_STATIC_EMBEDDER_DIR", str(static_table_dir))
    out = tmp_path / "fast.json"
    assert main(["eval", str(tmp_path / "docs"), "--tier", "fast", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "k = 10 · fast vectors only" in printed
    report = json.loads(out.read_text())["reports"][0]
    assert report["tier"] == "fast"
    vector = next(m for m in report["modes"] if m["mode"] == "vector")
    assert vector["chunk"]["hit@10"] > 0  # the fast vectors alone find gold chunks
    assert np.isfinite(vector["p50_ms"])
