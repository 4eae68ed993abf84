"""The local embedder's onnxruntime execution providers (RAGSPACE_LOCAL_EMBEDDING_PROVIDERS):
the CPU by default; a provider this onnxruntime lacks (CUDA without onnxruntime-gpu, as here:
no GPU on the test machine) is refused with what to install, never a silent CPU fallback."""

import onnxruntime
import pytest

from ragspace.embeddings import CPU_PROVIDER, LocalEmbedder
from ragspace.errors import ConfigError
from ragspace.runtime import build_embedder
from ragspace.settings import load_settings


def test_the_default_runs_on_the_cpu_provider() -> None:
    assert load_settings(env_file=None).embedding.local_embedding_providers == CPU_PROVIDER
    embedder = build_embedder(load_settings(env_file=None))
    assert isinstance(embedder, LocalEmbedder)
    assert embedder._session.get_providers() == [CPU_PROVIDER]
    assert embedder.embed(["a sentence"]).shape == (1, 384)


def test_an_unavailable_gpu_provider_is_refused_with_what_to_install() -> None:
    assert "CUDAExecutionProvider" not in onnxruntime.get_available_providers()  # no GPU here
    settings = load_settings(
        env_file=None, local_embedding_providers="CUDAExecutionProvider, CPUExecutionProvider"
    )
    with pytest.raises(ConfigError, match=r"CUDAExecutionProvider not available.*onnxruntime-gpu"):
        build_embedder(settings)
