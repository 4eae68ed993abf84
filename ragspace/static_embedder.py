"""Fast tier: a static embedding model distilled from the bundled MiniLM (model2vec-style).

Every vocabulary token is run through the ONNX model once, alone between [CLS] and [SEP];
its mean-pooled output becomes that token's vector. A text is then embedded by averaging
the vectors of its tokens, weighted so that frequent word pieces count less, with no
transformer at index or query time. The table is built from the verified bundled model on
first use and cached in the data folder with a manifest (format version, source model
sha256, table sha256), so nothing is downloaded and a stale or damaged cache is rebuilt.
"""

import hashlib
import json
import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ragspace.embeddings import LOCAL_DIMENSIONS, LOCAL_MODEL_SHA256, Vectors, _l2_normalise
from ragspace.errors import EmbeddingError
from ragspace.tokens import bundled_tokenizer

log = logging.getLogger(__name__)

STATIC_FORMAT_VERSION = 1
STATIC_MODEL_ID = f"local/all-MiniLM-L6-v2-static-v{STATIC_FORMAT_VERSION}"
STATIC_TABLE_FILE = "minilm-static.npy"
STATIC_MANIFEST_FILE = "minilm-static.json"
# Texts are cut to this many word pieces; averaging is cheap, so the cap is generous.
STATIC_MAX_TOKENS = 2048
_BUILD_BATCH = 512
# [PAD] [UNK] [CLS] [SEP] [MASK] and the unused slots carry no meaning of their own
_SPECIAL_PREFIXES = ("[PAD]", "[CLS]", "[SEP]", "[MASK]", "[unused")

TokenEncoder = Callable[[npt.NDArray[np.int64]], Vectors]


def token_weights(vocab: dict[str, int]) -> npt.NDArray[np.float32]:
    """Weight per token id: log of the WordPiece rank, a Zipf proxy for rarity.

    The WordPiece vocabulary is ordered by how often pieces were merged, so a higher id is
    (roughly) a rarer piece; model2vec uses the same rank weighting.
    """
    size = max(vocab.values()) + 1
    weights = np.zeros(size, dtype=np.float32)
    for token, index in vocab.items():
        if not token.startswith(_SPECIAL_PREFIXES):
            weights[index] = math.log(index + 2)
    return weights


class BuildCancelledError(Exception):
    """The table build was stopped (the app is shutting down)."""


def build_table(
    encode: TokenEncoder,
    vocab_size: int,
    batch: int = _BUILD_BATCH,
    cancel: threading.Event | None = None,
) -> Vectors:
    """Mean-pooled output of each token id, alone between [CLS] and [SEP], L2-normalised."""
    cls_id, sep_id = 101, 102
    table = np.zeros((vocab_size, LOCAL_DIMENSIONS), dtype=np.float32)
    for start in range(0, vocab_size, batch):
        if cancel is not None and cancel.is_set():
            raise BuildCancelledError
        ids = np.arange(start, min(start + batch, vocab_size), dtype=np.int64)
        rows = np.stack([np.full_like(ids, cls_id), ids, np.full_like(ids, sep_id)], axis=1)
        table[ids] = encode(rows)
    return table


def onnx_token_encoder(threads: int = 0) -> TokenEncoder:
    """Runs the bundled (sha256-verified) MiniLM on rows of token ids, mean-pooled."""
    from ragspace.embeddings import LocalEmbedder

    embedder = LocalEmbedder(threads=threads)

    def encode(ids: npt.NDArray[np.int64]) -> Vectors:
        return embedder.embed_token_ids(ids)

    return encode


