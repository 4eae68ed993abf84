"""The fast-tier static embedder: table built from the real MiniLM, cached and verified."""

import json
import threading
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ragspace.embeddings import LOCAL_DIMENSIONS, LocalEmbedder
from ragspace.static_embedder import (
    STATIC_MANIFEST_FILE,
    STATIC_TABLE_FILE,
    FastTier,
    StaticEmbedder,
    TokenEncoder,
    build_table,
    load_table,
    save_table,
)


def test_table_rows_are_the_real_model_output(local_model: LocalEmbedder) -> None:
    # row for "the" (id 1996) is MiniLM's mean-pooled output of "[CLS] the [SEP]"
    table = build_table(local_model.embed_token_ids, vocab_size=2000, batch=700)
    expected = local_model.embed_token_ids(np.array([[101, 1996, 102]], dtype=np.int64))[0]
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


def test_fast_tier_builds_in_the_background_and_stops_when_asked(tmp_path: Path) -> None:
    entered, go = threading.Event(), threading.Event()

    def encoder() -> TokenEncoder:
        def encode(ids: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
            entered.set()
            assert go.wait(30)
            return np.ones((len(ids), LOCAL_DIMENSIONS), dtype=np.float32)

        return encode

    tier = FastTier(tmp_path / "stopped", encoder)
    tier.start()
    assert entered.wait(30)
    assert tier.embedder is None  # still building: ingestion and search do not wait
    assert tier.for_query() is None  # nothing cached yet, so a search does not wait either
    threading.Timer(0, go.set).start()
    tier.stop()
    assert tier.wait(30) is None  # stopped between batches, nothing half-written kept
    assert load_table(tmp_path / "stopped") is None

    done = FastTier(tmp_path / "built", lambda: lambda ids: np.ones((len(ids), 384), "float32"))
    done.start()
    assert done.wait(60) is not None
    assert load_table(tmp_path / "built") is not None
