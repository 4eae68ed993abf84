"""Search and answers: fusion, vector index, relevance floors, reranking, context."""

from pydantic import Field

from ragspace.settings.area import AreaSettings

# The local model's relevance floors (cosine of the best prose / code hit), calibrated on the
# shared evaluation sets and off-topic questions with bench/relevance_floor.py (figures in
# docs/benchmarks.md). Questions meet prose at higher cosines than code, so each has its own.
LOCAL_RELEVANCE_FLOOR_PROSE = 0.40
LOCAL_RELEVANCE_FLOOR_CODE = 0.24
# Searches whose DocSets hold at most this many chunks rank them by exact vector distance
# instead of walking the HNSW graph shared by every DocSet (ragspace/store/vector_plan.py).
# An exact scan costs about 0.7 µs a chunk on 2 cores (docs/benchmarks.md), so 14 ms here:
# a 10,000-chunk DocSet's hybrid search stays within its 30 ms.
EXACT_SEARCH_MAX_CHUNKS = 20_000
# HNSW candidate list size: the smallest of 400, 600, 800 and 1,000 at which a 100,000-chunk
# DocSet's own graph reaches recall@10 0.99 against exact search on near-random vectors
# (bench/experiments/hnsw_walks.py; shared walks raise it further by the selection's share)
HNSW_EF_SEARCH = 800
# fused hits' candidates taken from each side: 75 won over 50 held out with the ranking tuned
# at 50 (bench/experiments/candidate_depth.py: SWE-QA file R@10 and MRR +0.016 to +0.032, the
# others within 0.01; 1.4-4.3 ms more a search), and the protocol re-tuned the ranking at 75
# (bench/results/quality_pool.json's depth; tests/test_quality_protocol.py checks they agree)
RETRIEVAL_CANDIDATES = 75


class RetrievalSettings(AreaSettings):
    """Search and answers: fusion, vector index, relevance floors, reranking, context."""

    retrieval_mode: str = Field(
        default="hybrid",
        pattern="^(hybrid|vector|keyword)$",
        description="Default search: hybrid (vector + full-text, fused), vector or keyword.",
    )
    retrieval_candidates: int = Field(
        default=RETRIEVAL_CANDIDATES,
        ge=1,
        le=1000,
        description="Candidates taken from each of vector and full-text search before fusion.",
    )
    # the fusion's defaults: the retrieval protocol's choice (bench/results/quality_pool.json),
    # which RankingOptions reads (ranking/options.py)
    fusion: str = Field(
        default="convex",
        pattern="^(convex|rrf)$",
        description=(
            "How hybrid search fuses its rankings: convex (each side's scores scaled to 0-1 "
            "over its candidates, weighed by RAGSPACE_VECTOR_SHARE) or rrf (reciprocal rank "
            "fusion with RAGSPACE_RRF_K and RAGSPACE_KEYWORD_WEIGHT)."
        ),
    )
    vector_share: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="Convex fusion: the vector side's share of a hit's score (0-1).",
    )
    rrf_k: int = Field(
        default=10,
        ge=1,
        description="RRF fusion's constant k: score = sum of weight / (k + rank).",
    )
    keyword_weight: float = Field(
        default=1.25,
        ge=0.0,
        le=10.0,
        description="RRF fusion: weight of the full-text ranking (vectors weigh 1).",
    )
    hnsw_ef_search: int = Field(
        default=HNSW_EF_SEARCH,
        ge=1,
        le=1000,
        description=(
            "HNSW candidate list size at query time, for DocSets too large for an exact scan; "
            "raised as the searched DocSets' share of all chunks shrinks."
        ),
    )
    exact_search_max_chunks: int = Field(
        default=EXACT_SEARCH_MAX_CHUNKS,
        ge=0,
        description=(
            "Searches over DocSets holding at most this many chunks compare every vector "
            "(exact, whatever else the database holds); larger ones use the HNSW index."
        ),
    )
    min_similarity: float = Field(
        default=0.2,
        ge=-1,
        le=1,
        description="Below this cosine similarity, with no keyword match, nothing is relevant.",
    )
    relevance_floor_prose: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description=(
            "An answer says nothing in the DocSets answers the question when no prose hit "
            "reaches this cosine similarity and no code hit reaches the code floor. Unset: "
            f"{LOCAL_RELEVANCE_FLOOR_PROSE} with the local model (calibrated with "
            "bench/relevance_floor.py), off with OpenAI embeddings; 0 turns it off."
        ),
    )
    relevance_floor_code: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description=(
            f"The relevance floor for code hits. Unset: {LOCAL_RELEVANCE_FLOOR_CODE} with the "
            "local model, off with OpenAI embeddings; 0 turns it off."
        ),
    )
    rerank: bool = Field(
        default=True,
        description="Rerank retrieved passages with the chat model (needs OPENAI_API_KEY).",
    )
    rerank_candidates: int = Field(
        default=20,
        ge=2,
        le=50,
        description="How many fused results the chat model reorders.",
    )
    rerank_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        description="Time budget for reranking; past it the fused order is used.",
    )
    context_chars: int = Field(
        default=12_000,
        ge=1000,
        description="Budget (characters) of passages given to the chat model per answer.",
    )
