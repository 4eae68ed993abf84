"""RAGSpace versus langchain-postgres' PGVector: same corpus, embedder, process and database.

Run (needs the bench extra and langchain-postgres without its pgvector<0.4 pin:
pip install -e '.[bench]' && pip install --no-deps 'langchain-postgres==0.0.19'):
    python bench/experiments/baseline_langchain.py --set codebase --repeats 3

One throwaway embedded Postgres. Each repeat ingests the corpus both ways, in alternating
order: RAGSpace through its real worker path (chunk, embed, binary COPY into the indexed
chunks table; the embedding cache is emptied first so nothing is reused), and LangChain
through `PGVector.add_documents` (the same chunks from RAGSpace's chunker, embedded by
the same local MiniLM model wrapped as a LangChain `Embeddings`, inserted by SQLAlchemy).
Then every question of the set is searched both ways with k = 10: RAGSpace's default
hybrid search (and vector-only, for reference), LangChain's `similarity_search`.
Prints medians and our/their ratios, each the median over repeats of the ratio measured
within one round (below 1 means RAGSpace is faster; for recall, above 1 means RAGSpace
finds more).
"""

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import Embeddings
from langchain_postgres import PGVector

from ragspace.actions import Actions
from ragspace.actions.corpora import ingest
from ragspace.chunking.chunker import Chunker
from ragspace.embedding.embedders import LocalEmbedder
from ragspace.eval.datasets import load_dataset
from ragspace.eval.evaluation import Dataset, match_hits, recall_at_k
from ragspace.eval.runner import percentiles_ms
from ragspace.ingestion.worker import Ingestor
from ragspace.models import Hit, RetrievalMode, SearchQuery
from ragspace.runtime import build_actions, build_chunker
from ragspace.settings import Settings, load_settings
from ragspace.store import Database, Store

# ../shared/eval next to the checkout (also found from a worktree one level deeper)
EVAL_DIR = next(
    (p / "shared" / "eval" for p in Path(__file__).resolve().parents if (p / "shared").is_dir()),
    Path("../shared/eval"),
)
K = 10


class LocalEmbeddings(Embeddings):
    """RAGSpace's bundled MiniLM model behind LangChain's Embeddings interface."""

    def __init__(self, embedder: LocalEmbedder) -> None:
        self._embedder = embedder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in self._embedder.embed(texts)]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def langchain_documents(dataset: Dataset, chunker: Chunker) -> list[LCDocument]:
    """The corpus cut by RAGSpace's chunker, as LangChain documents with line ranges."""
    return [
        LCDocument(
            page_content=chunk.content,
            metadata={"path": d.path, "start_line": chunk.start_line, "end_line": chunk.end_line},
        )
        for d in dataset.documents
        for chunk in chunker.split(d.content, d.language, d.path)
    ]


def as_hit(document: LCDocument, rank: int) -> Hit:
    """A LangChain result as a Hit, so both sides are scored by the same code."""
    meta = document.metadata
    return Hit(
        chunk_id=rank,
        document_id=0,
        docset_name="langchain",
        path=meta["path"],
        title=meta["path"],
        ordinal=0,
        content=document.page_content,
        start_line=meta["start_line"],
        end_line=meta["end_line"],
        score=0.0,
    )


def query_run(dataset: Dataset, search: Callable[[str], list[Hit]]) -> tuple[float, float]:
    """(p50 latency in ms, mean chunk-level Recall@5) over every question."""
    seconds, recalls = [], []
    for query in dataset.queries:
        started = time.perf_counter()
        hits = search(query.text)
        seconds.append(time.perf_counter() - started)
        recalls.append(recall_at_k(match_hits(hits, query.gold), len(query.gold), 5))
    return percentiles_ms(seconds)[0], sum(recalls) / len(recalls)


def ours_ingest(
    actions: Actions, store: Store, ingestor: Ingestor, dataset: Dataset, name: str
) -> float:
    """Seconds to make the corpus searchable through RAGSpace, embedding cache emptied."""
    with store.pool.connection() as conn:
        conn.execute("delete from embedding_cache")  # throwaway database: nothing reused
    if name in {d.name for d in actions.docsets.all()}:
        actions.docsets.delete(name)
    started = time.perf_counter()
    actions.docsets.create(name)
    ingest(store, ingestor, name, dataset)
    return time.perf_counter() - started


def theirs_ingest(
    connection: str, embeddings: Embeddings, dataset: Dataset, chunker: Chunker
) -> tuple[float, PGVector]:
    """Seconds to chunk, embed and store the corpus through PGVector (fresh collection)."""
    started = time.perf_counter()
    vectors = PGVector(
        embeddings=embeddings,
        connection=connection,
        collection_name="baseline",
        pre_delete_collection=True,
        use_jsonb=True,
    )
    vectors.add_documents(langchain_documents(dataset, chunker))
    return time.perf_counter() - started, vectors


