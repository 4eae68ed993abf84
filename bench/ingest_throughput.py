"""Ingestion throughput: local embedding, chunk storage, and upload-to-searchable end to end.

Run: python bench/ingest_throughput.py [--eval-dir ../shared/eval] [--repeats 3]
Uses a throwaway embedded Postgres; prints medians as a markdown table. The storage
variants (indexes dropped, synchronous_commit off, index built after loading) use raw
SQL on that throwaway database only, to show where the time of a bulk load goes.
"""

import argparse
import ast
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from ragspace.actions import Actions
from ragspace.embedding.embedders import LocalEmbedder, Vectors
from ragspace.ingestion.worker import Ingestor
from ragspace.models import ChunkDraft, SearchQuery
from ragspace.runtime import build_actions, build_chunker
from ragspace.settings import load_settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Database, NewDocument, Store
from ragspace.store.chunk_rows import copy_chunks


def codebase_files(eval_dir: Path) -> list[UploadedFile]:
    """The 90 source files of the code evaluation set, named by their repository path."""
    corpus = json.loads((eval_dir / "codebase" / "corpus.json").read_text())
    paths: dict[str, str] = {}
    for line in (eval_dir / "codebase" / "queries.jsonl").read_text().splitlines():
        query = json.loads(line)
        meta = query["meta"]
        if isinstance(meta, str):  # the README describes it as a Python-literal string
            meta = ast.literal_eval(meta)
        for uuid in query["golden_doc_uuids"]:
            paths[uuid] = f"{meta['repo_name']}/{meta['relative_path']}"
    return [
        UploadedFile(
            paths.get(item["original_uuid"], item["original_uuid"]), item["content"].encode()
        )
        for item in corpus
    ]


def bench_embedding(embedder: LocalEmbedder, repeats: int) -> float:
    """Texts per second on ~1,000-character chunks."""
    words = ["def", "parse_config(path):", "returns", "the", "settings", "read", "from", "TOML"]
    texts = [" ".join(words[(i + j) % len(words)] for j in range(150))[:1000] for i in range(64)]
    rates = []
    for _ in range(repeats):
        started = time.perf_counter()
        embedder.embed(texts)
        rates.append(len(texts) / (time.perf_counter() - started))
    return statistics.median(rates)


def bench_storage(store: Store, repeats: int, count: int = 20_000) -> float:
    """Chunks per second stored with precomputed 384-dimension vectors."""
    docset = store.docsets.create("storage-bench", "", "bench", 384)
    text = "x = compute(value)  # a line of code\n" * 25
    chunks = [
        ChunkDraft(ordinal=i, content=text, start_line=i + 1, end_line=i + 25) for i in range(count)
    ]
    vectors = np.random.default_rng(0).standard_normal((count, 384)).astype(np.float32)
    hashes = [f"{i:064x}" for i in range(count)]
    [document_id] = store.documents.upsert(
        docset.id, None, [NewDocument("big.py", "big.py", "python", text, "h")]
    )
    rates = []
    for _ in range(repeats):
        started = time.perf_counter()
        store.chunks.replace(document_id, docset.id, chunks, vectors, hashes)
        rates.append(count / (time.perf_counter() - started))
    store.docsets.delete(docset.id)
    return statistics.median(rates)


def _timed_copy(store: Store, count: int, repeats: int, setup: str = "") -> float:
    """Median chunks/s of `replace_chunks`-style COPY transactions after optional set-up SQL."""
    docset = store.docsets.create(f"variant-{time.monotonic_ns()}", "", "bench", 384)
    chunks, vectors, hashes = _bench_chunks(count)
    [document_id] = store.documents.upsert(
        docset.id, None, [NewDocument("big.py", "big.py", "python", "x", "h")]
    )
    rates = []
    for _ in range(repeats):
        with store.pool.connection() as conn, conn.transaction():
            if setup:
                conn.execute(setup.encode())
            started = time.perf_counter()
            copy_chunks(conn, document_id, docset.id, chunks, vectors, hashes)
        rates.append(count / (time.perf_counter() - started))
    store.docsets.delete(docset.id)
    return statistics.median(rates)


def _bench_chunks(count: int) -> tuple[list[ChunkDraft], Vectors, list[str]]:
    text = "x = compute(value)  # a line of code\n" * 25
    chunks = [
        ChunkDraft(ordinal=i, content=text, start_line=i + 1, end_line=i + 25) for i in range(count)
    ]
    vectors = np.random.default_rng(0).standard_normal((count, 384)).astype(np.float32)
    return chunks, vectors, [f"{i:064x}" for i in range(count)]


