"""The local ONNX embedder (real model) and the OpenAI embedder (faked HTTP API)."""

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from ragspace.embedding.embedders import (
    LOCAL_DIMENSIONS,
    LocalEmbedder,
    OpenAIEmbedder,
    Vectors,
    bundled_model_path,
    verify_model_file,
)
from ragspace.errors import EmbeddingError
from tests.fakes.openai_server import FakeOpenAI, rate_limited, running_fake_openai, server_error


def test_local_vectors_are_normalised_and_ordered(local_model: LocalEmbedder) -> None:
    texts = ["short", "a much longer sentence about installing the package with pip", "x"]
    vectors = local_model.embed(texts)
    assert vectors.shape == (3, LOCAL_DIMENSIONS)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # batching sorts by length internally; results must come back in input order
    single = local_model.embed([texts[1]])[0]
    np.testing.assert_allclose(vectors[1], single, atol=1e-5)


def test_local_embedder_captures_meaning(local_model: LocalEmbedder) -> None:
    query, related, unrelated = local_model.embed(
        [
            "How do I install the library?",
            "Installation: run pip install mylib to set it up.",
            "The quarterly revenue of the bakery rose by ten percent.",
        ]
    )
    assert float(query @ related) > float(query @ unrelated) + 0.2


def test_local_embedder_handles_empty_input(local_model: LocalEmbedder) -> None:
    assert local_model.embed([]).shape == (0, LOCAL_DIMENSIONS)


def test_local_batches_give_their_memory_back(
    local_model: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ingestion batch is followed by malloc_trim; a single query is not (it is small)."""
    trims: list[int] = []
    monkeypatch.setattr("ragspace.embedding.embedders.release_free_memory", lambda: trims.append(1))
    local_model.embed(["a query"])
    assert trims == []
    local_model.embed(["one chunk", "another chunk"])
    assert trims == [1]


def test_local_inference_runs_on_two_threads_whatever_calls_it(
    local_model: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Queries and batches from many request threads run on one thread each."""
    seen: list[str] = []
    run = local_model._embed_all

    def recording(texts: Sequence[str]) -> Vectors:
        seen.append(threading.current_thread().name)
        return run(texts)

    monkeypatch.setattr(local_model, "_embed_all", recording)
    alone = local_model.embed(["a query"])[0]
    with ThreadPoolExecutor(max_workers=8) as callers:
        results = list(callers.map(local_model.embed, [["a query"], ["one", "two"]] * 8))
    assert all(np.allclose(r[0], alone) for r in results[::2])  # the same vectors
    assert {name.rsplit("_", 1)[0] for name in seen} == {"embed-query", "embed-batch"}
    assert len(set(seen)) == 2


def test_model_file_is_verified(tmp_path: Path) -> None:
    good = bundled_model_path()
    assert verify_model_file(good, _sha256(good)) == good
    tampered = tmp_path / "model.onnx"
    tampered.write_bytes(good.read_bytes()[:-1] + b"\x00")
    with pytest.raises(EmbeddingError, match="sha256"):
        verify_model_file(tampered, _sha256(good))


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    with running_fake_openai() as fake:
        yield fake


def _openai(fake: FakeOpenAI, **kwargs: object) -> OpenAIEmbedder:
    options: dict[str, object] = {
        "api_key": "sk-test-secret",
        "model": "text-embedding-3-small",
        "dimensions": 8,
        "base_url": fake.base_url,
        "timeout": 5.0,
        "max_retries": 2,
    }
    options.update(kwargs)
    return OpenAIEmbedder(**options)  # type: ignore[arg-type]


def test_openai_embeds_in_batches(fake_openai: FakeOpenAI) -> None:
    texts = [f"text number {i}" for i in range(10)]
    vectors = _openai(fake_openai, batch_size=4).embed(texts)
    assert vectors.shape == (10, 8)
    assert [len(r["input"]) for r in fake_openai.requests] == [4, 4, 2]
    assert fake_openai.requests[0]["model"] == "text-embedding-3-small"
    assert fake_openai.requests[0]["dimensions"] == 8
    assert fake_openai.headers[0]["authorization"] == "Bearer sk-test-secret"
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_openai_retries_after_429(fake_openai: FakeOpenAI) -> None:
    fake_openai.script = [rate_limited(retry_after="0")]
    vectors = _openai(fake_openai).embed(["hello"])
    assert vectors.shape == (1, 8)
    assert len(fake_openai.requests) == 2  # the 429, then the retried success


def test_openai_gives_up_with_a_clear_error(fake_openai: FakeOpenAI) -> None:
    fake_openai.script = [server_error(), server_error(), server_error()]
    with pytest.raises(EmbeddingError, match="answered 500") as caught:
        _openai(fake_openai).embed(["hello"])
    assert len(fake_openai.requests) == 3
    assert "sk-test-secret" not in str(caught.value)


def test_openai_rejects_wrong_dimensions(fake_openai: FakeOpenAI) -> None:
    embedder = _openai(fake_openai, dimensions=8)
    fake_openai.script = []
    original = fake_openai.respond

    def respond_with_16(body: dict[str, object]) -> object:
        return original({**body, "dimensions": 16})

    fake_openai.respond = respond_with_16  # type: ignore[assignment,method-assign]
    with pytest.raises(EmbeddingError, match="16 dimensions"):
        embedder.embed(["hello"])


def test_openai_unreachable_is_an_embedding_error() -> None:
    embedder = OpenAIEmbedder(
        api_key="sk-x",
        model="m",
        dimensions=8,
        base_url="http://127.0.0.1:9/v1",
        timeout=1.0,
        max_retries=0,
    )
    with pytest.raises(EmbeddingError, match="could not be reached"):
        embedder.embed(["hello"])
