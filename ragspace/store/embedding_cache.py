"""The embedding cache: vectors by (model, content hash), so unchanged text is never embedded
twice. All its SQL."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg
from psycopg_pool import ConnectionPool

Vector = np.ndarray[Any, np.dtype[np.float32]]


class EmbeddingCache:
    """Vectors a model already computed, looked up by the hash of the embedded text."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]]) -> None:
        self._pool = pool

    def vectors(self, model: str, content_hashes: Sequence[str]) -> dict[str, Vector]:
        """Vectors already computed by `model` for these content hashes."""
        with self._pool.connection() as conn:
            rows = conn.execute(
                "select content_hash, embedding from embedding_cache"
                " where model = %s and content_hash = any(%s)",
                (model, list(content_hashes)),
            ).fetchall()
        return {str(h): np.asarray(v.to_numpy(), dtype=np.float32) for h, v in rows}


def store_vectors(
    conn: psycopg.Connection[Any], model: str, vectors: dict[str, Vector], overwrite: bool
) -> None:
    """Add vectors to the cache within the caller's transaction (`overwrite`: replace)."""
    if not vectors:
        return
    conn.execute(
        "create temp table if not exists embedding_cache_stage"
        " (content_hash text, embedding vector) on commit delete rows"
    )
    with conn.cursor().copy(
        "copy embedding_cache_stage (content_hash, embedding) from stdin (format binary)"
    ) as copy:
        copy.set_types(["text", "vector"])
        for digest, vector in vectors.items():
            copy.write_row((digest, vector))
    action = "update set embedding = excluded.embedding" if overwrite else "nothing"
    # sorted: two transactions adding overlapping vectors (the same files in two DocSets)
    # then take the rows' locks in the same order and cannot deadlock
    conn.execute(
        "insert into embedding_cache (model, content_hash, embedding)"
        " select %s, content_hash, embedding from embedding_cache_stage order by content_hash"
        f" on conflict (model, content_hash) do {action}".encode(),
        (model,),
    )
