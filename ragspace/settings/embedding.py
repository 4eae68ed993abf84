"""How chunks become vectors: the OpenAI or local model, batches and threads."""

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field

from ragspace.settings.area import AreaSettings


class EmbeddingSettings(AreaSettings):
    """How chunks become vectors: the OpenAI or local model, batches and threads."""

    openai_embedding_model: str = Field(
        default="text-embedding-3-small",
        validation_alias=AliasChoices("OPENAI_EMBEDDING_MODEL"),
        description="Embedding model used when OPENAI_API_KEY is set.",
    )
    openai_embedding_dimensions: int = Field(
        default=1536,
        ge=1,
        le=2000,
        validation_alias=AliasChoices("OPENAI_EMBEDDING_DIMENSIONS"),
        description="Vector size requested from the OpenAI embedding model.",
    )
    embedding_batch_size: int = Field(
        default=32,
        ge=1,
        le=2048,
        description="Texts per embedding call (one OpenAI request; a step of ingestion progress).",
    )
    local_embedding_batch_size: int = Field(
        default=4,
        ge=1,
        le=256,
        description=(
            "Texts per inference of the local model. Small batches pad least: on 2 cores 4 ran "
            "about 1.4x faster than 32 (docs/benchmarks.md)."
        ),
    )
    local_embedding_threads: int = Field(
        default=0,
        ge=0,
        description="onnxruntime intra-op threads for the local embedder; 0 = all cores.",
    )
    embedding_concurrency: int = Field(
        default=1,
        ge=1,
        le=32,
        description="Embedding batches of one document in flight at once (raise for OpenAI).",
    )
    fast_tier_weight: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description=(
            "Weight of the fast tier's vector ranking in hybrid fusion (1 = as much as the "
            "quality vectors' ranking). 0: a chunk without its quality vector yet is found by "
            "keywords only, which scored higher on both shared sets than any fusion with the "
            "static vectors (docs/benchmarks.md); vector mode still ranks it by its static "
            "vector."
        ),
    )
    fast_tier: Literal["auto", "on", "off"] = Field(
        default="auto",
        description=(
            "Fast embedding tier: new documents get static vectors (distilled from the bundled "
            "MiniLM) and are searchable in seconds, then the quality model replaces them in the "
            "background. auto = on with the local model, off with OpenAI embeddings."
        ),
    )
    static_embedder_dir: Path | None = Field(
        default=None,
        description=(
            "Folder of the fast tier's static table (built from the bundled model at first "
            "start, about a minute on 2 cores); unset: static-embedder/ in the data folder."
        ),
    )
