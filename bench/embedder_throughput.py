"""Local MiniLM throughput, before and after, side by side in one run.

"before" is the previous LocalEmbedder.embed (batches of texts sorted by characters, padded
by the tokenizer to the batch's longest text); "after" is the current one (sorted by token
count, padded per batch). Both run the same onnxruntime session, so the vectors must agree:
the script prints the smallest cosine between them (must stay above 0.999). Also prints the
token-length distribution of the sampled chunks.

Usage (from the repository root, on a quiet machine):
    python bench/embedder_throughput.py --sample 2000 --batch-sizes 16,32,64
Quick check that it works:
    python bench/embedder_throughput.py --sample 64 --batch-sizes 32
"""

import argparse
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from app_harness import default_eval_dir

from ragspace.chunking.chunker import Chunker
from ragspace.embedding.embedders import LOCAL_DIMENSIONS, LocalEmbedder, Vectors
from ragspace.eval.evaluation import load_claude_docs, load_codebase
from ragspace.settings import load_settings

DEFAULT_EVAL_DIR = default_eval_dir()  # shared/eval above the checkout or worktree


def chunk_texts(eval_dir: Path) -> list[str]:
    """embedding_text of every chunk of both shared corpora, chunked with default settings."""
    settings = load_settings(env_file=None)
    chunker = Chunker(
        settings.chunking.code_chunk_size,
        settings.chunking.prose_chunk_size,
        settings.chunking.chunk_overlap,
    )
    texts: list[str] = []
    for dataset in (
        load_codebase(eval_dir / "codebase"),
        load_claude_docs(eval_dir / "claude-docs"),
    ):
        for document in dataset.documents:
            chunks = chunker.split(document.content, document.language, document.path)
            texts.extend(chunk.embedding_text for chunk in chunks)
    return texts


def before(embedder: LocalEmbedder, texts: Sequence[str], batch_size: int) -> Vectors:
    """The previous embed(): sort by characters, tokenizer pads each batch."""
    tokenizer = embedder._tokenizer
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    result = np.empty((len(texts), LOCAL_DIMENSIONS), dtype=np.float32)
    for start in range(0, len(order), batch_size):
        batch = order[start : start + batch_size]
        encodings = tokenizer.encode_batch([texts[i] for i in batch])
        width = max(len(e.ids) for e in encodings)
        ids = np.array([e.ids + [0] * (width - len(e.ids)) for e in encodings], dtype=np.int64)
        mask = np.array(
            [e.attention_mask + [0] * (width - len(e.ids)) for e in encodings], dtype=np.int64
        )
        result[batch] = embedder._run(ids, mask)
    return result


def timed(run: Callable[[], Vectors]) -> tuple[float, Vectors]:
    """Seconds taken and the vectors."""
    started = time.perf_counter()
    vectors = run()
    return time.perf_counter() - started, vectors


def main() -> None:
    """Print token lengths and chunks/s before and after per batch size."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL_DIR)
    parser.add_argument("--sample", type=int, default=2000)
    parser.add_argument("--batch-sizes", default="16,32,64")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument(
        "--providers",
        default="CPUExecutionProvider",
        help="onnxruntime providers, comma-separated (a GPU: CUDAExecutionProvider,"
        "CPUExecutionProvider with onnxruntime-gpu installed)",
    )
    args = parser.parse_args()
    texts = chunk_texts(args.eval_dir)
    random.Random(14).shuffle(texts)
    texts = texts[: args.sample]
    embedder = LocalEmbedder(threads=args.threads, providers=args.providers.split(","))
    lengths = np.array([len(e.ids) for e in embedder._tokenizer.encode_batch(texts)])
    print(
        f"{len(texts)} chunks; tokens p10/p50/p90/max: "
        f"{np.percentile(lengths, [10, 50, 90]).round().tolist()} / {lengths.max()}; "
        f"at the 256 cap: {(lengths >= 256).mean():.0%}"
    )
    print(f"{'batch':>5} {'before c/s':>11} {'after c/s':>10} {'speed-up':>8} {'min cos':>8}")
    for size in (int(value) for value in args.batch_sizes.split(",")):
        embedder._batch_size = size
        old_s, old = timed(lambda size=size: before(embedder, texts, size))
        new_s, new = timed(lambda: embedder.embed(texts))
        cosine = float(np.min(np.sum(old * new, axis=1)))
        print(
            f"{size:>5} {len(texts) / old_s:>11.1f} {len(texts) / new_s:>10.1f} "
            f"{old_s / new_s:>7.2f}x {cosine:>8.5f}"
        )


if __name__ == "__main__":
    main()
