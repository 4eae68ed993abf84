"""What the file side (document cards, issue 35) costs: search latency and card writes.

Run: python bench/experiments/file_side_latency.py --work /work/pool [--sets sphinx pylint]
     python bench/experiments/file_side_latency.py --work /work/pool --signal neighbours

With `--signal neighbours` the two rankings compared are the app's without and with the
files the symbol table links (`neighbour_weight`, `--weight`; one more query a search:
store/symbol_links.py), and no card is rewritten.

On the data folders `bench/quality_pool.py index` filled (real repositories: thousands of
files, so thousands of cards), each set's questions are searched as the app searches them
(query embedding included, hybrid, the app's ranking) with the file side off and on (the
app's default); per question the two run in an order that alternates, after five warm-up
searches; it prints the median and p95 ms of each (after a vacuum of the cards, as
autovacuum leaves them; the rewrite below leaves a dead version of each). Then every
document's card is rewritten once (`refresh_document_card`, what a chunk swap adds to
ingestion), timed in total and per document.
"""

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: shared helpers
from quality_pool import SETS, data_dir, load_questions
from query_latency import percentile

from ragspace.models import RetrievalMode, SearchQuery
from ragspace.ranking.options import RankingOptions
from ragspace.runtime import open_runtime
from ragspace.search.retrieval import RetrievalOptions, Retriever
from ragspace.settings import load_settings
from ragspace.store import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--sets", nargs="+", default=["pytest", "sphinx", "pylint"])
    parser.add_argument("--signal", choices=("file", "neighbours"), default="file")
    parser.add_argument(
        "--weight",
        type=float,
        default=RankingOptions().neighbour_weight,
        help="neighbour_weight when on (default: the app's)",
    )
    args = parser.parse_args()
    print(f"| set | {args.signal} | p50 ms | p95 ms | files: card rewrite s (per file ms) |")
    print("|---|---|---:|---:|---:|")
    for pool_set in (s for s in SETS if s.name in args.sets):
        settings = load_settings(data_dir=data_dir(args.work, pool_set), database_url=None)
        runtime = open_runtime(settings, worker_threads=0)
        try:
            store = runtime.store
            docset = store.docsets.named(pool_set.docset).id
            on = RankingOptions()  # the app's ranking
            off = dataclasses.replace(on, file_weight=0.0)
            if args.signal == "neighbours":
                off = dataclasses.replace(on, neighbour_weight=0.0)
                on = dataclasses.replace(on, neighbour_weight=args.weight)
            retrievers = {
                name: Retriever(store, runtime.embedder, RetrievalOptions(ranking=options))
                for name, options in (("off", off), ("on", on))
            }
            with store.pool.connection() as conn:  # as autovacuum leaves the table
                conn.autocommit = True
                conn.execute("vacuum analyze document_cards")
            questions = [q.text for q in load_questions(pool_set).queries]
            for question in questions[:5]:
                for retriever in retrievers.values():
                    retriever.search(
                        SearchQuery(question=question, mode=RetrievalMode.HYBRID).within([docset]),
                        10,
                    )
            timings: dict[str, list[float]] = {name: [] for name in retrievers}
            for number, question in enumerate(questions):
                order = list(retrievers) if number % 2 == 0 else list(reversed(retrievers))
                for name in order:
                    started = time.perf_counter()
                    retrievers[name].search(
                        SearchQuery(question=question, mode=RetrievalMode.HYBRID).within([docset]),
                        10,
                    )
                    timings[name].append((time.perf_counter() - started) * 1000)
            rewrites = rewrite_cards(store, docset) if args.signal == "file" else "-"
            for name, values in timings.items():
                print(
                    f"| {pool_set.name} | {name} | {statistics.median(values):.1f} | "
                    f"{percentile(values, 95):.1f} | {rewrites} |"
                )
        finally:
            runtime.close()


def rewrite_cards(store: Store, docset: int) -> str:
    """Every card of the DocSet rewritten once: `files: seconds (ms per file)`."""
    with store.pool.connection() as conn:
        started = time.perf_counter()
        row = conn.execute(
            "select count(*) from (select refresh_document_card(id) from documents"
            " where docset_id = %s) rewritten",
            (docset,),
        ).fetchone()
        seconds = time.perf_counter() - started
    files = row[0] if row is not None else 0
    return f"{files:,}: {seconds:.2f} ({seconds / max(files, 1) * 1000:.2f})"


if __name__ == "__main__":
    main()
