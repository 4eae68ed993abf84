"""An embedder that records what it was asked to embed (the real local model underneath)."""

from collections.abc import Sequence

from ragspace.embeddings import LocalEmbedder, Vectors


class RecordingEmbedder:
    """The real local embedder, recording every text and how many texts each call had."""

    def __init__(self, inner: LocalEmbedder) -> None:
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