class StaticEmbedder:
    """Weighted mean of per-token vectors from the distilled table; ~1000x cheaper than MiniLM."""

    def __init__(self, table: Vectors, weights: npt.NDArray[np.float32]) -> None:
        if table.shape != (weights.shape[0], LOCAL_DIMENSIONS):
            raise EmbeddingError(
                f"The static embedding table has shape {table.shape}, expected "
                f"({weights.shape[0]}, {LOCAL_DIMENSIONS}); delete it so it is rebuilt."
            )
        self._weighted = table * weights[:, None]
        self._weights = weights
        self._tokenizer = bundled_tokenizer()
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=STATIC_MAX_TOKENS)

    @classmethod
    def load_or_build(
        cls,
        folder: Path,
        encoder: Callable[[], TokenEncoder] = onnx_token_encoder,
        cancel: threading.Event | None = None,
    ) -> "StaticEmbedder":
        """The cached table in `folder`, built from the bundled model first if missing or stale."""
        tokenizer = bundled_tokenizer()
        vocab: dict[str, int] = tokenizer.get_vocab()
        table = load_table(folder)
        if table is None:
            log.info("Building the fast-tier static embedding table in %s (once)", folder)
            started = time.monotonic()
            table = build_table(encoder(), max(vocab.values()) + 1, cancel=cancel)
            save_table(folder, table)
            log.info("Built the static embedding table in %.0f s", time.monotonic() - started)
        return cls(table, token_weights(vocab))

    @property
    def model_id(self) -> str:
        """See `Embedder.model_id`."""
        return STATIC_MODEL_ID

    @property
    def dimensions(self) -> int:
        """See `Embedder.dimensions`."""
        return LOCAL_DIMENSIONS

    def embed(self, texts: Sequence[str]) -> Vectors:
        """See `Embedder.embed`."""
        result = np.zeros((len(texts), LOCAL_DIMENSIONS), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        for row, encoding in enumerate(encodings):
            ids = np.asarray(encoding.ids, dtype=np.int64)
            total = float(self._weights[ids].sum()) if len(ids) else 0.0
            if total > 0:
                result[row] = self._weighted[ids].sum(axis=0) / total
        return _l2_normalise(result)


def save_table(folder: Path, table: Vectors) -> None:
    """Write the table and its manifest; the manifest goes last so a torn write is ignored."""
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / (STATIC_TABLE_FILE + ".partial")
    with partial.open("wb") as handle:
        np.save(handle, table)
    partial.replace(folder / STATIC_TABLE_FILE)
    manifest = {
        "format_version": STATIC_FORMAT_VERSION,
        "source_model_sha256": LOCAL_MODEL_SHA256,
        "table_sha256": _sha256(folder / STATIC_TABLE_FILE),
        "shape": list(table.shape),
    }
    (folder / STATIC_MANIFEST_FILE).write_text(json.dumps(manifest, indent=2), encoding="utf-8")


def load_table(folder: Path) -> Vectors | None:
    """The cached table if its manifest matches this version, model and file; else None."""
    manifest_path, table_path = folder / STATIC_MANIFEST_FILE, folder / STATIC_TABLE_FILE
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    expected = {
        "format_version": STATIC_FORMAT_VERSION,
        "source_model_sha256": LOCAL_MODEL_SHA256,
    }
    if any(manifest.get(key) != value for key, value in expected.items()):
        log.info("The static embedding table in %s is out of date; rebuilding it", folder)
        return None
    if not table_path.is_file() or _sha256(table_path) != manifest.get("table_sha256"):
        log.warning("The static embedding table in %s is damaged; rebuilding it", folder)
        return None
    table: Vectors = np.load(table_path).astype(np.float32)
    return table


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class FastTier:
    """The fast-tier embedder, loaded (or built, the first time) in a background thread.

    Until it is ready, ingestion goes straight to the quality model and search uses the
    quality vectors and keywords only: nothing waits for the table.
    """

    def __init__(self, folder: Path, encoder: Callable[[], TokenEncoder] = onnx_token_encoder):
        self._folder = folder
        self._encoder = encoder
        self._embedder: StaticEmbedder | None = None
        self._ready = threading.Event()
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def of(cls, embedder: StaticEmbedder) -> "FastTier":
        """A tier whose embedder is already at hand (tests, benchmarks)."""
        tier = cls(Path())
        tier._embedder = embedder
        tier._ready.set()
        return tier

    def start(self) -> None:
        """Load or build the table in the background; returns at once."""
        if self._ready.is_set() or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._load, name="fast-tier-table", daemon=True)
        self._thread.start()

    def _load(self) -> None:
        try:
            self._embedder = StaticEmbedder.load_or_build(
                self._folder, self._encoder, cancel=self._cancel
            )
        except BuildCancelledError:
            log.info("Stopped building the static embedding table")
        except Exception:  # the quality tier still works; say why the fast one does not
            log.exception("The fast tier is off: its static embedding table failed to load")
        finally:
            self._ready.set()

    @property
    def embedder(self) -> StaticEmbedder | None:
        """The static embedder once ready, else None."""
        return self._embedder if self._ready.is_set() else None

    def for_query(self, timeout: float = 10.0) -> StaticEmbedder | None:
        """The embedder for a search: loaded first if the table is cached (a second or so).

        A search never starts or waits for a build (only the app and workers build it), so a
        short command such as `ragspace query` never spends a minute of CPU on it.
        """
        if self._ready.is_set() or not (self._folder / STATIC_MANIFEST_FILE).is_file():
            return self.embedder
        self.start()
        return self.wait(timeout)

    def wait(self, timeout: float | None = None) -> StaticEmbedder | None:
        """Block until the table is loaded (or failed); the embedder or None."""
        self._ready.wait(timeout)
        return self.embedder

    def stop(self, timeout: float = 30.0) -> None:
        """Stop a build in progress (between batches) and wait for the thread."""
        self._cancel.set()
        if self._thread is not None:
            self._thread.join(timeout)
