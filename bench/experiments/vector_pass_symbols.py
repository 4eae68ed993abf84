"""Issue 40 decision: should the vector pass parse and write the symbol table again?

Every new code document gets a keyword pass (chunks and symbol rows, no vectors) and then a
vector pass over the same content. Until this experiment the vector pass also extracted the
definitions and references again and swapped the same rows in a second time. Now it keeps
the rows of its keyword pass (unless the re-embed is forced).

Here, on a SWE-QA pool checkout: each document's keyword pass, then its vector pass either
as now (`new`) or as before (`old`: the worker's `chunks_of` always extracting, its result
always replacing the rows), the two kinds alternating from one document to the next and from
run to run, summed per run over the documents, after one warm-up run. The embedder returns a
constant vector, so the time is the pass's own work (chunking, the parse, the swap), not the
model's.

Usage (from the repository root):
    python bench/experiments/vector_pass_symbols.py [--checkout pytest] [--runs 3]
"""

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from syntax_throughput import checkout

import ragspace.ingestion.job_chunks as job_chunks_module
import ragspace.ingestion.worker as worker_module
from ragspace.chunking.chunker import Chunker
from ragspace.chunking.syntax import SyntaxParser
from ragspace.embedding.embedders import Vectors
from ragspace.ingestion.worker import IngestOptions, Ingestor
from ragspace.settings import load_settings
from ragspace.store import Database, NewDocument, Store
from ragspace.text.hashing import content_hash

DIMENSIONS = 384
# the ingestion modules' names for the two steps the old vector pass did differently
CURRENT: dict[str, Any] = {
    "chunks_of": job_chunks_module.chunks_of,
    "JobResult": worker_module.JobResult,
}


class ConstantEmbedder:
    """One unit vector for every text: the vector pass without the model's time."""

    model_id = "constant"
    dimensions = DIMENSIONS

    def embed(self, texts: Sequence[str]) -> Vectors:
        return np.full((len(texts), DIMENSIONS), DIMENSIONS**-0.5, dtype=np.float32)


def behave_as_before(before: bool) -> None:
    """Switch the worker's vector pass between today's and the one that parsed again."""
    chunks_of, job_result = CURRENT["chunks_of"], CURRENT["JobResult"]

    def always_extract(job: Any, chunker: Any, max_chunks: int, _with_symbols: bool) -> Any:
        return chunks_of(job, chunker, max_chunks, True)

    def always_replace(*fields: Any) -> Any:
        return job_result(*fields[:7], False)

    setattr(job_chunks_module, "chunks_of", always_extract if before else chunks_of)  # noqa: B010
    setattr(worker_module, "JobResult", always_replace if before else job_result)  # noqa: B010


def vector_pass_seconds(
    checkout_name: str, runs: int, behave_as_before: Callable[[bool], None]
) -> dict[str, list[float]]:
    """Each run's vector passes summed over the checkout's documents, `new` and `old`
    (`behave_as_before(True)` switches the pass to the old kind for one document)."""
    settings = load_settings(None).chunking
    sizes = settings.code_chunk_size, settings.prose_chunk_size, settings.chunk_overlap
    chunker = Chunker(*sizes, syntax=SyntaxParser())
    documents = [d for d in checkout(checkout_name) if d[2].strip()]
    totals: dict[str, list[float]] = {"new": [], "old": []}
    with tempfile.TemporaryDirectory() as folder:
        database = Database.open(load_settings(None, data_dir=Path(folder)))
        store = Store(database.pool)
        embedder = ConstantEmbedder()
        ingestor = Ingestor(store, chunker, embedder, IngestOptions(keywords_first=True))
        for run in range(runs + 1):  # run 0 warms up and is not counted
            docsets = {
                k: store.docsets.create(f"{k}-{run}", "", "constant", DIMENSIONS).id for k in totals
            }
            seconds = dict.fromkeys(totals, 0.0)
            for index, (path, language, text) in enumerate(documents):
                for kind in ("new", "old") if (index + run) % 2 == 0 else ("old", "new"):
                    # a path of its own: no chunk is a cache hit, so every document gets both passes
                    where = f"{kind}-{run}/{path}"
                    new = NewDocument(where, where, language, text, content_hash(text))
                    store.documents.upsert(docsets[kind], None, [new])
                    behave_as_before(False)
                    assert ingestor.process_next()  # the keyword pass
                    behave_as_before(kind == "old")
                    started = time.perf_counter()
                    assert ingestor.process_next()  # the vector pass
                    seconds[kind] += time.perf_counter() - started
                    behave_as_before(False)
            for docset_id in docsets.values():
                store.docsets.delete(docset_id)
            if run > 0:
                for kind, total in seconds.items():
                    totals[kind].append(total)
        database.close()
    return totals


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--checkout", default="pytest")
    options.add_argument("--runs", type=int, default=3)
    args = options.parse_args()
    totals = vector_pass_seconds(args.checkout, args.runs, behave_as_before)
    saved = [old - new for old, new in zip(totals["old"], totals["new"], strict=True)]
    print(
        f"{args.checkout}: vector passes"
        f" as before {statistics.median(totals['old']):.3f} s,"
        f" keeping the rows {statistics.median(totals['new']):.3f} s,"
        f" saved (median of the runs' differences) {statistics.median(saved):.3f} s"
    )


if __name__ == "__main__":
    main()
