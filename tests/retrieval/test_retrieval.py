"""Hybrid search on the real database: identifiers, paraphrases, DocSet isolation."""

import pytest

from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder
from ragspace.ingestion.worker import Ingestor
from ragspace.models import Fusion, Hit, RetrievalMode, SearchQuery
from ragspace.ranking.candidates import Side
from ragspace.ranking.options import RankingOptions, fusion_only
from ragspace.search.retrieval import RetrievalOptions, Retriever, keyword_terms
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from ragspace.store.keyword_side import BM25_B, BM25_K1
from tests.fakes.embedders import RecordingEmbedder

# Many passages about error handling in general, one table that names the exact code.
ERROR_GUIDE = [
    (
        f"errors-{topic}.md",
        f"# Handling {topic} errors\n\nWhen a {topic} error happens, the service logs the error "
        f"code and its meaning, retries the operation and reports what went wrong to the caller. "
        f"Every error code has a documented meaning and a recommended action for operators.\n",
    )
    for topic in ("network", "database", "storage", "timeout", "permission", "quota", "config")
]
CODE_TABLE = (
    "lease-table.md",
    "# Worker internals\n\nThe scheduler assigns shards to workers in rounds. Heartbeats are sent "
    "every ten seconds.\n\n| code | when |\n|---|---|\n| E4711 | the heartbeat stopped and the "
    "lease ran out |\n| E4712 | the shard moved to another worker |\n",
)
VERBOSITY = (
    "logging.md",
    "# Logging\n\nSet LOG_LEVEL=WARNING to reduce verbosity; DEBUG prints every SQL statement.\n",
)


@pytest.fixture
def corpus(service: Actions, ingestor: Ingestor) -> Actions:
    service.docsets.create("ops")
    files = [*ERROR_GUIDE, CODE_TABLE, VERBOSITY]
    service.sources.add_files("ops", [UploadedFile(name, text.encode()) for name, text in files])
    service.docsets.create("elsewhere")
    service.sources.add_files(
        "elsewhere",
        [
            UploadedFile(
                f"other-{n}.md", f"# E4711 note {n}\n\nE4711 also appears here.\n".encode()
            )
            for n in range(30)
        ],
    )
    ingestor.process_all()
    return service


def _rank(hits: list, path: str) -> int | None:  # type: ignore[type-arg]
    paths = [hit.path for hit in hits]
    return paths.index(path) + 1 if path in paths else None


def test_exact_identifier_is_found_by_hybrid_not_by_vector(corpus: Actions) -> None:
    question = "What does error code E4711 mean?"
    vector = corpus.search.hits(
        SearchQuery(
            question=question, docsets=("ops",), limit=5, mode=RetrievalMode.VECTOR, floor=False
        )
    )
    hybrid = corpus.search.hits(
        SearchQuery(
            question=question, docsets=("ops",), limit=5, mode=RetrievalMode.HYBRID, floor=False
        )
    )
    vector_rank = _rank(vector, "lease-table.md")
    assert vector_rank is None or vector_rank > 2, "the identifier should defeat vector search"
    assert _rank(hybrid, "lease-table.md") == 1
    assert hybrid[0].keyword_rank == 1


def test_paraphrase_without_shared_keywords_is_found(corpus: Actions) -> None:
    question = "How can I make the program quieter?"
    assert (
        corpus.search.hits(
            SearchQuery(
                question=question,
                docsets=("ops",),
                limit=5,
                mode=RetrievalMode.KEYWORD,
                floor=False,
            )
        )
        == []
    )
    hybrid = corpus.search.hits(
        SearchQuery(
            question=question, docsets=("ops",), limit=3, mode=RetrievalMode.HYBRID, floor=False
        )
    )
    assert _rank(hybrid, "logging.md") == 1


@pytest.mark.parametrize("mode", list(RetrievalMode))
def test_unselected_docsets_never_leak(corpus: Actions, mode: RetrievalMode) -> None:
    hits = corpus.search.hits(
        SearchQuery(
            question="E4711 heartbeat lease", docsets=("ops",), limit=20, mode=mode, floor=False
        )
    )
    assert hits
    assert {hit.docset_name for hit in hits} == {"ops"}
    other = corpus.search.hits(
        SearchQuery(
            question="E4711 heartbeat lease",
            docsets=("elsewhere",),
            limit=20,
            mode=mode,
            floor=False,
        )
    )
    assert {hit.docset_name for hit in other} == {"elsewhere"}