def bench_storage_variants(store: Store, repeats: int, count: int) -> dict[str, float]:
    """Where the time of a bulk chunk load goes: each index, WAL flush, index build after."""
    results = {
        "all indexes (as shipped)": _timed_copy(store, count, repeats),
        "all indexes, synchronous_commit off": _timed_copy(
            store, count, repeats, "set local synchronous_commit = off"
        ),
    }
    with store.pool.connection() as conn:
        conn.execute("drop index chunks_embedding_384_idx")
    results["without the 384-d HNSW index"] = _timed_copy(store, count, repeats)
    with store.pool.connection() as conn:
        conn.execute("drop index chunks_fts_idx")
    results["without HNSW and full-text GIN indexes"] = _timed_copy(store, count, repeats)
    results.update(_load_then_index(store, count))
    return results


def _load_then_index(store: Store, count: int) -> dict[str, float]:
    """COPY with no vector/text index, then build both (as a one-off bulk import would)."""
    docset = store.docsets.create("load-then-index", "", "bench", 384)
    chunks, vectors, hashes = _bench_chunks(count)
    [document_id] = store.documents.upsert(
        docset.id, None, [NewDocument("big.py", "big.py", "python", "x", "h")]
    )
    with store.pool.connection() as conn:
        started = time.perf_counter()
        with conn.transaction():
            copy_chunks(conn, document_id, docset.id, chunks, vectors, hashes)
        loaded = time.perf_counter()
        conn.execute("set maintenance_work_mem = '1GB'")
        conn.execute(
            "create index chunks_embedding_384_idx on chunks using hnsw"
            " ((embedding::vector(384)) vector_cosine_ops) where vector_dims(embedding) = 384"
        )
        indexed = time.perf_counter()
        conn.execute("create index chunks_fts_idx on chunks using gin (fts)")
        finished = time.perf_counter()
    store.docsets.delete(docset.id)
    return {
        "HNSW build after load (1GB maintenance_work_mem)": count / (indexed - loaded),
        "load, then build HNSW + GIN (overall)": count / (finished - started),
    }


def bench_end_to_end(
    actions: Actions, ingestor: Ingestor, files: list[UploadedFile]
) -> tuple[float, int]:
    """Seconds from upload to searchable for the code corpus, and the chunk count."""
    started = time.perf_counter()
    actions.docsets.create("codebase")
    actions.sources.add_files("codebase", files)
    ingestor.process_all()
    elapsed = time.perf_counter() - started
    assert actions.search.hits(
        SearchQuery(question="parse the configuration", docsets=("codebase",), limit=1, floor=False)
    )
    return elapsed, actions.docsets.get("codebase").chunk_count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--eval-dir", type=Path, default=Path(__file__).parents[1].parent / "shared" / "eval"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--chunks", type=int, default=20_000, help="chunks per storage run")
    parser.add_argument(
        "--variants", action="store_true", help="also measure storage without indexes etc."
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(env_file=None, data_dir=Path(folder))
        database = Database.open(settings)
        try:
            store = Store(database.pool)
            embedder = LocalEmbedder(batch_size=settings.embedding.embedding_batch_size)
            actions = build_actions(settings, store, embedder)
            ingestor = Ingestor(store, build_chunker(settings), embedder)
            embed_rate = bench_embedding(embedder, args.repeats)
            store_rate = bench_storage(store, args.repeats, args.chunks)
            files = codebase_files(args.eval_dir)
            seconds, chunks = bench_end_to_end(actions, ingestor, files)
            variants = (
                bench_storage_variants(store, args.repeats, args.chunks) if args.variants else {}
            )
        finally:
            database.close()
    size = sum(len(f.data) for f in files) / 1e6
    print("| measure | median |")
    print("|---|---|")
    print(f"| local embedding, ~1,000-char chunks | {embed_rate:.1f} chunks/s |")
    storage = f"chunk storage (binary COPY, 384-d, {args.chunks:,} chunks)"
    print(f"| {storage} | {store_rate:,.0f} chunks/s |")
    corpus = f"codebase corpus end to end ({len(files)} files, {size:.2f} MB, {chunks} chunks)"
    print(f"| {corpus} | {seconds:.1f} s |")

    for name, rate in variants.items():
        print(f"| storage variant: {name} | {rate:,.0f} chunks/s |")


if __name__ == "__main__":
    main()
