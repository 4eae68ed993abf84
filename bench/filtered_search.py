"""Filtered vector search: recall@10 against exact search and hybrid latency, per DocSet size,
beside growing amounts of other DocSets in the same database.

Run on a quiet machine (loading a million chunks and building the indexes takes a while; the
data folder is kept, so a second run measures at once):

    python bench/filtered_search.py --data-dir /work/filtered \
        --targets 1000 10000 100000 --others 0 100000 1000000 --queries 100

Every cell is one target DocSet (1k, 10k or 100k chunks) searched alone while the database
also holds `others` chunks of ten other DocSets. Vectors are realistic, not uniform noise:
every chunk's vector is the real MiniLM embedding of one of ~1,500 passages of the shared
evaluation corpora plus a small Gaussian perturbation (as `query_latency.py` builds them), and
the other DocSets draw from the same passages, so their vectors sit right beside the target's:
the case in which a graph walk over everyone's vectors misses the target's neighbours.

- recall@10: the DocSet's vector top-10 as the app returns it (`Retriever.search`, vector
  mode) against the exact top-10 computed here with NumPy over the DocSet's stored vectors
  (a returned chunk counts when its exact distance is within 1e-5 of the tenth's).
- hybrid p50 / p95: `Retriever.search` in hybrid mode, query embedding included, as
  `query_latency.py` measures it.
- footprint, once all cells of a database size are measured: the data folder's size on disk
  (`pgdata`, every file), the Postgres processes' RSS (postmaster and backends summed, as
  big_repo.py sums them: shared buffers count once per process that touched them) and their
  PSS (shared pages split between the processes that map them), and this process's peak RSS
  (the model, the retriever and the exact-search vectors of the largest DocSet).

With `--code NAME=PATH` (repeatable) each cell is measured once per source tree, in a child
process run by PATH/.venv/bin/python (e.g. a worktree of an earlier commit with its own
`pip install -e .`), one after the other on the same data: before and after a change, side
by side. Results are appended to `bench/results/filtered_search.jsonl` (`--results`), one
line per cell and code; `--report` prints the latest of each cell as the table that
docs/benchmarks.md shows (tests/test_benchmark_figures.py checks that they agree).
"""

import argparse
import json
import os
import resource
import subprocess
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import psutil
from query_latency import EVAL, percentile, perturbed, questions, seed_passages

from ragspace.embedding.embedders import LocalEmbedder
from ragspace.models import RetrievalMode, SearchQuery
from ragspace.search.retrieval import RetrievalOptions, Retriever
from ragspace.settings import Settings, load_settings
from ragspace.store import Database, NewDocument, Store

MODEL = "local/all-MiniLM-L6-v2-int8"
OTHER_DOCSETS = 10
CHUNKS_PER_DOCUMENT = 500
# loads of at least this many chunks drop the vector and full-text indexes first and build
# them again after (as a restore would); smaller loads insert through the live indexes
REBUILD_FROM = 50_000
RESULTS = Path(__file__).parent / "results" / "filtered_search.jsonl"
TIE = 1e-5


@dataclass(frozen=True)
class Cell:
    """One measured cell: a target DocSet beside other DocSets, with one source tree."""

    code: str
    target_chunks: int
    other_chunks: int
    queries: int
    recall_at_10: float
    worst_recall_at_10: float
    hybrid_p50_ms: float
    hybrid_p95_ms: float
    vector_p50_ms: float
    data_folder_mb: float | None = None
    postgres_rss_mb: float | None = None
    postgres_pss_mb: float | None = None
    process_peak_rss_mb: float | None = None