def test_keyword_mode_returns_only_keyword_matches(corpus: Actions) -> None:
    hits = corpus.search.hits(
        SearchQuery(
            question="heartbeat shards",
            docsets=("ops",),
            limit=10,
            mode=RetrievalMode.KEYWORD,
            floor=False,
        )
    )
    assert [hit.path for hit in hits] == ["lease-table.md"]
    assert hits[0].vector_similarity is None


@pytest.mark.usefixtures("corpus")
@pytest.mark.parametrize("share", [0.35, 0.8])
def test_convex_scores_add_each_sides_scaled_score(
    store: Store, embedder: Embedder, share: float
) -> None:
    """Hybrid score = share * scaled cosine + (1 - share) * scaled keyword score, each side
    scaled to 0-1 over its own candidates (here every chunk of "ops" is a vector candidate)."""
    ops = [store.docsets.named("ops").id]
    retriever = Retriever(
        store,
        embedder,
        RetrievalOptions(
            ranking=fusion_only(RankingOptions(fusion=Fusion.CONVEX, vector_share=share)),
            keyword_ranking=fusion_only(RankingOptions(vector_share=share)),
        ),
    )

    def scores(mode: RetrievalMode) -> dict[int, Hit]:
        return {h.chunk_id: h for h in retriever.fused("E4711 lease", ops, 50, mode)}

    hybrid = scores(RetrievalMode.HYBRID)
    vector, keyword = scores(RetrievalMode.VECTOR), scores(RetrievalMode.KEYWORD)
    assert keyword and len(vector) > len(keyword)
    cosines = [h.vector_similarity for h in vector.values() if h.vector_similarity is not None]
    low, high = min(cosines), max(cosines)
    for hit in vector.values():
        assert hit.vector_similarity is not None
        assert hit.score == pytest.approx(share * (hit.vector_similarity - low) / (high - low))
    assert max(h.score for h in keyword.values()) == pytest.approx(1 - share)
    assert all(0.0 <= h.score <= 1 - share + 1e-9 for h in keyword.values())
    assert hybrid.keys() == vector.keys() | keyword.keys()
    for chunk_id, hit in hybrid.items():
        parts = [side[chunk_id].score for side in (vector, keyword) if chunk_id in side]
        assert hit.score == pytest.approx(sum(parts))


def test_keyword_scores_follow_bm25(
    service: Actions, ingestor: Ingestor, store: Store, embedder: Embedder
) -> None:
    """More occurrences count, with diminishing returns; a longer chunk needs more of them;
    the keyword side's scaled scores are exactly BM25's (the IDF is the same for all three)."""
    filler = " ".join(f"word{n}" for n in range(80))
    files = {
        "once.md": "The zebra crossed the road.\n",
        "thrice.md": "The zebra, a zebra and one more zebra crossed the road.\n",
        "long.md": f"The zebra crossed the road. {filler}\n",
        "none.md": "A horse crossed the road.\n",
    }
    service.docsets.create("animals")
    service.sources.add_files("animals", [UploadedFile(n, t.encode()) for n, t in files.items()])
    ingestor.process_all()
    docset = store.docsets.named("animals").id
    share = 0.5
    alone = fusion_only(RankingOptions(vector_share=share))
    retriever = Retriever(store, embedder, RetrievalOptions(ranking=alone, keyword_ranking=alone))
    hits = retriever.fused("zebra", [docset], 10, RetrievalMode.KEYWORD)
    assert [h.path for h in hits] == ["thrice.md", "once.md", "long.md"]
    with store.pool.connection() as conn:
        rows = conn.execute(
            "select d.path, c.fts_words from chunks c join documents d on d.id = c.document_id"
            " where c.docset_id = %s",
            (docset,),
        ).fetchall()
        total = conn.execute(
            "select words::float8 / chunks from docset_lengths where docset_id = %s", (docset,)
        ).fetchone()
    assert total is not None
    words, average = dict(rows), float(total[0])
    assert words["long.md"] > words["once.md"] + 70

    def bm25(path: str, tf: int) -> float:
        length = 1 - BM25_B + BM25_B * words[path] / average
        return tf * (BM25_K1 + 1) / (tf + BM25_K1 * length)

    best, middle, worst = bm25("thrice.md", 3), bm25("once.md", 1), bm25("long.md", 1)
    scaled = [h.score / (1 - share) for h in hits]
    assert scaled == pytest.approx([1.0, (middle - worst) / (best - worst), 0.0])


