"""How chunks become vectors: the OpenAI or local model, batches and threads."""

from typing import Literal

from pydantic import AliasChoices, Field

from ragspace.settings.area import AreaSettings


class EmbeddingSettings(AreaSettings):
    """How chunks become vectors: the OpenAI or local model, batches and threads."""

    embedding_provider: Literal["auto", "local", "openai"] = Field(
        default="auto",
        description=(
            "Who embeds: auto (the OpenAI-compatible API when OPENAI_API_KEY is set, else the "
            "bundled local model), local (always the local model: keep it with a local chat "
            "model behind OPENAI_BASE_URL, such as Ollama or llama.cpp), or openai."
        ),
    )
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
    local_embedding_providers: str = Field(
        default="CPUExecutionProvider",
        description="onnxruntime execution providers for the local model, comma-separated, in "
        "order of preference; a GPU needs `onnxruntime-gpu` installed in place of `onnxruntime`"
        " and e.g. CUDAExecutionProvider,CPUExecutionProvider (README, Scale out).",
    )
    embedding_concurrency: int = Field(
        default=1,
        ge=1,
        le=32,
        description="Embedding batches of one document in flight at once (raise for OpenAI).",
    )
