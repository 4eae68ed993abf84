"""Wrappers around the real local model: one records what it is asked to embed, one
remembers the vectors it has already computed in this test session."""

import threading
from collections.abc import Sequence

import numpy as np

from ragspace.embedding.embedders import Embedder, Vectors


class RecordingEmbedder:
    """The real local embedder, recording every text and how many texts each call had."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.texts: list[str] = []
        self.calls: list[int] = []

    @property
    def model_id(self) -> str:
        """The wrapped model's id."""
        return self._inner.model_id

    @property
    def dimensions(self) -> int:
        """The wrapped model's vector size."""
        return self._inner.dimensions

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed and record."""
        self.texts.extend(texts)
        self.calls.append(len(texts))
        return self._inner.embed(texts)


class RememberingEmbedder:
    """The real local model, run once per distinct text in a test session.

    Many tests ingest the same files (the handbook, the repository's docs); the model is a
    pure function of the text, so a text it has embedded before gets the vector the model
    returned then. Every vector is the real model's; only the repeated work is skipped.
    What the product's own embedding cache does (per DocSet, in the database) is unaffected:
    it sits in front of this and is what `RecordingEmbedder` observes.
    """

    def __init__(self, model: Embedder) -> None:
        self._model = model
        self._vectors: dict[str, Vectors] = {}
        self._lock = threading.Lock()
        self.texts_embedded = 0

    @property
    def model_id(self) -> str:
        """The model's id."""
        return self._model.model_id

    @property
    def dimensions(self) -> int:
        """The model's vector size."""
        return self._model.dimensions

    def embed(self, texts: Sequence[str]) -> Vectors:
        """The model's vectors; texts seen before in this session are not embedded again."""
        with self._lock:
            missing = [text for text in dict.fromkeys(texts) if text not in self._vectors]
        if missing:
            vectors = self._model.embed(missing)
            with self._lock:
                self._vectors.update(zip(missing, vectors, strict=True))
                self.texts_embedded += len(missing)
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        with self._lock:
            return np.vstack([self._vectors[text] for text in texts])
