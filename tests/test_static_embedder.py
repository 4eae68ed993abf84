"""The fast-tier static embedder: table built from the real MiniLM, cached and verified."""

import json
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from ragspace.embeddings import LOCAL_DIMENSIONS, LocalEmbedder
from ragspace.static_embedder import (
    STATIC_MANIFEST_FILE,
    STATIC_TABLE_FILE,
    StaticEmbedder,
    TokenEncoder,
    build_table,
    load_table,
    save_table,
)


@pytest.fixture(scope="module")
def static_embedder(request: pytest.FixtureRequest) -> StaticEmbedder:
    """Built from the bundled model (full vocabulary, ~2 min on 2 cores), kept in pytest's
    cache between runs; the manifest check rebuilds it if the model or format changed."""
    return StaticEmbedder.load_or_build(request.config.cache.mkdir("static-embedder"))


def test_table_rows_are_the_real_model_output(embedder: LocalEmbedder) -> None:
    # row for "the" (id 1996) is MiniLM's mean-pooled output of "[CLS] the [SEP]"
    table = build_table(embedder.embed_token_ids, vocab_size=2000, batch=700)
    expected = embedder.embed_token_ids(np.array([[101, 1996, 102]], dtype=np.int64))[0]
    np.testing.assert_allclose(table[1996], expected, atol=1e-5)
    assert table.shape == (2000, LOCAL_DIMENSIONS)


def test_static_vectors_capture_meaning(static_embedder: StaticEmbedder) -> None:
    query, related, unrelated = static_embedder.embed(
        [
            "How do I install the library?",
            "Installation: run pip install mylib to set it up.",
            "The quarterly revenue of the bakery rose by ten percent.",
        ]
    )
    assert float(query @ related) > float(query @ unrelated) + 0.1
    vectors = static_embedder.embed(["def parse_config(path):", "", "x"])
    np.testing.assert_allclose(np.linalg.norm(vectors[[0, 2]], axis=1), 1.0, atol=1e-5)
    assert not vectors[1].any()  # nothing to average: a zero vector, not NaN


def test_cache_is_reused_and_rebuilt_when_damaged(tmp_path: Path) -> None:
    calls: list[int] = []

    def encoder() -> TokenEncoder:
        calls.append(1)

        def encode(ids: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
            rows = np.zeros((len(ids), LOCAL_DIMENSIONS), dtype=np.float32)
            rows[:, 0] = ids[:, 1]
            return rows

        return encode

    StaticEmbedder.load_or_build(tmp_path, encoder)
    StaticEmbedder.load_or_build(tmp_path, encoder)
    assert len(calls) == 1  # second start loads the cached table
    table = load_table(tmp_path)
    assert table is not None and table[2000, 0] == 2000.0

    (tmp_path / STATIC_TABLE_FILE).write_bytes(b"damaged")
    assert load_table(tmp_path) is None
    StaticEmbedder.load_or_build(tmp_path, encoder)
    assert len(calls) == 2

    save_table(tmp_path, table)
    manifest = json.loads((tmp_path / STATIC_MANIFEST_FILE).read_text())
    manifest["source_model_sha256"] = "0" * 64  # built from another model: stale
    (tmp_path / STATIC_MANIFEST_FILE).write_text(json.dumps(manifest))
    assert load_table(tmp_path) is None
