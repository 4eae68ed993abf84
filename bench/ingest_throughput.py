"""Ingestion throughput: local embedding, chunk storage, and upload-to-searchable end to end.

Run: python bench/ingest_throughput.py [--eval-dir ../shared/eval] [--repeats 3]
Uses a throwaway embedded Postgres; prints medians as a markdown table.
"""

import argparse
import ast
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from ragspace.embeddings import LocalEmbedder
from ragspace.models import ChunkDraft
from ragspace.runtime import build_chunker, build_service
from ragspace.services import RagspaceService
from ragspace.settings import Settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Database, NewDocument, Store
from ragspace.worker import Ingestor


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
    docset = store.create_docset("storage-bench", "", "bench", 384)
    text = "x = compute(value)  # a line of code\n" * 25
    chunks = [
        ChunkDraft(ordinal=i, content=text, start_line=i + 1, end_line=i + 25) for i in range(count)
    ]
    vectors = np.random.default_rng(0).standard_normal((count, 384)).astype(np.float32)
    hashes = [f"{i:064x}" for i in range(count)]
    [document_id] = store.upsert_documents(
        docset.id, None, [NewDocument("big.py", "big.py", "python", text, "h")]
    )
    rates = []
    for _ in range(repeats):
        started = time.perf_counter()
        store.replace_chunks(document_id, docset.id, chunks, vectors, hashes)
        rates.append(count / (time.perf_counter() - started))
    store.delete_docset(docset.id)
    return statistics.median(rates)


def bench_end_to_end(
    service: RagspaceService, ingestor: Ingestor, files: list[UploadedFile]
) -> tuple[float, int]:
    """Seconds from upload to searchable for the code corpus, and the chunk count."""
    started = time.perf_counter()
    service.create_docset("codebase")
    service.add_files("codebase", files)
    ingestor.process_all()
    elapsed = time.perf_counter() - started
    assert service.search("parse the configuration", ["codebase"], k=1)
    return elapsed, service.get_docset("codebase").chunk_count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--eval-dir", type=Path, default=Path(__file__).parents[1].parent / "shared" / "eval"
    )
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(_env_file=None, data_dir=Path(folder))
        database = Database.open(settings)
        try:
            store = Store(database.pool)
            embedder = LocalEmbedder(batch_size=settings.embedding_batch_size)
            service = build_service(settings, store, embedder)
            ingestor = Ingestor(store, build_chunker(settings), embedder)
            embed_rate = bench_embedding(embedder, args.repeats)
            store_rate = bench_storage(store, args.repeats)
            files = codebase_files(args.eval_dir)
            seconds, chunks = bench_end_to_end(service, ingestor, files)
        finally:
            database.close()
    size = sum(len(f.data) for f in files) / 1e6
    print("| measure | median |")
    print("|---|---|")
    print(f"| local embedding, ~1,000-char chunks | {embed_rate:.1f} chunks/s |")
    print(f"| chunk storage (binary COPY, 384-d, 20,000 chunks) | {store_rate:,.0f} chunks/s |")
    corpus = f"codebase corpus end to end ({len(files)} files, {size:.2f} MB, {chunks} chunks)"
    print(f"| {corpus} | {seconds:.1f} s |")


if __name__ == "__main__":
    main()
