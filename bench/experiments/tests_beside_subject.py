"""Do tests and examples sink better below the file they test, and only there? (issue 35)

Lowering every test and example file (`secondary_factor`) helps the SWE-QA sets and costs
the code set, 64 of whose 248 questions are answered by a test file whose subject is not in
the corpus ("How does the DefaultCredentialRetrievers class avoid duplicate instances?",
answered by `DefaultCredentialRetrieversTest.java` alone). Here a test or example is lowered
only when the file it is about is among the candidates too: `test_fixtures.py`,
`testing/python/fixtures.py` or `FixturesTest.java` beside `fixtures.py` / `Fixtures.java`,
`test_ext_autodoc.py` beside `sphinx/ext/autodoc/__init__.py` (its name words, less
test/spec/example, all in the subject's path), never when the question asks about tests. A
test then sinks below its subject, not below everything.

Scored on top of the shipped ranking (`RankingOptions()`) over the pool's saved candidates:
the shipped hits' scores, a found test's times the factor, re-sorted. The factor is chosen
under leave-one-set-out with the guards as `quality_pool.py` chooses (`tuned_jointly`);
prints each fold's held-out figures beside the shipped ones, then every factor in sample,
lowered beside a subject and everywhere.

Usage (from the repository root, after `quality_pool.py candidates`):
    python bench/experiments/tests_beside_subject.py --work /work/pool --factors 1,0.85,0.7,0.5
"""

import dataclasses
import sys
from pathlib import Path, PurePosixPath
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import quality_pool as qp

from bench.experiments.tried_signals.tests_lowered import is_secondary
from ragspace.ranking.options import RankingOptions
from ragspace.ranking.signals.file_names import name_terms

# stems of the words that make a file name a test's or an example's (terms.terms stems them)
_ROLE_WORDS = frozenset({"test", "spec", "exampl", "sampl", "demo"})


@dataclasses.dataclass(frozen=True)
class Options:
    """The shipped ranking, then tests and examples times `factor` (1: the shipped ranking
    alone): only those whose subject is offered too, or (`everywhere`) all of them."""

    factor: float = 1.0
    everywhere: bool = False


def subject_of(path: str) -> frozenset[str]:
    """The name words of the file a test or example is about: its own less the role words."""
    return name_terms(path) - _ROLE_WORDS


def lowered(question: qp.Question, everywhere: bool) -> set[int]:
    """The chunk ids of the question's test and example candidates to lower."""
    offer = question.offer
    if offer.profile.asks_about_tests:
        return set()
    secondary = [c.hit for c in offer.candidates if is_secondary(c.hit.path)]
    if everywhere:
        return {hit.chunk_id for hit in secondary}
    subjects = {path_terms(c.hit.path) for c in offer.candidates if not is_secondary(c.hit.path)}
    return {
        hit.chunk_id
        for hit in secondary
        if (s := subject_of(hit.path)) and any(s <= words for words in subjects)
    }


def path_terms(path: str) -> frozenset[str]:
    """The name words of every part of a path: `sphinx/ext/autodoc/__init__.py` names
    sphinx, ext, autodoc and init (a test is named after its subject's folder as often as
    after its file: `tests/test_ext_autodoc.py`)."""
    return frozenset(t for part in PurePosixPath(path).parts for t in name_terms(part))


def family(depth: int) -> Any:
    """Rankings by options: `Options`, or for the protocol's reference plain
    `RankingOptions` (today's ranking, nothing lowered)."""

    def ranking(options: Options | RankingOptions) -> qp.Ranking:
        base = options if isinstance(options, RankingOptions) else RankingOptions()
        step = Options() if isinstance(options, RankingOptions) else options

        def ranked(q: qp.Question) -> list[Any]:
            hits = qp.ranked(q, base, limit=None)
            if step.factor == 1.0:
                return hits[: qp.K]
            low = lowered(q, step.everywhere)
            scored = [
                (hit.score * (step.factor if hit.chunk_id in low else 1.0), position)
                for position, hit in enumerate(hits)
            ]
            scored.sort(key=lambda item: (-item[0], item[1]))
            return [hits[position] for _score, position in scored[: qp.K]]

        return qp.at_depth(ranked, depth)

    return ranking


def main() -> None:
    parser = qp.experiment_parser(__doc__)
    parser.add_argument("--factors", default="1,0.85,0.7,0.5")
    args = parser.parse_args()
    depth, pool, floors = qp.experiment_pool(args)
    factors = [float(f) for f in args.factors.split(",")]
    ranking = family(depth)
    tuned = qp.tuned_jointly(pool, ranking, {"factor": factors}, Options(), floors)
    shipped = {name: qp.scores(questions, ranking(Options())) for name, questions in pool.items()}
    qp.print_experiment(pool, tuned, shipped, "shipped")
    for everywhere in (False, True):
        for factor in factors:
            label = f"{'everywhere' if everywhere else 'beside subject'} {factor}"
            print(qp.in_sample_line(label, pool, ranking(Options(factor, everywhere))))


if __name__ == "__main__":
    main()
