"""How many candidates should each side offer the ranking? (issue 35, 2026-11-28)

Quality: the pool's saved candidates (100 a side) cut to each depth, the shipped ranking
(`RankingOptions()`) over them, the depth chosen under leave-one-set-out with the guards as
`quality_pool.py` chooses (`tuned_jointly`); prints each fold's held-out figures beside
those at the app's depth, then every depth in sample.

Latency (`--latency`): real searches (`Retriever.search`, hybrid, the query embedded each
time) on the pool's DocSets, each question at every depth in turn, the order alternating
from round to round, so machine load hits the depths alike; median and p95 per set and depth.

Usage (from the repository root, after `quality_pool.py candidates`):
    python bench/experiments/candidate_depth.py --work /work/pool [--latency --rounds 3]
"""

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import quality_pool as qp

from ragspace.models import SearchQuery
from ragspace.ranking.options import RankingOptions
from ragspace.settings.retrieval import RETRIEVAL_CANDIDATES


@dataclasses.dataclass(frozen=True)
class Options:
    """The shipped ranking over this many candidates a side."""

    depth: int = RETRIEVAL_CANDIDATES


def family(options: Options | RankingOptions) -> qp.Ranking:
    """Rankings by `Options`, or by plain `RankingOptions` at the app's depth (the
    protocol's reference)."""
    depth = options.depth if isinstance(options, Options) else RETRIEVAL_CANDIDATES
    ranking = RankingOptions() if isinstance(options, Options) else options
    return qp.at_depth(lambda q: qp.ranked(q, ranking), depth)


def quality(work: Path, depths: list[int]) -> None:
    pool = qp.load_pool(work, qp.chosen_sets(None))
    floors = qp.side_floors(json.loads(qp.RESULTS.read_text())["rows"])
    tuned = qp.tuned_jointly(pool, family, {"depth": depths}, Options(), floors)
    today = {name: qp.scores(questions, family(Options())) for name, questions in pool.items()}
    qp.print_experiment(pool, tuned, today, f"at {RETRIEVAL_CANDIDATES}")
    for depth in depths:
        print(
            f"depth {depth}: "
            + "  ".join(
                f"{n} {qp.headline_cell(n, qp.scores(qs, family(Options(depth))))}"
                for n, qs in pool.items()
            )
        )


def latency(work: Path, depths: list[int], rounds: int) -> None:
    from ragspace.runtime import open_runtime
    from ragspace.search.retrieval import RetrievalOptions, Retriever
    from ragspace.settings import load_settings

    for pool_set in qp.chosen_sets(None):
        runtime = open_runtime(
            load_settings(data_dir=qp.data_dir(work, pool_set), database_url=None), worker_threads=0
        )
        try:
            docset = runtime.store.docsets.named(pool_set.docset).id
            with runtime.store.pool.connection() as conn:
                counted = conn.execute(
                    "select count(*) from chunks where docset_id = %s", (docset,)
                ).fetchone()
            chunks = counted[0] if counted else 0
            retrievers = {
                d: Retriever(runtime.store, runtime.embedder, RetrievalOptions(candidates=d))
                for d in depths
            }
            questions = [q.text for q in qp.load_questions(pool_set).queries]
            timings: dict[int, list[float]] = {d: [] for d in depths}
            for round_ in range(rounds + 1):  # round 0 warms caches and is not counted
                for index, question in enumerate(questions):
                    order = depths if (index + round_) % 2 == 0 else depths[::-1]
                    for depth in order:
                        started = time.perf_counter()
                        retrievers[depth].search(
                            SearchQuery(question=question).within([docset]), qp.K
                        )
                        if round_ > 0:
                            timings[depth].append((time.perf_counter() - started) * 1000)
            for depth in depths:
                values = sorted(timings[depth])
                p95 = values[int(0.95 * (len(values) - 1))]
                print(
                    f"{pool_set.name:12s} depth {depth:3d}: p50 {statistics.median(values):6.1f} ms"
                    f"  p95 {p95:6.1f} ms  ({len(values)} searches, {chunks:,}"
                    " chunks)",
                    flush=True,
                )
        finally:
            runtime.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/work/pool"))
    parser.add_argument("--depths", default="30,50,75,100")
    parser.add_argument("--latency", action="store_true", help="time real searches instead")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    depths = [int(d) for d in args.depths.split(",")]
    if args.latency:
        latency(args.work, depths, args.rounds)
    else:
        quality(args.work, depths)


if __name__ == "__main__":
    main()