@pytest.mark.usefixtures("corpus")
def test_rrf_scores_are_fused_reciprocal_ranks(store: Store, embedder: Embedder) -> None:
    options = RetrievalOptions(
        ranking=fusion_only(RankingOptions(fusion=Fusion.RRF, rrf_k=10, keyword_weight=1.25))
    )
    ops = [store.docsets.named("ops").id]
    hits = Retriever(store, embedder, options).fused("E4711 lease", ops, 3, RetrievalMode.HYBRID)
    top = hits[0]
    assert top.keyword_rank is not None and top.vector_similarity is not None
    k, keyword_weight = options.ranking.rrf_k, options.ranking.keyword_weight
    vector_part = top.score - keyword_weight / (k + top.keyword_rank)
    vector_rank = 1 / vector_part - k  # 1 / (k + rank) from the vector side
    assert vector_rank == pytest.approx(round(vector_rank)) and vector_rank >= 1
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


CLIENT_CODE = """class HTTPRetryPolicy:
    def __init__(self, max_retries: int) -> None:
        self.max_retries = max_retries

    def fetchUserProfile(self, user_id: str) -> dict:
        return self.session.get(f"/users/{user_id}").json()

    def verbose(self) -> bool:
        return self.logger.getEffectiveLevel() <= 10
"""


def test_keyword_search_finds_the_words_inside_identifiers(
    service: Actions, ingestor: Ingestor, store: Store
) -> None:
    """camelCase, PascalCase and dotted names are indexed by their words too, and whole."""
    with store.pool.connection() as conn:
        row = conn.execute(
            "select identifier_words("
            "'fetchUserProfile HTTPRetryPolicy self.max_retries logger.getEffectiveLevel() plain')"
        ).fetchone()
    assert row == (
        "fetch User Profile HTTP Retry Policy self max retries"
        " logger get Effective Level getEffectiveLevel",
    )
    service.docsets.create("client")
    service.sources.add_files(
        "client",
        [
            UploadedFile("client.py", CLIENT_CODE.encode()),
            *(UploadedFile(name, text.encode()) for name, text in ERROR_GUIDE),
        ],
    )
    ingestor.process_all()
    # the words of these questions appear in the code only inside camelCase identifiers;
    # a method called on an object is found by its own name
    questions = ("How is a profile fetched?", "the retry policy", "getEffectiveLevel")
    for question in (*questions, "fetchUserProfile"):
        hits = service.search.hits(
            SearchQuery(
                question=question,
                docsets=("client",),
                limit=5,
                mode=RetrievalMode.KEYWORD,
                floor=False,
            )
        )
        assert [hit.path for hit in hits][:1] == ["client.py"], question


def test_keyword_terms_keep_identifiers_once() -> None:
    assert keyword_terms("How does parse_config() use --max-retries? parse_config!") == [
        "how",
        "does",
        "parse_config",
        "use",
        "max-retries",
    ]
    assert keyword_terms("   ") == []


def test_a_long_section_yields_one_hit_and_leaves_room_for_other_sections(
    service: Actions, ingestor: Ingestor
) -> None:
    paragraph = (
        "Streaming responses arrive as server-sent events; each event carries a delta of the "
        "streamed message text and the client appends the deltas in order.\n\n"
    )
    guide = (
        "# Streaming guide\n\n## Streaming events\n\n"
        + paragraph * 12
        + "## Streaming errors\n\nAn error event in the stream ends the streamed response.\n\n"
        + "## Streaming with tools\n\nTool use deltas stream as partial JSON events.\n"
    )
    service.docsets.create("guide")
    service.sources.add_files("guide", [UploadedFile("streaming.md", guide.encode())])
    ingestor.process_all()
    chunks_of_long_section = [
        hit
        for hit in service.search.hits(
            SearchQuery(
                question="streaming events",
                docsets=("guide",),
                limit=50,
                mode=RetrievalMode.KEYWORD,
                floor=False,
            )
        )
        if hit.metadata.get("anchor") == "streaming-events"
    ]
    hits = service.search.hits(
        SearchQuery(question="streamed response events", docsets=("guide",), limit=3, floor=False)
    )
    anchors = [hit.metadata.get("anchor") for hit in hits]
    assert len(chunks_of_long_section) == 1, "several chunks of one section: one hit stands for it"
    assert sorted(anchors) == ["streaming-errors", "streaming-events", "streaming-with-tools"]


