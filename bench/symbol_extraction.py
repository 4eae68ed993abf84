"""Symbol extraction (issue 40): what filling the symbol table adds to ingestion.

On each SWE-QA pool checkout (pytest, sphinx, pylint; their code files as ingestion sees
them), interleaved so machine load hits the passes alike:
- `chunk`: the chunker as before the symbol table (line patterns + tree-sitter scope chains);
- `chunk+symbols`: the same call that also extracts definitions and references from the parse;
- `parse+extract`: parse, definition query, reference query and rows, no chunking (files/s).
Then, once, on a throwaway embedded Postgres: every document's chunk set stored as a
keyword-searchable swap does it (COPY, full-text vectors computed) and its symbol rows
(delete + COPY), each timed.

`added share` is (extraction time + symbol storage time) / (chunking + chunk storage time):
what the table adds to the bare work of making a document keyword-searchable (an upper
bound: the worker does more than that). With `--worker`, the real path is timed too: the
ingestion worker's keyword pass (claim, chunk, chunk swap without vectors: after it the
document is keyword-searchable) over each document without the symbol table and with it, the
two back to back, summed over the documents (`worker added share`: the median over runs of
the sums' ratio, after one warm-up run; `worker added share per run` keeps each run's ratio).
Whole passes timed one after the other moved by up to 20 points between runs of the same code
(docs/benchmarks-log.md); pairs do not.

Usage (from the repository root):
    python bench/symbol_extraction.py [--runs 4] [--checkouts pytest sphinx pylint] [--worker]
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from syntax_throughput import Document, checkout, timed

from ragspace.chunking.chunker import ChunkedFile, Chunker
from ragspace.chunking.symbol_extraction import extract_symbols
from ragspace.chunking.syntax import SyntaxParser
from ragspace.embedding.embedders import LocalEmbedder
from ragspace.ingestion.worker import IngestOptions, Ingestor
from ragspace.settings import load_settings
from ragspace.store import Database, NewDocument, Store
from ragspace.store.chunk_rows import copy_chunks
from ragspace.store.symbols import replace_symbols
from ragspace.text.hashing import content_hash


def cpu_passes(documents: list[Document], chunker: Chunker, runs: int) -> dict[str, float]:
    """Median seconds of each CPU pass over the documents."""
    parser = chunker.syntax

    def extract(d: Document) -> object:
        table = parser.symbols(d[2], d[1], d[2].count("\n") + 1, references=True)
        return extract_symbols(table) if table is not None else None

    passes: dict[str, Callable[[Document], object]] = {
        "chunk": lambda d: chunker.split_file(d[2], d[1], d[0], with_symbols=False),
        "chunk+symbols": lambda d: chunker.split_file(d[2], d[1], d[0]),
        "parse+extract": extract,
    }
    for work in passes.values():  # every grammar loaded before timing
        timed(work, documents[:50])
    seconds: dict[str, list[float]] = {name: [] for name in passes}
    for _ in range(runs):
        for name, work in passes.items():
            seconds[name].append(timed(work, documents))
    return {name: statistics.median(values) for name, values in seconds.items()}


def storage_pass(
    store: Store, name: str, documents: list[Document], chunker: Chunker
) -> dict[str, Any]:
    """Seconds to store every chunk set and every symbol table, and the rows stored."""
    docset = store.docsets.create(name, "", "bench", 3)
    new = [NewDocument(p, p, lang, text, content_hash(text)) for p, lang, text in documents]
    ids = store.documents.upsert(docset.id, None, new)
    chunk_seconds = symbol_seconds = 0.0
    definitions = references = 0
    for document_id, (path, language, text) in zip(ids, documents, strict=True):
        chunked = chunker.split_file(text, language, path)
        hashes = [content_hash(c.content) for c in chunked.chunks]
        with store.pool.connection() as conn, conn.transaction():
            started = time.perf_counter()
            copy_chunks(conn, document_id, docset.id, chunked.chunks, None, hashes)
            middle = time.perf_counter()
            replace_symbols(conn, document_id, docset.id, chunked.symbols)
            chunk_seconds += middle - started
            symbol_seconds += time.perf_counter() - middle
        if chunked.symbols is not None:
            definitions += len(chunked.symbols.definitions)
            references += len(chunked.symbols.references)
    with store.pool.connection() as conn:  # its pending jobs are not the worker pass's
        conn.execute("delete from docsets where id = %s", (docset.id,))
    return {
        "chunk storage s": round(chunk_seconds, 3),
        "symbol storage s": round(symbol_seconds, 3),
        "definitions": definitions,
        "references": references,
    }


class _NoSymbols(Chunker):
    """The chunker as before the symbol table: the parse gives scope chains only."""

    def split_file(
        self,
        text: str,
        language: str,
        path: str,
        with_symbols: bool = True,  # noqa: ARG002
    ) -> ChunkedFile:
        return super().split_file(text, language, path, with_symbols=False)


def worker_passes(
    store: Store, name: str, documents: list[Document], chunker: Chunker, runs: int
) -> dict[str, Any]:
    """The worker's keyword pass over each document without the table and with it, back to
    back (the first of the two alternating from one document to the next and from run to
    run), summed over the documents: whatever load hits one pass hits its pair as well."""
    plain = _NoSymbols(chunker.code_chunk_size, chunker.prose_chunk_size, chunker.overlap)
    embedder = LocalEmbedder()
    # keyword passes, as the app runs them with the local model (runtime.build_ingestor);
    # nothing is ever embedded here, so every new document gets one
    options = IngestOptions(keywords_first=True)
    ingestors = {
        "without": Ingestor(store, plain, embedder, options),
        "with": Ingestor(store, chunker, embedder, options),
    }
    sums: dict[str, list[float]] = {"without": [], "with": []}
    for run in range(runs + 1):  # run 0 warms caches, plans and pages, and is not counted
        docsets = {
            key: store.docsets.create(
                f"{name}-{key}-{run}", "", embedder.model_id, embedder.dimensions
            ).id
            for key in ingestors
        }
        seconds = {"without": 0.0, "with": 0.0}
        for index, (path, language, text) in enumerate(documents):
            order = ("without", "with") if (index + run) % 2 == 0 else ("with", "without")
            new = NewDocument(path, path, language, text, content_hash(text))
            for key in order:
                store.documents.upsert(docsets[key], None, [new])
                started = time.perf_counter()
                # the one keyword pass queued (keyword passes are claimed before the vector
                # jobs they leave behind)
                assert ingestors[key].process_next()
                seconds[key] += time.perf_counter() - started
        with store.pool.connection() as conn:  # keyword passes only: no chunk has a vector
            row = conn.execute(
                "select count(*) filter (where embedding is not null), count(*) from chunks"
                " where docset_id = any(%s)",
                (list(docsets.values()),),
            ).fetchone()
        assert row is not None and row[0] == 0 and row[1] > 0, row
        for docset_id in docsets.values():  # with the vector jobs, not this benchmark's
            store.docsets.delete(docset_id)
        if run > 0:
            for key, total in seconds.items():
                sums[key].append(total)
    without, with_ = (statistics.median(sums[k]) for k in ("without", "with"))
    shares = [w / o - 1 for w, o in zip(sums["with"], sums["without"], strict=True)]
    return {
        "worker keyword-searchable s (no symbols)": round(without, 3),
        "worker keyword-searchable s (symbols)": round(with_, 3),
        "worker added share": round(statistics.median(shares), 4),
        "worker added share per run": [round(share, 4) for share in shares],
    }


def measure(name: str, store: Store, chunker: Chunker, runs: int, worker: bool) -> dict[str, Any]:
    documents = [d for d in checkout(name) if d[2].strip()]  # empty files are not indexed
    cpu = cpu_passes(documents, chunker, runs)
    stored = storage_pass(store, name, documents, chunker)
    extraction = max(0.0, cpu["chunk+symbols"] - cpu["chunk"])
    searchable = cpu["chunk"] + stored["chunk storage s"]
    added = extraction + stored["symbol storage s"]
    result = {
        "files": len(documents),
        "MB": round(sum(len(d[2].encode("utf-8")) for d in documents) / 1e6, 3),
        "chunk s": round(cpu["chunk"], 3),
        "chunk+symbols s": round(cpu["chunk+symbols"], 3),
        "parse+extract files/s": round(len(documents) / cpu["parse+extract"], 1),
        "extraction added s": round(extraction, 3),
        **stored,
        "keyword-searchable s": round(searchable, 3),
        "added share": round(added / searchable, 4),
    }
    if worker:
        result |= worker_passes(store, name, documents, chunker, runs)
    print(f"{name}: {json.dumps(result)}")
    return result


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--runs", type=int, default=3)
    options.add_argument("--checkouts", nargs="+", default=["pytest", "sphinx", "pylint"])
    options.add_argument("--json", default="bench/results/symbol_extraction.json")
    options.add_argument("--worker", action="store_true", help="also time the real worker")
    args = options.parse_args()
    load_before = os.getloadavg()[0]
    settings = load_settings(None)
    chunking = settings.chunking
    sizes = chunking.code_chunk_size, chunking.prose_chunk_size, chunking.chunk_overlap
    chunker = Chunker(*sizes, syntax=SyntaxParser())
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        database = Database.open(load_settings(None, data_dir=Path(folder)))
        try:
            store = Store(database.pool)
            for name in args.checkouts:
                results[name] = measure(name, store, chunker, args.runs, args.worker)
        finally:
            database.close()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    record = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": commit.stdout.strip(),
        "load average before": load_before,
        "load average after": os.getloadavg()[0],
        "cpus": os.cpu_count(),
        "runs": args.runs,
        "results": results,
    }
    Path(args.json).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