def footprint(data_dir: Path) -> dict[str, float]:
    """The data folder's size and the memory of Postgres and of this process, now."""
    pgdata = data_dir / "pgdata"
    size = sum(path.stat().st_size for path in pgdata.rglob("*") if path.is_file())
    postmaster = psutil.Process(int((pgdata / "postmaster.pid").read_text().split()[0]))
    processes = [postmaster, *postmaster.children(recursive=True)]
    megabyte = 1024 * 1024
    return {
        "data_folder_mb": round(size / megabyte),
        "postgres_rss_mb": round(sum(p.memory_info().rss for p in processes) / megabyte),
        "postgres_pss_mb": round(sum(p.memory_full_info().pss for p in processes) / megabyte),
        # ru_maxrss is in kilobytes on Linux
        "process_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def docset_chunks(store: Store, name: str) -> tuple[int, int]:
    """The DocSet's id (created when missing) and how many chunks it holds."""
    try:
        docset = store.docsets.named(name)
    except Exception:
        docset = store.docsets.create(name, "", MODEL, 384)
    with store.pool.connection() as conn:
        row = conn.execute(
            "select count(*) from chunks where docset_id = %s", (docset.id,)
        ).fetchone()
    return docset.id, int(row[0]) if row else 0


def top_up(
    store: Store, name: str, size: int, seeds: list[str], seed_vectors: np.ndarray, salt: int
) -> int:
    """Grow the DocSet `name` to `size` chunks of perturbed seed passages; its id."""
    docset_id, have = docset_chunks(store, name)
    rng = np.random.default_rng([salt, have])
    for first in range(have, size, CHUNKS_PER_DOCUMENT):
        count = min(CHUNKS_PER_DOCUMENT, size - first)
        chunks, vectors = perturbed(rng, seeds, seed_vectors, first, count)
        path = f"doc-{first}.md"
        [document_id] = store.documents.upsert(
            docset_id, None, [NewDocument(path, "doc", "markdown", "x", f"{name}-{first}")]
        )
        store.chunks.replace(document_id, docset_id, chunks, vectors, [path] * count)
    return docset_id


def drop_indexes(store: Store, saved: Path) -> None:
    """Drop the chunks' vector and full-text indexes, their definitions saved first (so an
    interrupted load builds them again when run anew)."""
    with store.pool.connection() as conn:
        rows = conn.execute(
            "select indexname, indexdef from pg_indexes where tablename = 'chunks'"
            " and (indexdef ilike '%%using hnsw%%' or indexdef ilike '%%using gin%%')"
        ).fetchall()
        known = json.loads(saved.read_text()) if saved.exists() else []
        saved.write_text(json.dumps(known + [list(row) for row in rows]))
        for name, _ in rows:
            conn.execute(f'drop index "{name}"'.encode())


def build_indexes(store: Store, saved: Path) -> None:
    """Create the dropped indexes again, timing each."""
    for name, definition in json.loads(saved.read_text()):
        with store.pool.connection() as conn:
            conn.execute("set maintenance_work_mem = '8GB'")
            conn.execute("set max_parallel_maintenance_workers = 1")
            started = time.perf_counter()
            conn.execute(definition.encode())
        print(f"<!-- built {name} in {time.perf_counter() - started:.0f} s -->", flush=True)
    saved.unlink()
    with store.pool.connection() as conn:
        conn.execute("analyze chunks")


def load(args: argparse.Namespace, others: int) -> None:
    """Targets at their sizes and `others` chunks spread over ten other DocSets."""
    embedder = LocalEmbedder()
    seeds = seed_passages(args.eval_dir)
    seed_vectors = embedder.embed(seeds)
    database = Database.open(load_settings(env_file=None, data_dir=args.data_dir))
    try:
        store = Store(database.pool)
        started = time.perf_counter()
        missing = sum(t - docset_chunks(store, f"target-{t}")[1] for t in args.targets)
        missing += sum(
            others // OTHER_DOCSETS - docset_chunks(store, f"other-{i}")[1]
            for i in range(OTHER_DOCSETS)
        )
        saved = args.data_dir / "dropped_indexes.json"
        if missing >= REBUILD_FROM:
            drop_indexes(store, saved)
        for size in args.targets:
            top_up(store, f"target-{size}", size, seeds, seed_vectors, salt=size)
        for i in range(OTHER_DOCSETS):
            top_up(store, f"other-{i}", others // OTHER_DOCSETS, seeds, seed_vectors, 1000 + i)
        if saved.exists():
            build_indexes(store, saved)
        elif missing:
            with store.pool.connection() as conn:
                conn.execute("analyze chunks")
        print(f"<!-- loaded {missing} chunks in {time.perf_counter() - started:.0f} s -->")
    finally:
        database.close()


def exact_top(vectors: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosine distances of every row to the query, ascending (the exact ranking)."""
    return np.sort(1.0 - vectors @ query)


def recall(found: list[int], distance_of: dict[int, float], exact: np.ndarray) -> float:
    """Share of the exact top-10 found: a hit counts when it is as close as the tenth."""
    tenth = float(exact[min(9, len(exact) - 1)])
    good = sum(1 for chunk in found[:10] if distance_of[chunk] <= tenth + TIE)
    return good / min(10, len(exact))


def measure(args: argparse.Namespace, code: str, others: int) -> list[Cell]:
    """Every target DocSet measured with the `ragspace` this process imports."""
    embedder = LocalEmbedder()
    asked = questions(args.eval_dir)
    rng = np.random.default_rng(7)
    sample = [asked[i] for i in rng.choice(len(asked), args.queries, replace=False)]
    query_vectors = embedder.embed(sample)
    settings = load_settings(env_file=None, data_dir=args.data_dir)
    database = Database.open(settings)
    cells = []
    try:
        store = Store(database.pool)
        build_graphs(store, settings)
        retriever = Retriever(store, embedder, RetrievalOptions())
        for size in args.targets:
            docset_id, _ = docset_chunks(store, f"target-{size}")
            ids, vectors = stored_vectors(store, docset_id)
            distance_of_all = 1.0 - vectors @ query_vectors.T
            recalls, vector_ms = [], []
            for q, query in enumerate(sample):
                started = time.perf_counter()
                hits = retriever.search(
                    SearchQuery(question=query, mode=RetrievalMode.VECTOR).within([docset_id]), 10
                )
                vector_ms.append((time.perf_counter() - started) * 1000)
                distance_of = dict(zip(ids, distance_of_all[:, q].tolist(), strict=True))
                found = [hit.chunk_id for hit in hits]
                recalls.append(recall(found, distance_of, np.sort(distance_of_all[:, q])))
            for query in sample[:10]:  # warm the keyword side's pages too
                retriever.search(
                    SearchQuery(question=query, mode=RetrievalMode.HYBRID).within([docset_id]), 10
                )
            hybrid_ms = []
            for query in sample:
                started = time.perf_counter()
                retriever.search(
                    SearchQuery(question=query, mode=RetrievalMode.HYBRID).within([docset_id]), 10
                )
                hybrid_ms.append((time.perf_counter() - started) * 1000)
            cells.append(
                Cell(
                    code=code,
                    target_chunks=size,
                    other_chunks=others,
                    queries=len(sample),
                    recall_at_10=round(float(np.mean(recalls)), 4),
                    worst_recall_at_10=round(min(recalls), 2),
                    hybrid_p50_ms=round(percentile(hybrid_ms, 50), 1),
                    hybrid_p95_ms=round(percentile(hybrid_ms, 95), 1),
                    vector_p50_ms=round(percentile(vector_ms, 50), 1),
                )
            )
        measured = footprint(args.data_dir)
        cells = [Cell(**{**asdict(cell), **measured}) for cell in cells]
    finally:
        database.close()
    return cells


def build_graphs(store: Store, settings: Settings) -> None:
    """What the app's idle workers do first: give large DocSets indexes of their own (graphs
    since issue 42, full-text indexes since 2026-11-27 in docset_indexes.py; earlier code has
    neither, so measure it first)."""
    try:
        from ragspace.store.docset_indexes import build_missing_indexes as build
    except ImportError:
        try:
            from ragspace.store.docset_graphs import build_missing_graphs as build
        except ImportError:
            return
    started = time.perf_counter()
    built = build(store.pool, settings.retrieval.exact_search_max_chunks)
    if built:
        with store.pool.connection() as conn:
            conn.execute("analyze chunks")
        print(f"<!-- built {built} DocSet indexes in {time.perf_counter() - started:.0f} s -->")


def stored_vectors(store: Store, docset_id: int) -> tuple[list[int], np.ndarray]:
    """The DocSet's chunk ids and quality vectors, as stored."""
    with store.pool.connection() as conn:
        rows = conn.execute(
            "select id, embedding from chunks where docset_id = %s order by id", (docset_id,)
        ).fetchall()
    return [int(r[0]) for r in rows], np.stack([r[1].to_numpy() for r in rows]).astype(np.float32)


def run_measure_child(args: argparse.Namespace, code: str, tree: Path, others: int) -> None:
    """Measure in a child process that imports `ragspace` from `tree`."""
    python = tree / ".venv" / "bin" / "python"  # the tree's own install (an editable one wins)
    command = [str(python), __file__, "--measure-only", "--code", f"{code}={tree}"]
    command += ["--data-dir", str(args.data_dir), "--queries", str(args.queries)]
    command += ["--targets", *map(str, args.targets), "--others", str(others)]
    command += ["--results", str(args.results)]
    subprocess.run(command, check=True, cwd=tree)  # its commit is the one recorded


def record(args: argparse.Namespace, cells: list[Cell]) -> None:
    """Print the cells and append them to the results file."""
    load_average = os.getloadavg()[0]
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    args.results.parent.mkdir(parents=True, exist_ok=True)
    with args.results.open("a", encoding="utf-8") as out:
        for cell in cells:
            row = {
                **asdict(cell),
                "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
                "commit": commit,
                "load": round(load_average, 2),
            }
            out.write(json.dumps(row) + "\n")
            print(
                f"| {cell.code} | {cell.target_chunks:,} | {cell.other_chunks:,} | "
                f"{cell.recall_at_10:.3f} (worst {cell.worst_recall_at_10:.1f}) | "
                f"{cell.hybrid_p50_ms} | {cell.hybrid_p95_ms} | {cell.vector_p50_ms} |",
                flush=True,
            )


REPORT_HEADER = (
    "| code | DocSet chunks | other chunks | recall@10 (worst query) | hybrid p50 ms | "
    "hybrid p95 ms | vector p50 ms | queries | date | commit | load |"
)


def report(results: Path) -> str:
    """The latest measurement of every (code, DocSet size, other chunks) cell, as a table."""
    latest: dict[tuple[str, int, int], dict[str, Any]] = {}
    for line in results.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        latest[(row["code"], row["target_chunks"], row["other_chunks"])] = row
    lines = [REPORT_HEADER, "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|"]
    for _, row in sorted(latest.items(), key=lambda item: (item[0][2], item[0][1], item[0][0])):
        lines.append(
            f"| {row['code']} | {row['target_chunks']:,} | {row['other_chunks']:,} | "
            f"{row['recall_at_10']:.3f} ({row['worst_recall_at_10']:.1f}) | "
            f"{row['hybrid_p50_ms']} | {row['hybrid_p95_ms']} | {row['vector_p50_ms']} | "
            f"{row['queries']} | {row['date']} | {row['commit']} | {row['load']} |"
        )
    return "\n".join(lines) + "\n" + footprint_report(list(latest.values()))


def footprint_report(rows: list[dict[str, Any]]) -> str:
    """The latest footprint per database size (runs since the footprint was recorded)."""
    sizes: dict[int, dict[str, Any]] = {}
    for row in rows:
        if row.get("data_folder_mb") is not None:
            sizes[row["other_chunks"]] = row
    if not sizes:
        return ""
    lines = [
        "",
        "| other chunks | data folder MB | Postgres RSS / PSS MB | measuring process peak RSS MB "
        "| date | commit |",
        "|---:|---:|---:|---:|---|---|",
    ]
    for others, row in sorted(sizes.items()):
        lines.append(
            f"| {others:,} | {row['data_folder_mb']:,} | {row['postgres_rss_mb']:,} / "
            f"{row['postgres_pss_mb']:,} | {row['process_peak_rss_mb']:,} | {row['date']} "
            f"| {row['commit']} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--targets", type=int, nargs="*", default=[1000, 10_000, 100_000])
    parser.add_argument("--others", type=int, nargs="+", default=[0, 100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--eval-dir", type=Path, default=EVAL)
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--code", action="append", default=[], metavar="NAME=PATH")
    parser.add_argument("--load-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--measure-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--report", action="store_true", help="print the results as a table")
    args = parser.parse_args()
    if args.report:
        print(report(args.results), end="")
        return
    if args.data_dir is None:
        parser.error("--data-dir is required to load and measure")
    codes = [tuple(spec.split("=", 1)) for spec in args.code] or [("this", "")]
    if args.measure_only:
        [(code, _)] = codes
        record(args, measure(args, code, args.others[0]))
        return
    print("| code | DocSet chunks | other chunks | recall@10 | hybrid p50 | p95 | vector p50 |")
    print("|---|---:|---:|---:|---:|---:|---:|", flush=True)
    for others in sorted(args.others):
        load(args, others)
        if args.load_only:
            continue
        for code, tree in codes:
            if tree:
                run_measure_child(args, code, Path(tree).resolve(), others)
            else:
                record(args, measure(args, code, others))


if __name__ == "__main__":
    main()