def median_row(rows: Sequence[dict[str, float]], key: str) -> float:
    """The median of one measure over the repeats."""
    return statistics.median(row[key] for row in rows)


def run_repeat(
    number: int,
    settings: Settings,
    parts: tuple[Actions, Store, Ingestor, LocalEmbedder],
    dataset: Dataset,
    connection: str,
) -> dict[str, float]:
    """One side-by-side round; the side that ingests first alternates between rounds."""
    actions, store, ingestor, embedder = parts
    chunker = build_chunker(settings)
    row: dict[str, float] = {}
    store_ref: list[PGVector] = []

    def ours() -> None:
        row["ours_ingest"] = ours_ingest(actions, store, ingestor, dataset, "baseline")

    def theirs() -> None:
        seconds, vectors = theirs_ingest(connection, LocalEmbeddings(embedder), dataset, chunker)
        row["theirs_ingest"] = seconds
        store_ref.append(vectors)

    for step in (ours, theirs) if number % 2 == 0 else (theirs, ours):
        step()
    vectors = store_ref[0]
    row["ours_p50"], row["ours_recall5"] = query_run(
        dataset,
        lambda q: actions.search.hits(
            SearchQuery(
                question=q, docsets=("baseline",), limit=K, mode=RetrievalMode.HYBRID, floor=False
            )
        ),
    )
    row["ours_vector_p50"], row["ours_vector_recall5"] = query_run(
        dataset,
        lambda q: actions.search.hits(
            SearchQuery(
                question=q, docsets=("baseline",), limit=K, mode=RetrievalMode.VECTOR, floor=False
            )
        ),
    )
    row["theirs_p50"], row["theirs_recall5"] = query_run(
        dataset,
        lambda q: [as_hit(d, i) for i, d in enumerate(vectors.similarity_search(q, k=K))],
    )
    print(f"repeat {number + 1}: " + ", ".join(f"{k} {v:.3f}" for k, v in row.items()), flush=True)
    return row


def ratio(rows: Sequence[dict[str, float]], ours: str, theirs: str) -> float:
    """The median over repeats of ours / theirs, each pair measured in the same round."""
    return statistics.median(row[ours] / row[theirs] for row in rows)


def report(rows: Sequence[dict[str, float]], dataset: Dataset, chunks: int) -> str:
    """Medians and ratios (median of the per-repeat ratios) as a markdown table."""
    m: dict[str, Any] = {key: median_row(rows, key) for key in rows[0]}
    vector = f"{ratio(rows, 'ours_vector_p50', 'theirs_p50'):.2f}"
    vector += f" / {ratio(rows, 'ours_vector_recall5', 'theirs_recall5'):.2f}"
    lines = [
        f"{dataset.name}: {len(dataset.documents)} documents, {chunks} chunks, "
        f"{len(dataset.queries)} questions, k = {K}, median of {len(rows)} repeat(s)",
        "",
        "| measure | RAGSpace (hybrid) | LangChain PGVector | ours / theirs |",
        "|---|---:|---:|---:|",
        f"| ingest, s | {m['ours_ingest']:.1f} | {m['theirs_ingest']:.1f} | "
        f"{ratio(rows, 'ours_ingest', 'theirs_ingest'):.2f} |",
        f"| query p50, ms | {m['ours_p50']:.1f} | {m['theirs_p50']:.1f} | "
        f"{ratio(rows, 'ours_p50', 'theirs_p50'):.2f} |",
        f"| Recall@5 (chunk level) | {m['ours_recall5']:.3f} | {m['theirs_recall5']:.3f} | "
        f"{ratio(rows, 'ours_recall5', 'theirs_recall5'):.2f} |",
        f"| RAGSpace vector-only: query p50 ms / Recall@5 | {m['ours_vector_p50']:.1f} / "
        f"{m['ours_vector_recall5']:.3f} | | {vector} |",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", default="codebase", choices=["codebase", "claude-docs"])
    parser.add_argument("--eval-dir", type=Path, default=EVAL_DIR)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    dataset = load_dataset(args.eval_dir / args.set)
    with tempfile.TemporaryDirectory() as folder:
        settings = load_settings(env_file=None, data_dir=Path(folder))
        database = Database.open(settings)
        try:
            store = Store(database.pool)
            embedder = LocalEmbedder(batch_size=settings.embedding.embedding_batch_size)
            actions = build_actions(settings, store, embedder)
            ingestor = Ingestor(store, build_chunker(settings), embedder)
            connection = database.pool.conninfo.replace("postgresql://", "postgresql+psycopg://")
            parts = (actions, store, ingestor, embedder)
            rows = [
                run_repeat(n, settings, parts, dataset, connection) for n in range(args.repeats)
            ]
            chunks = actions.docsets.get("baseline").chunk_count
        finally:
            database.close()
    print(report(rows, dataset, chunks))


if __name__ == "__main__":
    main()
