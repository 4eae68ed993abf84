"""Should a keyword-only search (before the vectors land) spread code files over its list
when the question names no code symbol? (issue 68)

semble spreads every search: each further chunk of a file already listed counts half, and
the protocol's codebase set refuses it (its questions ask about one file's details: chunk
R@10 0.921 -> 0.842). A question that names a symbol (`Soundex`, `` `_modules` ``) is about
that code, and the file defining it should keep its chunks together; a question that names
none ("thread pool and work queue for async operations") asks where a topic lives, and
several files answer it. This scores the keyword-only ranking with code files spread for
such questions only, at each decay (1 - (1 - decay) x the second file's best score over the
best file's, to a power: a file far above the rest keeps its chunks), over the saved pool
(each question without its vector side), chooses the point under leave-one-set-out and
prints each fold's choice and held-out figures, then every point's figures on every set;
`--every-question` spreads questions that name a symbol too. A fold's point is chosen by the
protocol's `Choice` (bench/pool/choice.py: the mean objective over groups, semble-dev's
repositories one, plus the worst group's change, less every shortfall of a guard the fold
sees below its figure less 0.01), against today's keyword-only ranking (no spread), with no
side floors (a keyword-only search has one side).

    python bench/experiments/keyword_files_spread.py --work /work/pool [--every-question] \
        [--json FOLDS.json]    # the folds, for bench/semble_dev.py evaluate --folds
"""

import dataclasses
import itertools
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.pool.choice import Choice, folds_of, training_sets
from bench.pool.questions import Question, experiment_parser, experiment_pool
from bench.pool.report import headline_cell, headline_line
from bench.pool.scoring import K, Ranking, keyword_sides, ranked
from bench.pool.sets import GUARDS, SEMBLE_SETS, headline_of

DECAYS = (1.0, 0.7, 0.5, 0.3)
POWERS = (0.0, 1.0, 2.0, 4.0)


def family(every_question: bool) -> Any:
    """The keyword-only ranking at a point, as the app ranks (signals/documents_spread.py:
    files spread for a question naming no symbol); with `every_question`, a question naming
    one spread too."""
    from ragspace.ranking.query import QueryProfile
    from ragspace.ranking.signals.documents_spread import competition_decay, spread
    from ragspace.search.keyword_ranking import for_candidates

    def at(options: Any) -> Ranking:
        def ranking(question: Question) -> list[Any]:
            chosen = for_candidates(options, question.candidates)
            if not (every_question and QueryProfile(question.text).symbols):
                return ranked(question, chosen)
            # the app keeps this question's files together: spread its whole ranking here
            hits = [(hit.score, hit) for hit in ranked(question, chosen, limit=None)]
            power = chosen.file_spread_power
            decay = competition_decay(hits, chosen.file_decay, power, prose=False)
            return [hit for _score, hit in spread(hits, 1.0, decay)][:K]

        return ranking

    return at


def grid() -> list[Any]:
    from bench.experiments.tried_signals.options import tried
    from ragspace.search.keyword_ranking import keyword_only_ranking

    base = dataclasses.replace(tried(keyword_only_ranking()), file_decay=1.0, file_spread_power=0.0)
    points = [base]
    for decay, power in itertools.product(DECAYS[1:], POWERS):
        points.append(dataclasses.replace(base, file_decay=decay, file_spread_power=power))
    return points


def label(point: Any) -> str:
    return f"decay {point.file_decay} power {point.file_spread_power}"


def semble_folds(
    folds: dict[str, dict[str, Any]], points: list[Any], semble: set[str]
) -> dict[str, Any]:
    """semble-dev's folds as bench/semble_dev.py's `--folds` reads them (its figures' names)."""
    return {
        "experiment": "bench/experiments/keyword_files_spread.py",
        "folds": {
            name: {
                "chosen": label(points[fold["chosen"]]),
                "scores": {
                    "ndcg@10": fold["scores"]["chunk ndcg@10"],
                    "mrr@10": fold["scores"]["chunk mrr@10"],
                },
            }
            for name, fold in folds.items()
            if name in semble
        },
    }


def main() -> None:
    parser = experiment_parser(__doc__)
    parser.add_argument("--every-question", action="store_true")
    parser.add_argument("--json", type=Path, help="semble-dev's folds, for semble_dev.py --folds")
    args = parser.parse_args()
    _depth, pool, _floors = experiment_pool(args)
    alone: dict[str, list[Question]] = {
        name: [keyword_sides(q) for q in questions] for name, questions in pool.items()
    }
    semble = {s.name for s in SEMBLE_SETS}
    points = grid()
    at = family(args.every_question)
    no_floors: dict[str, dict[str, float]] = {name: {} for name in alone}
    choice = Choice(alone, at, points, no_floors, today=points[0])
    table, indices = choice.table, range(len(points))
    folds = {}
    for held_out in folds_of(alone):
        chosen = choice.best(indices, training_sets(alone, held_out))
        folds[held_out] = {"chosen": chosen, "scores": table[chosen][held_out]}
    everywhere = choice.best(indices, folds_of(alone))
    repos = []
    for name, fold in folds.items():
        chosen, held = label(points[fold["chosen"]]), headline_cell(name, fold["scores"])
        print(f"without {name}: {chosen}, held out {held}")
        if name in semble:
            repos.append(fold["scores"][headline_of(name)[0]])
    if repos:
        print(f"semble-dev held out, repo mean NDCG@10 {sum(repos) / len(repos):.3f}")
    print(f"chosen on every set: {label(points[everywhere])}")
    for guard in (name for name in alone if name in GUARDS):
        cell = headline_cell(guard, table[everywhere][guard])
        print(f"guard {guard}: today {headline_cell(guard, table[0][guard])}, chosen {cell}")
    if args.json:
        args.json.write_text(json.dumps(semble_folds(folds, points, semble), indent=1) + "\n")
    for point in points:
        print(headline_line(label(point), alone, at(point)), flush=True)


if __name__ == "__main__":
    main()
