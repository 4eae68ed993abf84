"""Retrieval latency (query embedding + search, no LLM) at 10,000 and 100,000 chunks.

Run: python bench/query_latency.py [--sizes 10000 100000] [--queries 200]
         [--shared-buffers 1GB 128MB] [--fusions convex rrf]

Chunk texts are real: passages of the two evaluation corpora (../shared/eval),
repeated with a varying prefix. Vectors are realistic, not uniform noise: each chunk's
vector is the real MiniLM embedding of one of ~1,500 seed passages plus a small
Gaussian perturbation, renormalised, so the index sees clustered data like a real
DocSet. Queries are the real evaluation questions, embedded by the local model on each
call (that cost is part of the measured latency). Prints medians and percentiles.
With several --shared-buffers values, the embedded server is restarted with each on the
same data after loading, so the rows compare the buffer cache sizes side by side. With
several --fusions, hybrid search runs with each on every question in turn (the order
alternating), so their rows compare side by side too.
"""

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from ragspace.embedding.embedders import LocalEmbedder
from ragspace.models import ChunkDraft, Fusion, RetrievalMode, SearchQuery
from ragspace.search.retrieval import RetrievalOptions, Retriever
from ragspace.settings import load_settings
from ragspace.settings.database import DatabaseSettings
from ragspace.store import Database, NewDocument, Store

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
SEEDS = 1500
CHUNKS_PER_DOCUMENT = 500


def seed_passages(eval_dir: Path) -> list[str]:
    """~1,000-character passages from both evaluation corpora."""
    docs = json.loads((eval_dir / "claude-docs" / "corpus.json").read_text())
    code = json.loads((eval_dir / "codebase" / "corpus.json").read_text())
    texts = [item["text"] for item in docs] + [item["content"] for item in code]
    passages = [t[i : i + 1000] for t in texts for i in range(0, len(t), 1000)]
    return [p for p in passages if p.strip()][:SEEDS]


def questions(eval_dir: Path) -> list[str]:
    """The real evaluation questions of both sets."""
    docs = [
        q["question"] for q in json.loads((eval_dir / "claude-docs" / "queries.json").read_text())
    ]
    lines = (eval_dir / "codebase" / "queries.jsonl").read_text().splitlines()
    return docs + [json.loads(line)["query"] for line in lines]


