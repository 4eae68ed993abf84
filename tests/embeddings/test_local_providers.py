"""The local embedder's onnxruntime execution providers (RAGSPACE_LOCAL_EMBEDDING_PROVIDERS):
the CPU by default; a provider this onnxruntime lacks (CUDA without onnxruntime-gpu, as here:
no GPU on the test machine) is refused with what to install, never a silent CPU fallback."""

import numpy as np
import onnxruntime
import pytest

from ragspace.embedding.embedders import CPU_PROVIDER, LocalEmbedder
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


def test_embedders_of_one_process_share_the_loaded_model_per_thread_count() -> None:
    """A second runtime in the same process (CLI commands, the tests) does not check and
    load the model again; another thread count is a session of its own."""
    first, second, other = (
        LocalEmbedder(threads=1),
        LocalEmbedder(threads=1),
        LocalEmbedder(threads=2),
    )
    assert first._session is second._session
    assert other._session is not first._session
    assert other._session.get_session_options().intra_op_num_threads == 2
    texts = ["a sentence", "another one"]
    assert np.allclose(first.embed(texts), other.embed(texts), atol=1e-5)