@pytest.mark.usefixtures("corpus")
def test_hits_only_the_keyword_side_found_get_their_similarity_measured(
    store: Store, embedder: Embedder
) -> None:
    question = "heartbeats of shards and the verbosity of logging"
    ops = [store.docsets.named("ops").id]
    retriever = Retriever(store, embedder, RetrievalOptions())
    # what the keyword side found carries no cosine from the search
    hits = retriever.search(
        SearchQuery(question=question, mode=RetrievalMode.KEYWORD).within(ops), 5
    )
    assert len(hits) >= 2 and all(hit.vector_similarity is None for hit in hits)
    measured = retriever.with_similarity(question, hits)
    assert [h.chunk_id for h in measured] == [h.chunk_id for h in hits]  # order kept
    assert all(h.vector_similarity is not None for h in measured)
    # the same cosines a vector search over every chunk reports
    exact = {
        h.chunk_id: h.vector_similarity
        for h in retriever.search(
            SearchQuery(question=question, mode=RetrievalMode.VECTOR).within(ops), 50
        )
    }
    for hit in measured:
        assert hit.vector_similarity == pytest.approx(exact[hit.chunk_id], abs=1e-5)


@pytest.mark.usefixtures("corpus")
def test_a_measured_hybrid_search_embeds_the_query_once(store: Store, embedder: Embedder) -> None:
    question = "What does error code E4711 mean?"
    docsets = [store.docsets.named(name).id for name in ("ops", "elsewhere")]
    recording = RecordingEmbedder(embedder)
    # a vector side of few candidates: the keyword side brings hits of its own
    options = RetrievalOptions(candidates=2)
    retriever = Retriever(store, recording, options)  # type: ignore[arg-type]
    plain = retriever.search(
        SearchQuery(question=question, mode=RetrievalMode.HYBRID).within(docsets), 8
    )
    assert any(hit.vector_similarity is None for hit in plain)  # some only keywords found
    recording.calls.clear()
    measured = retriever.search(
        SearchQuery(question=question, mode=RetrievalMode.HYBRID).within(docsets), 8, measured=True
    )
    assert [h.chunk_id for h in measured] == [h.chunk_id for h in plain]
    assert all(hit.vector_similarity is not None for hit in measured)
    assert recording.calls == [1]  # the search's own query vector measured the rest


@pytest.mark.usefixtures("corpus")
def test_the_keyword_ranking_weighs_as_configured(store: Store, embedder: Embedder) -> None:
    question = "What does error code E4711 mean?"
    docsets = [store.docsets.named(name).id for name in ("ops", "elsewhere")]

    def fused(keyword_weight: float) -> dict[int, Hit]:
        options = RetrievalOptions(
            ranking=fusion_only(
                RankingOptions(fusion=Fusion.RRF, rrf_k=10, keyword_weight=keyword_weight)
            )
        )
        retriever = Retriever(store, embedder, options)
        return {h.chunk_id: h for h in retriever.fused(question, docsets, 20, RetrievalMode.HYBRID)}

    light, heavy = fused(0.5), fused(3.0)
    matched = [i for i in light.keys() & heavy.keys() if light[i].keyword_rank is not None]
    assert matched
    for chunk_id in matched:
        rank = light[chunk_id].keyword_rank
        assert rank is not None and heavy[chunk_id].keyword_rank == rank
        # the vector side's share is the same in both; the keyword side's is weight / (k + rank)
        difference = heavy[chunk_id].score - light[chunk_id].score
        assert difference == pytest.approx((3.0 - 0.5) / (10 + rank))


@pytest.mark.usefixtures("corpus")
def test_only_the_rankings_with_keywords_ask_for_the_file_side(
    store: Store, embedder: Embedder
) -> None:
    # "worker internals" is lease-table.md's heading: its card holds it
    question = "How do the worker internals assign shards?"
    ops = [store.docsets.named("ops").id]
    retriever = Retriever(store, embedder, RetrievalOptions())

    def file_side(mode: RetrievalMode) -> list[str]:
        found = retriever.candidates(question, ops, 10, mode)
        return [c.hit.path for c in found if c.on(Side.FILE)]

    assert file_side(RetrievalMode.HYBRID)[:1] == ["lease-table.md"]
    # a keyword-only search reads the cards too (search/keyword_ranking.py); vectors alone not
    assert file_side(RetrievalMode.KEYWORD)[:1] == ["lease-table.md"]
    assert file_side(RetrievalMode.VECTOR) == []