def perturbed(
    rng: np.random.Generator, seeds: list[str], seed_vectors: np.ndarray, first: int, count: int
) -> tuple[list[ChunkDraft], np.ndarray]:
    """`count` chunks numbered from `first`, each a random seed passage with its vector plus
    Gaussian noise (renormalised)."""
    picks = rng.integers(0, len(seeds), count)
    vectors = seed_vectors[picks] + rng.normal(0, 0.05, (count, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chunks = [
        ChunkDraft(
            ordinal=i, content=f"part {first + i}: {seeds[p]}", start_line=i + 1, end_line=i + 1
        )
        for i, p in enumerate(picks)
    ]
    return chunks, vectors.astype(np.float32)


def load(store: Store, size: int, seeds: list[str], seed_vectors: np.ndarray) -> int:
    """A DocSet of `size` chunks, stored through the normal bulk path."""
    docset = store.docsets.create(f"bench-{size}", "", "local/all-MiniLM-L6-v2-int8", 384)
    fill(store, docset.id, size, seeds, seed_vectors, np.random.default_rng(size))
    return docset.id


def fill(
    store: Store,
    docset_id: int,
    size: int,
    seeds: list[str],
    seed_vectors: np.ndarray,
    rng: np.random.Generator,
) -> None:
    """Store `size` perturbed seed chunks in the DocSet, 500 per document (`doc-N.md`; a
    second fill with the same rng replaces them with the same chunks)."""
    for first in range(0, size, CHUNKS_PER_DOCUMENT):
        count = min(CHUNKS_PER_DOCUMENT, size - first)
        chunks, vectors = perturbed(rng, seeds, seed_vectors, first, count)
        [document_id] = store.documents.upsert(
            docset_id, None, [NewDocument(f"doc-{first}.md", "doc", "markdown", "x", f"h{first}")]
        )
        store.chunks.replace(
            document_id,
            docset_id,
            chunks,
            vectors,
            [f"{first}-{i}" for i in range(count)],
        )


def measure(
    retriever: Retriever, docset_id: int, queries: list[str], mode: RetrievalMode
) -> list[float]:
    """Milliseconds per query: embedding + one search round trip."""
    timings = []
    for query in queries:
        started = time.perf_counter()
        retriever.search(SearchQuery(question=query, mode=mode).within([docset_id]), 10)
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def measure_side_by_side(
    retrievers: dict[str, Retriever], docset_id: int, queries: list[str]
) -> dict[str, list[float]]:
    """Hybrid milliseconds per query for each retriever, asked in turn, order alternating."""
    timings: dict[str, list[float]] = {name: [] for name in retrievers}
    names = list(retrievers)
    for number, query in enumerate(queries):
        for name in names if number % 2 == 0 else reversed(names):
            timings[name] += measure(retrievers[name], docset_id, [query], RetrievalMode.HYBRID)
    return timings


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    parser.add_argument(
        "--shared-buffers",
        nargs="+",
        default=[DatabaseSettings.model_fields["embedded_shared_buffers"].default],
        help="embedded Postgres buffer cache sizes to measure in turn (e.g. 1GB 128MB)",
    )
    parser.add_argument(
        "--fusions",
        nargs="+",
        choices=[f.value for f in Fusion],
        default=[Fusion.CONVEX.value],
        help="hybrid search's fusions to compare, side by side",
    )
    args = parser.parse_args()
    embedder = LocalEmbedder()
    seeds = seed_passages(args.eval_dir)
    seed_vectors = embedder.embed(seeds)
    rng = np.random.default_rng(7)
    all_questions = questions(args.eval_dir)
    sample = [all_questions[i] for i in rng.choice(len(all_questions), args.queries, replace=False)]
    print(
        "| shared_buffers | chunks | mode (fusion) | p50 ms | p95 ms | p99 ms | embed-only p50 ms |"
    )
    print("|---|---|---|---|---|---|---|")
    embed_ms = statistics.median([_embed_ms(embedder, q) for q in sample])
    docsets: dict[int, int] = {}
    with tempfile.TemporaryDirectory() as folder:
        for buffers in args.shared_buffers:
            settings = load_settings(
                env_file=None, data_dir=Path(folder), embedded_shared_buffers=buffers
            )
            database = Database.open(settings)  # the server restarts with this cache size
            try:
                store = Store(database.pool)
                from ragspace.ranking.options import RankingOptions  # this round's API

                retrievers = {
                    fusion: Retriever(
                        store,
                        embedder,
                        RetrievalOptions(ranking=RankingOptions(fusion=Fusion(fusion))),
                    )
                    for fusion in args.fusions
                }
                retriever = retrievers[args.fusions[0]]
                for size in args.sizes:
                    if size not in docsets:
                        started = time.perf_counter()
                        docsets[size] = load(store, size, seeds, seed_vectors)
                        seconds = time.perf_counter() - started
                        print(f"<!-- loaded {size} chunks in {seconds:.0f} s -->")
                    for mode in RetrievalMode:
                        measure(retriever, docsets[size], sample[:20], mode)  # warm caches
                        if mode is RetrievalMode.HYBRID:
                            rows = measure_side_by_side(retrievers, docsets[size], sample)
                        else:
                            rows = {"": measure(retriever, docsets[size], sample, mode)}
                        for fusion, t in rows.items():
                            label = f"{mode.value} ({fusion})" if fusion else mode.value
                            print(
                                f"| {buffers} | {size:,} | {label} | "
                                f"{statistics.median(t):.1f} | {percentile(t, 95):.1f} | "
                                f"{percentile(t, 99):.1f} | {embed_ms:.1f} |"
                            )
            finally:
                database.close()


def _embed_ms(embedder: LocalEmbedder, query: str) -> float:
    started = time.perf_counter()
    embedder.embed([query])
    return (time.perf_counter() - started) * 1000


if __name__ == "__main__":
    main()
