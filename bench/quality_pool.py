"""Retrieval quality over every shared set, chosen under leave-one-set-out (issue 35).

Three steps, each resumable:

    python bench/quality_pool.py index       # a fresh data folder per set, filled as a user would
    python bench/quality_pool.py candidates  # every question's candidates, DEPTH per side
    python bench/quality_pool.py evaluate [--write]   # the table and the held-out folds

`index` unpacks the SWE-QA tarballs and runs `ragspace docset create` + `ragspace add dir
--wait`, and `ragspace eval` for the two corpus sets, each in its own data folder under
--work (no set shares a database with another); then one more data folder whose DocSet
holds both corpus sets, which the guards ask (GUARDS). `candidates` asks the real store for each
side's candidates (Retriever.candidates, the query the app runs) and saves them, so that
ranking variants, plain Python over those lists (ragspace/ranking/), are scored in seconds.
`evaluate` scores every mode and variant at chunk and file level; a tunable variant's
parameters are chosen on the other sets and scored on the held-out one, for each fold, and
only those held-out figures are reported for it. `--write` saves bench/results/quality_pool.json
(`--results` elsewhere).

The sets (bench/pool/sets.py): the five of issue 35 and semble-dev's 15 repositories (issue
68), each unpacked from its tarball and added with `ragspace add dir` in its own data folder,
each a fold, the repositories counted as one group when a fold chooses (bench/pool/choice.py);
docs-dev's two sites are guards indexed the same way. `--sets a,b` restricts every step;
`evaluate --peer PEER.json` (semble_peer.py's --json output) sets the peer's figures beside
semble-dev's in the report.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: bench.pool

# The protocol's steps live in bench/pool/; experiments over the saved pool import them from
# here too (`import quality_pool as qp`), so every name they use is re-exported.
from bench.pool.candidates import dump_candidates, found_json, save_candidates
from bench.pool.choice import (
    Choice,
    folds_of,
    guards_seen,
    leave_one_set_out,
    ranks_alike,
    side_floors,
    training_sets,
    tuned_jointly,
)
from bench.pool.indexing import index, index_mixed
from bench.pool.protocol import evaluate, stack, wins
from bench.pool.questions import (
    Question,
    cut,
    cut_question,
    experiment_parser,
    experiment_pool,
    load_pool,
    load_questions_with_candidates,
)
from bench.pool.report import (
    headline_cell,
    in_sample_line,
    print_experiment,
    print_guards,
    print_row,
    readme_report,
    report,
)
from bench.pool.scoring import (
    LEVEL_METRICS,
    OBJECTIVE,
    AppRanking,
    Ranking,
    at_depth,
    fold_scores,
    objective,
    ranked,
    scores,
    short,
    side_alone,
    today_ranking,
)
from bench.pool.sets import (
    DEPTH,
    GUARDS,
    HEADLINE,
    HEADLINE_LABELS,
    MIXED,
    RESULTS,
    SETS,
    SHARED,
    K,
    PoolSet,
    candidates_file,
    chosen_sets,
    data_dir,
    load_questions,
    set_named,
)
from bench.pool.variants import axes_of, variants

__all__ = [
    "DEPTH",
    "GUARDS",
    "HEADLINE",
    "HEADLINE_LABELS",
    "LEVEL_METRICS",
    "MIXED",
    "OBJECTIVE",
    "RESULTS",
    "SETS",
    "SHARED",
    "AppRanking",
    "Choice",
    "K",
    "PoolSet",
    "Question",
    "Ranking",
    "at_depth",
    "axes_of",
    "candidates_file",
    "chosen_sets",
    "cut",
    "cut_question",
    "data_dir",
    "dump_candidates",
    "evaluate",
    "experiment_parser",
    "experiment_pool",
    "fold_scores",
    "folds_of",
    "found_json",
    "guards_seen",
    "headline_cell",
    "in_sample_line",
    "index",
    "index_mixed",
    "leave_one_set_out",
    "load_pool",
    "load_questions",
    "load_questions_with_candidates",
    "objective",
    "print_experiment",
    "print_guards",
    "print_row",
    "ranked",
    "ranks_alike",
    "readme_report",
    "report",
    "save_candidates",
    "scores",
    "set_named",
    "short",
    "side_alone",
    "side_floors",
    "stack",
    "today_ranking",
    "training_sets",
    "tuned_jointly",
    "variants",
    "wins",
]


def main() -> None:
    from ragspace.settings.retrieval import RETRIEVAL_CANDIDATES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("index", "candidates", "evaluate", "report"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/ragspace-pool"))
    parser.add_argument(
        "--depth",
        type=int,
        default=RETRIEVAL_CANDIDATES,
        help="candidates per side ranked (default: the app's, RAGSPACE_RETRIEVAL_CANDIDATES)",
    )
    parser.add_argument("--write", action="store_true", help="save the results (--results)")
    parser.add_argument("--results", type=Path, default=RESULTS, help="default: %(default)s")
    parser.add_argument("--peer", type=Path, help="semble_peer.py's --json output, for report")
    parser.add_argument("--sets", help="comma-separated subset of the sets (default: all)")
    parser.add_argument("--explore", action="store_true", help="also print every grid point")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.step == "report":
        print(report(args.results), end="")
        return
    sets = chosen_sets(args.sets.split(",") if args.sets else None)
    if args.step == "index":
        index(args.work, Path(sys.executable).parent / "ragspace", sets)
        return
    if args.step == "candidates":
        dump_candidates(args.work, sets)
    else:
        evaluate(args.work, sets, args.depth, args.write, args.explore, args.results, args.peer)


if __name__ == "__main__":
    main()
