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
parameters are chosen on four sets and scored on the fifth, for each fold, and only those
held-out figures are reported for it. `--write` saves bench/results/quality_pool.json.
"""

import argparse
import dataclasses
import itertools
import json
import multiprocessing
import os
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "eval"
RESULTS = ROOT / "bench" / "results" / "quality_pool.json"
DEPTH = 100  # candidates saved per side; the app takes RAGSPACE_RETRIEVAL_CANDIDATES of them
K = 10


@dataclass(frozen=True)
class PoolSet:
    """One shared set: its questions, the DocSet that holds its corpus, how it is indexed."""

    name: str
    questions: Path
    docset: str
    tarball: Path | None = None  # a SWE-QA checkout, added with `ragspace add dir`


SETS = (
    PoolSet("claude-docs", SHARED / "claude-docs", "eval-claude-docs"),
    PoolSet("codebase", SHARED / "codebase", "eval-codebase"),
    PoolSet(
        "pytest",
        SHARED / "sweqa-dev/pytest.jsonl",
        "pytest",
        SHARED / "sweqa-dev/pytest-5989efe.tar.gz",
    ),
    PoolSet(
        "sphinx",
        SHARED / "sweqa-dev/sphinx.jsonl",
        "sphinx",
        SHARED / "sweqa-dev/sphinx-6c9e320.tar.gz",
    ),
    PoolSet(
        "pylint",
        SHARED / "sweqa-dev/pylint.jsonl",
        "pylint",
        SHARED / "sweqa-dev/pylint-44740e5.tar.gz",
    ),
)


# Guards: two sets' questions asked of one DocSet that holds both corpora (the docs pages
# and the code files side by side, as in a repository with its documentation), so that a
# ranking that favours code for code questions is also seen on docs questions beside code.
# A guard is never a fold of its own (its questions are its source set's): a fold that
# holds its source set out does not see it. Each fold's choice must keep every guard it
# sees within 0.01 of today's ranking (Choice), and a row is kept only when its default
# keeps every guard within 0.01 of the row it replaces (wins).
GUARDS = {"claude-docs beside code": "claude-docs", "codebase beside docs": "codebase"}
MIXED = PoolSet("mixed", SHARED, "eval-mixed")  # the guards' data folder and DocSet


def data_dir(work: Path, pool_set: PoolSet) -> Path:
    return work / f"data-{pool_set.name}"


# Step 1: index


def index(work: Path, ragspace: Path) -> None:
    """Fill each set's own data folder through the CLI, as a user would; skip finished ones."""
    for pool_set in SETS:
        folder = data_dir(work, pool_set)
        if (folder / "indexed").exists():
            print(f"{pool_set.name}: indexed already", file=sys.stderr)
            continue
        env = {**os.environ, "RAGSPACE_DATA_DIR": str(folder)}
        log = (work / f"index-{pool_set.name}.log").open("w")
        if pool_set.tarball is None:
            command = [str(ragspace), "eval", str(pool_set.questions), "--data-dir", str(folder)]
            run([*command, "--modes", "hybrid", "--limit", "1", "--no-grade"], env, log)
        else:
            with tarfile.open(pool_set.tarball) as archive:
                archive.extractall(work / "src", filter="data")
            checkout = work / "src" / pool_set.name
            run([str(ragspace), "docset", "create", pool_set.docset], env, log)
            run([str(ragspace), "add", "dir", pool_set.docset, str(checkout), "--wait"], env, log)
        (folder / "indexed").touch()
        print(f"{pool_set.name}: indexed", file=sys.stderr)
    index_mixed(work)


def index_mixed(work: Path) -> None:
    """The guards' DocSet: both corpus sets' documents in one, stored and embedded the way
    `ragspace eval` stores one set's (evaluation.store_corpus, then the ingestor)."""
    from ragspace.actions.corpora import store_corpus
    from ragspace.runtime import open_runtime
    from ragspace.settings import load_settings

    folder = data_dir(work, MIXED)
    if (folder / "indexed").exists():
        print("guards: indexed already", file=sys.stderr)
        return
    runtime = open_runtime(load_settings(data_dir=folder, database_url=None), worker_threads=0)
    try:
        if MIXED.docset not in {d.name for d in runtime.store.docsets.all()}:
            runtime.actions.docsets.create(MIXED.docset)
            for source in GUARDS.values():
                store_corpus(runtime.store, MIXED.docset, load_questions(set_named(source)))
        runtime.ingestor.process_all()
    finally:
        runtime.close()
    (folder / "indexed").touch()
    print("guards: indexed", file=sys.stderr)


def set_named(name: str) -> PoolSet:
    return next(s for s in SETS if s.name == name)


def run(command: list[str], env: dict[str, str], log: Any) -> None:
    subprocess.run(command, env=env, stdout=log, stderr=subprocess.STDOUT, check=True)


# Step 2: candidates


def chosen_sets(names: Sequence[str] | None) -> tuple[PoolSet, ...]:
    return tuple(s for s in SETS if names is None or s.name in names)


def dump_candidates(work: Path, sets: Sequence[PoolSet]) -> None:
    """Each question's candidates from the set's own database, saved as JSON lines; the
    guards' too when their source set is among `sets`."""
    for pool_set in sets:
        queries = load_questions(pool_set).queries
        save_candidates(data_dir(work, pool_set), pool_set.docset, queries, work / pool_set.name)
    for guard, source in GUARDS.items():
        if source in {s.name for s in sets}:
            queries = load_questions(set_named(source)).queries
            save_candidates(data_dir(work, MIXED), MIXED.docset, queries, work / guard)


def candidates_file(work_and_name: Path) -> Path:
    """Where a set's (or guard's) candidates are saved: `candidates-<name>.jsonl`."""
    return work_and_name.parent / f"candidates-{work_and_name.name.replace(' ', '-')}.jsonl"


def save_candidates(folder: Path, docset_name: str, queries: Sequence[Any], name: Path) -> None:
    """Every side's candidates for each question from one DocSet, with the sub-questions'
    and the symbol table's links between the candidates' documents."""
    from ragspace.models import RetrievalMode
    from ragspace.ranking.ranker import RankingOptions
    from ragspace.runtime import open_runtime
    from ragspace.search.retrieval import RetrievalOptions, Retriever
    from ragspace.settings import load_settings

    runtime = open_runtime(load_settings(data_dir=folder, database_url=None), worker_threads=0)
    try:
        store = runtime.store
        # every side, the document side too, whatever the ranking then uses
        options = RetrievalOptions(
            candidates=DEPTH, ranking=RankingOptions(document_weight=1.0, file_weight=1.0)
        )
        retriever = Retriever(store, runtime.embedder, options)
        docset = store.docsets.named(docset_name).id
        with candidates_file(name).open("w") as out:
            for query in queries:
                mode = RetrievalMode.HYBRID
                found = retriever.candidates(query.text, [docset], DEPTH, mode)
                parts = retriever.part_candidates(query.text, [docset], DEPTH, mode)
                documents = {c.hit.document_id for c in found}
                links = store.symbol_links(documents, documents)  # every pair
                row = {
                    "question": query.text,
                    "candidates": found_json(found),
                    "parts": [{"question": p, "candidates": found_json(c)} for p, c in parts],
                    # the symbol table's links between the candidates' documents
                    "links": {a: list(linked.items()) for a, linked in links.items()},
                }
                out.write(json.dumps(row) + "\n")
    finally:
        runtime.close()
    print(f"{name.name}: candidates saved", file=sys.stderr)


def found_json(candidates: Sequence[Any]) -> list[dict[str, Any]]:
    return [
        {
            "hit": c.hit.model_dump(mode="json"),
            "evidence": {side.value: [e.rank, e.score] for side, e in c.evidence.items()},
        }
        for c in candidates
    ]


def load_questions(pool_set: PoolSet) -> Any:
    from ragspace.eval.datasets import load_dataset

    return load_dataset(pool_set.questions)


# Step 3: evaluate


@dataclass(frozen=True)
class Question:
    """A question with its gold and what each side offered for it."""

    text: str
    query: Any  # EvalQuery
    candidates: list[Any]  # ragspace.ranking.candidates.Candidate
    parts: list[tuple[str, list[Any]]]  # its sub-questions with their candidates
    # the symbol table's links between its candidates' documents (store/symbol_links.py)
    links: dict[int, dict[int, float]] = dataclasses.field(default_factory=dict)
    depth: int = DEPTH  # candidates a side at most

    @cached_property
    def offer(self) -> Any:
        """Its candidates as ranking sees them (ranking.offer.Offer), derived once for every
        ranking of the question: the grids rank each question thousands of times."""
        from ragspace.ranking.offer import Offer

        return Offer(self.text, self.candidates)

    @cached_property
    def remembered(self) -> dict[Any, dict[str, float]]:
        """Its figures by canonical options (question_scores)."""
        return {}

    @cached_property
    def part_offers(self) -> list[Any]:
        from ragspace.ranking.offer import Offer

        return [Offer(text, found) for text, found in self.parts]


def load_pool(work: Path, sets: Sequence[PoolSet]) -> dict[str, list[Question]]:
    """Every set's questions with their saved candidates, then the guards' whose source set
    is among `sets` and whose candidates were saved."""
    pool = {s.name: load_questions_with_candidates(work / s.name, s) for s in sets}
    for guard, source in GUARDS.items():
        if source in pool and candidates_file(work / guard).exists():
            pool[guard] = load_questions_with_candidates(work / guard, set_named(source))
    return pool


def load_questions_with_candidates(name: Path, pool_set: PoolSet) -> list[Question]:
    from ragspace.models import Hit
    from ragspace.ranking.candidates import Candidate, Evidence, Side

    def loaded(found: list[dict[str, Any]]) -> list[Any]:
        return [
            Candidate(
                Hit.model_validate(c["hit"]),
                {Side(side): Evidence(int(r), float(s)) for side, (r, s) in c["evidence"].items()},
            )
            for c in found
        ]

    queries = {q.text: q for q in load_questions(pool_set).queries}
    questions = []
    for line in candidates_file(name).open():
        row = json.loads(line)
        parts = [(p["question"], loaded(p["candidates"])) for p in row.get("parts", [])]
        text = row["question"]
        links = {
            int(a): {int(b): float(w) for b, w in linked}
            for a, linked in row.get("links", {}).items()
        }
        questions.append(Question(text, queries[text], loaded(row["candidates"]), parts, links))
    return questions


def experiment_parser(doc: str, depth: int | None = None) -> argparse.ArgumentParser:
    """The arguments every experiment over the saved pool takes: --work, --depth (`depth`,
    or the app's when None), --sets."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/work/pool"))
    parser.add_argument("--depth", type=int, default=depth, help="default: the app's")
    parser.add_argument("--sets", default=None, help="a comma-separated subset (default: all)")
    return parser


def experiment_pool(
    args: argparse.Namespace,
) -> tuple[int, dict[str, list[Question]], dict[str, dict[str, float]]]:
    """An experiment's depth (the app's unless --depth), its pool cut to that depth and
    the sides' floors of the published rows (for `tuned_jointly`)."""
    from ragspace.settings.retrieval import RETRIEVAL_CANDIDATES

    depth = args.depth or RETRIEVAL_CANDIDATES
    pool = load_pool(args.work, chosen_sets(args.sets and args.sets.split(",")))
    cut = {name: [cut_question(q, depth) for q in qs] for name, qs in pool.items()}
    floors = side_floors(json.loads(RESULTS.read_text())["rows"])
    return depth, cut, floors


def folds_of(pool: dict[str, list[Question]]) -> list[str]:
    """The sets that are folds (every set but the guards)."""
    return [name for name in pool if name not in GUARDS]


def guards_seen(pool: dict[str, list[Question]], training: Sequence[str]) -> list[str]:
    """The guards a fold may look at: those whose source set it trains on."""
    return [name for name, source in GUARDS.items() if name in pool and source in training]


# a question -> the K hits a search returns (at most one per prose section)
Ranking = Callable[[Question], list[Any]]


def scores(questions: Sequence[Question], ranking: Ranking) -> dict[str, float]:
    """Mean metrics at chunk and file level of one ranking over a set's questions."""
    totals: dict[str, float] = {}
    for question in questions:
        for key, value in question_scores(question, ranking).items():
            totals[key] = totals.get(key, 0.0) + value
    return {key: value / len(questions) for key, value in totals.items()}


def question_scores(question: Question, ranking: Ranking) -> dict[str, float]:
    """One question's metrics at chunk and file level under the ranking; for the app's
    ranking, remembered under the options' canonical form for the question whenever that
    differs from the options (signals the question gives nothing to act on: its figures
    are those of the options without them, which other grid points share)."""
    if isinstance(ranking, AppRanking):
        key = ranking.canonical(question)
        if key != ranking.options:
            remembered = question.remembered
            if key not in remembered:
                remembered[key] = _question_scores(question, ranking)
            return remembered[key]
    return _question_scores(question, ranking)


def _question_scores(question: Question, ranking: Ranking) -> dict[str, float]:
    from ragspace.eval.evaluation import match_hits, score_query, whole_files

    figures = {}
    hits = ranking(question)
    files = whole_files(question.query)
    for level, gold in (("chunk", question.query.gold), ("file", files.gold)):
        for metric, value in score_query(match_hits(hits, gold), len(gold)).items():
            figures[f"{level} {metric}"] = value
    return figures


@dataclass(frozen=True)
class AppRanking:
    """The app's ranking with `options` (RankingOptions) over the first `depth` candidates a
    side: a Ranking whose figures question_scores can remember."""

    options: Any
    depth: int

    def __call__(self, question: Question) -> list[Any]:
        return ranked(cut_question(question, self.depth), self.options)

    def canonical(self, question: Question) -> Any:
        from ragspace.ranking.ranker import canonical

        if self.options.sub_question_weight and question.parts:
            return self.options  # the parts' candidates are ranked with these options too
        return canonical(self.options, cut_question(question, self.depth).offer)


# the figure a parameter choice maximises, averaged over the training sets: every level's
# R@10 and MRR count alike, so no set's headline metric dominates
OBJECTIVE = ("chunk recall@10", "chunk mrr@10", "file recall@10", "file mrr@10")


def objective(figures: dict[str, float]) -> float:
    return sum(figures[m] for m in OBJECTIVE) / len(OBJECTIVE)


def leave_one_set_out(
    pool: dict[str, list[Question]], family: Callable[[Any], Ranking], grid: Sequence[Any]
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, float]]]:
    """For each set: the grid point best on the other sets, and its scores on this one; and
    the guards' scores of the point best on every set (the row's default)."""
    table = {
        (name, repr(point)): scores(questions, family(point))
        for point in grid
        for name, questions in pool.items()
    }

    def best(training: Sequence[str]) -> Any:
        return max(
            grid,
            key=lambda p: sum(objective(table[(n, repr(p))]) for n in training) / len(training),
        )

    folds = {}
    for held_out in folds_of(pool):
        chosen = best(training_sets(pool, held_out))
        label = short(chosen) if chosen is not None else "-"
        folds[held_out] = {"chosen": label, "scores": table[(held_out, repr(chosen))]}
    everywhere = best(folds_of(pool))
    return folds, {guard: table[(guard, repr(everywhere))] for guard in pool if guard in GUARDS}


def tuned_jointly(
    pool: dict[str, list[Question]],
    family: Callable[[Any], Ranking],
    axes: Mapping[str, Sequence[Any]],
    start: Any,
    floors: dict[str, dict[str, float]],
) -> tuple[dict[str, dict[str, Any]], Any, dict[str, Any], dict[str, dict[str, float]]]:
    """Every point of the axes' grid (`start` with each combination of their values) scored
    on every set once; for each fold the point best on its four training sets (scored on the
    held-out one), and the point best on every set: the one the app ships. Returns the
    folds, that point, each fold's chosen point (what `stack` builds on) and the guards'
    scores of the default.

    The whole grid, not a climb from `start`: coordinate ascent stopped at a point that
    depended on the axes' order (sphinx's fold at 0.510 / 0.461 where the grid's best for
    its training sets scores 0.569 / 0.484; docs/benchmarks-log.md). Points are compared by
    `Choice.value`."""
    points = [
        dataclasses.replace(start, **dict(zip(axes, values, strict=True)))
        for values in itertools.product(*axes.values())
    ]
    choice = Choice(pool, family, points, floors)
    everything = range(len(points))
    folds, chosen = {}, {}
    for held_out in folds_of(pool):
        best = choice.best(everything, training_sets(pool, held_out))
        folds[held_out] = choice.fold(best, held_out)
        chosen[held_out] = points[best]
    everywhere = choice.best(everything, folds_of(pool))
    return folds, points[everywhere], chosen, choice.guards(everywhere)


def training_sets(pool: dict[str, list[Question]], held_out: str) -> list[str]:
    """The sets a fold chooses on (one set alone, exploring, can only be scored in sample)."""
    return [name for name in folds_of(pool) if name != held_out] or [held_out]


class Choice:
    """Grid points scored on every set once (one process per core), and the point a fold's
    training sets prefer.

    A point is worth its mean objective on the training sets plus its worst change there
    against today's ranking (a gain on three sets does not pay for a loss on the fourth),
    minus every shortfall below `floors` (the better single side's R@10 and MRR less 0.01,
    per set and level): the guarantee that fusion never loses to one of its inputs is part
    of what is learnt. Likewise every shortfall of a guard the fold sees (`guards_seen`)
    below today's ranking's figures on it less 0.01. Ties go to the earlier point."""

    def __init__(
        self,
        pool: dict[str, list[Question]],
        family: Callable[[Any], Ranking],
        points: Sequence[Any],
        floors: dict[str, dict[str, float]],
    ) -> None:
        self.points = list(points)
        keys = [ranks_alike(point) for point in self.points]
        distinct = list(dict.fromkeys(keys))  # points that rank alike are scored once
        print(f"    {len(distinct)} points x {len(pool)} sets", file=sys.stderr)
        global _GRID  # read by the forked workers, which inherit it (nothing is pickled but ints)
        _GRID = (pool, family, distinct)
        with multiprocessing.get_context("fork").Pool(os.cpu_count()) as workers:
            table = workers.map(_point_scores, range(len(distinct)), chunksize=16)
        scored = dict(zip(distinct, table, strict=True))
        self.table = [scored[key] for key in keys]
        today = {
            name: scores(questions, family(today_ranking())) for name, questions in pool.items()
        }
        self.before = {name: objective(figures) for name, figures in today.items()}
        guard_floors = {
            guard: {key: today[guard][key] - 0.01 for key in OBJECTIVE}
            for guard in pool
            if guard in GUARDS
        }
        self.floors = {**floors, **guard_floors}
        self.pool = pool

    def value(self, index: int, training: Sequence[str]) -> float:
        total, worst = 0.0, float("inf")
        for name in training:
            got = self.table[index][name]
            total += objective(got) - self.shortfall(index, name)
            worst = min(worst, objective(got) - self.before[name])
        guards = sum(self.shortfall(index, g) for g in guards_seen(self.pool, training))
        return total / len(training) + worst - guards

    def shortfall(self, index: int, name: str) -> float:
        got = self.table[index][name]
        return sum(max(0.0, floor - float(got[key])) for key, floor in self.floors[name].items())

    def guards(self, index: int) -> dict[str, dict[str, float]]:
        """A point's figures on every guard."""
        return {name: self.table[index][name] for name in self.pool if name in GUARDS}

    def best(self, indices: Iterable[int], training: Sequence[str]) -> int:
        return max(indices, key=lambda index: self.value(index, training))

    def fold(self, index: int, held_out: str) -> dict[str, Any]:
        """A fold's row cell: the point chosen and its figures on the held-out set."""
        return {"chosen": short(self.points[index]), "scores": self.table[index][held_out]}


_GRID: tuple[dict[str, list[Question]], Callable[[Any], Ranking], list[Any]] | None = None


def ranks_alike(point: Any) -> Any:
    """A key shared by the points that rank alike: RankingOptions' canonical form (other
    points, an experiment's own options, are their own key)."""
    from ragspace.ranking.ranker import RankingOptions, canonical

    return canonical(point) if isinstance(point, RankingOptions) else point


def _point_scores(index: int) -> dict[str, dict[str, float]]:
    """One grid point's figures on every set (in a worker process of Choice)."""
    assert _GRID is not None
    pool, family, points = _GRID
    return {name: scores(questions, family(points[index])) for name, questions in pool.items()}


def side_alone(side: Any) -> Ranking:
    """One side's own order (what the app's vector or keyword mode returns)."""

    from ragspace.ranking.candidates import Candidate
    from ragspace.ranking.ranker import rank

    def ranking(question: Question) -> list[Any]:
        offered = [Candidate(c.hit, {side: c.on(side)}) for c in question.candidates if c.on(side)]
        return rank(offered, today_ranking(), question.text, K)

    return ranking


def cut(candidates: Sequence[Any], depth: int) -> list[Any]:
    """Only the first `depth` candidates of each side (the app's setting)."""
    from ragspace.ranking.candidates import Candidate

    kept = []
    for c in candidates:
        evidence = {s: e for s, e in c.evidence.items() if e.rank <= depth}
        if evidence:
            kept.append(Candidate(c.hit, evidence))
    return kept


def cut_question(question: Question, depth: int) -> Question:
    """The question with only the first `depth` candidates of each side, its parts' too;
    the question itself when it holds no more (evaluate cuts the pool once, and keeping
    the question keeps its Offer)."""
    if question.depth <= depth:
        return question
    parts = [(text, cut(found, depth)) for text, found in question.parts]
    candidates = cut(question.candidates, depth)
    return dataclasses.replace(question, candidates=candidates, parts=parts, depth=depth)


def ranked(question: Question, options: Any, limit: int | None = K) -> list[Any]:
    """The question's hits as the app ranks its candidates with `options` (RankingOptions),
    the symbol table's saved links included; the `limit` best (all with None)."""
    from ragspace.ranking.ranker import rank_offer

    links = question.links
    return rank_offer(
        question.offer, options, limit, parts=question.part_offers, links=lambda *_: links
    )


def at_depth(ranking: Ranking, depth: int) -> Ranking:
    """The ranking over only the first `depth` candidates of each side."""
    return lambda question: ranking(cut_question(question, depth))


def variants(depth: int) -> Iterator[tuple[str, Callable[[Any], Ranking], list[Any]]]:
    """(name, family, grid): each variant a family of rankings over a parameter grid; a
    grid of one point is a fixed ranking."""
    from ragspace.models import Fusion
    from ragspace.ranking.candidates import Side
    from ragspace.ranking.ranker import RankingOptions

    def product(options: RankingOptions) -> Ranking:
        return AppRanking(options, depth)

    def grid(**axes: Sequence[Any]) -> list[RankingOptions]:
        points = [today_ranking()]
        for field, values in axes.items():
            points = [dataclasses.replace(p, **{field: v}) for p in points for v in values]
        return points

    shares = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
    yield "vector", lambda _p: at_depth(side_alone(Side.VECTOR), depth), [None]
    yield "keyword", lambda _p: at_depth(side_alone(Side.KEYWORD), depth), [None]
    yield "hybrid (today)", product, [today_ranking()]
    yield "convex, share chosen", product, grid(vector_share=shares)
    yield (
        "rrf, k and weight chosen",
        product,
        grid(fusion=[Fusion.RRF], rrf_k=(10, 30, 60), keyword_weight=(0.5, 0.75, 1.0, 1.25)),
    )
    yield "distribution scaling", product, grid(scaling=["distribution"], vector_share=shares)
    yield (
        "confidence weights",
        product,
        grid(confidence_power=(0.5, 1.0, 2.0), vector_share=(0.4, 0.5, 0.6)),
    )
    yield (
        "symbol-aware share",
        product,
        grid(vector_share=(0.5, 0.6, 0.7), symbol_vector_share=(0.2, 0.3, 0.4, 0.5)),
    )
    yield "+ definitions", product, grid(definition_boost=(0.1, 0.25, 0.5, 1.0, 2.0))
    yield "+ file names", product, grid(name_boost=(0.1, 0.25, 0.5))
    yield "+ file coherence", product, grid(coherence_boost=(0.1, 0.2, 0.4))
    yield "+ tests/examples lowered", product, grid(secondary_factor=(0.5, 0.7, 0.85))
    yield (
        "+ prose lowered for questions about code",
        product,
        grid(prose_factor=(0.3, 0.5, 0.7)),
    )
    yield "+ files spread", product, grid(file_decay=(0.5, 0.7, 0.85))
    yield "+ whole-document BM25", product, grid(document_weight=(0.1, 0.25, 0.5, 1.0))
    yield "+ sub-questions", product, grid(sub_question_weight=(0.5, 0.75, 0.9, 1.0))
    weights = (0.1, 0.25, 0.5, 1.0)
    yield "+ file cards", product, grid(file_weight=weights)
    yield (
        "+ file cards, best chunk lifted",
        product,
        grid(file_weight=weights, lift_best_chunk=[True]),
    )
    yield (
        "+ file cards, by their confidence",
        product,
        grid(
            file_weight=weights,
            file_confidence_power=(1.0, 2.0, 4.0),
            lift_best_chunk=[False, True],
        ),
    )
    yield (
        "+ file cards, files spread",
        product,
        grid(file_weight=(0.25, 0.5, 1.0), file_decay=(0.5, 0.7, 0.85)),
    )
    # as the cards: the file rises by its best chunk
    chunk_sides = {"lift_best_chunk": [True]}
    yield (
        "+ files' best vector chunks",
        product,
        grid(file_vector_weight=(*weights, 2.0), **chunk_sides),
    )
    yield (
        "+ files' best keyword chunks",
        product,
        grid(file_keyword_weight=(*weights, 2.0), **chunk_sides),
    )
    yield "+ files the symbol table links", product, grid(neighbour_weight=(0.1, 0.2, 0.3, 0.5))
    yield "kept signals, tuned jointly", product, {}  # type: ignore[misc]


def today_ranking() -> Any:
    """The ranking before this round (round 2): fusion only, every signal off."""
    from ragspace.ranking.ranker import RankingOptions, fusion_only

    return fusion_only(RankingOptions())


def axes_of(grid: Sequence[Any]) -> dict[str, list[Any]]:
    """The fields a grid varies, with the values it tries and the default's."""

    default = today_ranking()
    axes: dict[str, list[Any]] = {}
    for point in grid:
        for field in dataclasses.fields(point):
            value = getattr(point, field.name)
            if value != getattr(default, field.name):
                values = axes.setdefault(field.name, [getattr(default, field.name)])
                if value not in values:
                    values.append(value)
    return axes


def wins(row: dict[str, Any], today: dict[str, Any]) -> bool:
    """A change is kept when, on the held-out folds, no set's headline figures fall more
    than 0.01 below today's ranking and their mean rises, and its default (the point chosen
    on every set) keeps every guard's headline figures within 0.01 of today's default."""
    for guard, figures in row.get("guards", {}).items():
        for metric in HEADLINE[GUARDS[guard]]:
            if figures[metric] - today["guards"][guard][metric] < -0.01:
                return False
    gains = []
    for name, (first, second) in HEADLINE.items():
        if name not in row["folds"]:
            continue
        for metric in (first, second):
            gain = fold_scores(row, name)[metric] - fold_scores(today, name)[metric]
            if gain < -0.01:
                return False
            gains.append(gain)
    return sum(gains) > 0


def evaluate(work: Path, sets: Sequence[PoolSet], depth: int, write: bool, explore: bool) -> None:

    pool = {
        name: [cut_question(question, depth) for question in questions]
        for name, questions in load_pool(work, sets).items()
    }
    rows: list[dict[str, Any]] = []
    print(f"{'held-out folds':32s} " + "  ".join(f"{name:>11s}" for name in folds_of(pool)))
    kept: dict[str, list[Any]] = {}
    grids: dict[str, list[Any]] = {}
    for name, family, grid in variants(depth):
        if isinstance(grid, dict):  # the kept signals' axes, searched jointly
            chosen, shipped = joint_rows(pool, rows, family, name, kept, grids)
            stack(pool, rows, family, grids, chosen, shipped)
            continue
        if explore and len(grid) > 1:
            for point in grid:
                in_sample = {n: {"scores": scores(q, family(point))} for n, q in pool.items()}
                print_row(f"  {short(point)}", in_sample)
        folds, guards = leave_one_set_out(pool, family, grid)
        row = {"variant": name, "grid": len(grid), "folds": folds, "guards": guards}
        if len(rows) > 2 and grid[0] is not None:  # a change to today's ranking (row 3)
            row["kept"] = wins(row, rows[2])
            if row["kept"] and name not in RETIRED:
                for field, values in axes_of(grid).items():
                    kept.setdefault(field, [])
                    kept[field] += [v for v in values if v not in kept[field]]
        rows.append(row)
        if not row.get("kept") and grid[0] is not None:  # not a side alone
            grids[name] = grid
        print_row(name + (" (kept)" if row.get("kept") else ""), folds)
        print_guards(row)
    if write:
        run = {
            "command": "python bench/quality_pool.py evaluate --write",
            "date": time.strftime("%Y-%m-%d", time.gmtime()),
            "commit": git_commit(),
            "load": os.getloadavg()[0],
            "depth": depth,
            "k": K,
            "sets": {name: len(pool[name]) for name in folds_of(pool)},
            "guards": {name: len(pool[name]) for name in pool if name in GUARDS},
        }
        RESULTS.write_text(json.dumps({"run": run, "rows": rows}, indent=1) + "\n")
        print(report(RESULTS))


# Signals kept alone that the joint tuning turned off on every fold (2026-11-28, commit
# 7297eb5: coherence_boost 0 for each held-out set and on all five), left out of the joint
# grid so that it stays affordable (each kept axis multiplies it); their own rows still show.
RETIRED = ("+ file coherence",)


# Signals that lost alone but may win with the kept ones (they build on them: the files the
# symbol table links are lifted by the best files, which the kept signals find): each is
# tuned jointly with the kept signals under the same folds and kept when that row wins over
# the kept signals' own. The others are offered one at a time on top of the shipped row
# (`stack`), which multiplies no grid.
ON_TOP = ("+ files the symbol table links",)


def joint_rows(
    pool: dict[str, list[Question]],
    rows: list[dict[str, Any]],
    family: Callable[[Any], Ranking],
    name: str,
    kept: dict[str, list[Any]],
    grids: dict[str, list[Any]],
) -> tuple[dict[str, Any], Any]:
    """The kept signals tuned jointly, then each ON_TOP signal with them; appends the rows
    (the shipped one last) and returns the shipped row's points: each fold's and the one
    chosen on every set."""
    print(f"    kept: {', '.join(kept) or 'none'}")
    row, chosen, shipped = jointly(pool, rows, family, name, kept)
    rows.append(row)
    for signal in ON_TOP:
        if signal not in grids:  # kept alone: already among the kept signals
            continue
        axes = {**kept, **axes_of(grids[signal])}
        name = f"kept signals {signal}, tuned jointly"
        row, on_top, everywhere = jointly(pool, rows, family, name, axes)
        row["kept"] = wins(row, rows[-1])
        add_row(rows, row)
        print(f"    {'kept' if row['kept'] else 'not kept'}")
        if row["kept"]:
            chosen, shipped = on_top, everywhere
    return chosen, shipped


def jointly(
    pool: dict[str, list[Question]],
    rows: list[dict[str, Any]],
    family: Callable[[Any], Ranking],
    name: str,
    axes: dict[str, list[Any]],
) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """The row of these axes tuned jointly (tuned_jointly from today's ranking), printed,
    with each fold's point and the one chosen on every set."""
    start = today_ranking()
    folds, shipped, chosen, guards = tuned_jointly(pool, family, axes, start, side_floors(rows))
    print_row(name, folds)
    for set_name, fold in folds.items():
        print(f"    without {set_name}: {fold['chosen']}")
    print(f"    on every set (the default): {short(shipped)}")
    print_guards({"guards": guards})
    row = {
        "variant": name,
        "axes": axes,
        "folds": folds,
        "shipped": short(shipped),
        "guards": guards,
    }
    return row, chosen, shipped


def add_row(rows: list[dict[str, Any]], row: dict[str, Any]) -> None:
    """Add a row built on the shipped one: last when kept (the last row is the one the app
    ships), else just before the shipped row."""
    rows.insert(len(rows) if row["kept"] else len(rows) - 1, row)


STAGES = 3  # signals added one at a time after the joint tuning, at most


def stack(
    pool: dict[str, list[Question]],
    rows: list[dict[str, Any]],
    family: Callable[[Any], Ranking],
    grids: dict[str, list[Any]],
    chosen: dict[str, Any],
    shipped: Any,
) -> None:
    """Forward selection over the signals not kept, one stage at a time, on top of the
    shipped row's points.

    At each stage every fold offers its training sets its current point, and that point
    with any one not-kept variant's grid applied (its own axes: the tests' factor, the
    files' spread, RRF's k and weight...), and takes the best by `Choice.value`. Which
    signal a fold adds, if any, is chosen on its training sets like its values, so the
    held-out figures stay honest. The row is kept (and becomes the shipped one) when it
    wins over the shipped row by `wins`; the next stage then builds on the folds' new
    points. The point chosen on all five sets is the app's default. Appends the rows."""
    variations = [axes_of(grid) for name, grid in grids.items() if name not in ON_TOP]
    variations = [axes for axes in variations if axes]
    for stage in range(1, STAGES + 1):
        bases = {**chosen, "": shipped}  # "": every set, the app's default
        points: dict[Any, int] = {}
        offered = {
            key: [points.setdefault(p, len(points)) for p in one_more(base, variations)]
            for key, base in bases.items()
        }
        choice = Choice(pool, family, list(points), side_floors(rows))
        picks = {n: choice.best(offered[n], training_sets(pool, n)) for n in folds_of(pool)}
        everywhere = choice.best(offered[""], folds_of(pool))
        name = f"+ one not-kept signal more, chosen on the training sets ({stage})"
        folds = {n: choice.fold(index, n) for n, index in picks.items()}
        row: dict[str, Any] = {
            "variant": name,
            "folds": folds,
            "shipped": short(choice.points[everywhere]),
            "guards": choice.guards(everywhere),
        }
        row["kept"] = wins(row, rows[-1])
        add_row(rows, row)
        print_row(name + (" (kept)" if row["kept"] else ""), folds)
        for set_name, fold in folds.items():
            print(f"    without {set_name}: {fold['chosen']}")
        print(f"    on every set: {row['shipped']}")
        print_guards(row)
        if not row["kept"]:
            return
        chosen = {n: choice.points[index] for n, index in picks.items()}
        shipped = choice.points[everywhere]


def one_more(base: Any, variations: Sequence[dict[str, list[Any]]]) -> Iterator[Any]:
    """`base`, then `base` with each combination of each variation's axis values."""
    yield base
    for axes in variations:
        for values in itertools.product(*axes.values()):
            yield dataclasses.replace(base, **dict(zip(axes, values, strict=True)))


def side_floors(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per set, each level's R@10 and MRR@10 of the better single side, less 0.01."""
    sides = [row for row in rows if row["variant"] in ("vector", "keyword")]
    floors: dict[str, dict[str, float]] = {}
    for name in sides[0]["folds"]:
        floors[name] = {
            f"{level} {metric}": max(fold_scores(r, name)[f"{level} {metric}"] for r in sides)
            - 0.01
            for level in ("chunk", "file")
            for metric in LEVEL_METRICS
        }
    return floors


def git_commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return done.stdout.strip()


LEVEL_METRICS = ("recall@10", "mrr@10")


def report(results: Path) -> str:
    """The results as markdown: the held-out table, then the never-below-a-side check."""
    saved = json.loads(results.read_text())
    run, rows = saved["run"], saved["rows"]
    names = list(run["sets"])
    lines = [
        f"`{run['command']}` on {run['date']}, commit {run['commit']}, load "
        f"{run['load']:.2f}; {', '.join(f'{n} {q}' for n, q in run['sets'].items())} "
        f"questions; {run['depth']} candidates a side, k = {run['k']}. Each cell: the "
        "figure on that set of the parameters chosen on the other four (R@5 / MRR@10 "
        "of sections for claude-docs, R@10 / MRR@10 of chunks for codebase, of files for "
        "the SWE-QA sets).",
        "",
        "| ranking | " + " | ".join(names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for row in rows:
        cells = [headline_cell(name, row["folds"][name]["scores"]) for name in names]
        kept = " (kept)" if row.get("kept") else ""
        if row.get("kept") and row["variant"] in RETIRED:
            kept = " (kept alone; left out of the joint grid)"
        lines.append(f"| {row['variant']}{kept} | " + " | ".join(cells) + " |")
    shipped = rows[-1]
    lines += [
        "",
        "Chosen for the last row, per held-out set: "
        + "; ".join(f"{name}: {shipped['folds'][name]['chosen']}" for name in names)
        + f"; on all five (the app's default): {shipped.get('shipped', '-')}.",
    ]
    lines += ["", *never_below_a_side(rows, names), "", *both_levels(rows, names)]
    lines += guard_table(rows, run.get("guards", {}))
    return "\n".join(lines) + "\n"


def guard_table(rows: list[dict[str, Any]], guards: dict[str, int]) -> list[str]:
    """Each row's default (its point chosen on every set) on the guards."""
    if not guards:
        return []
    lines = [
        "",
        "Guards: "
        + " and ".join(
            f"{GUARDS[g]}'s {n} questions asked of one DocSet holding both corpus sets ({g})"
            for g, n in guards.items()
        )
        + "; each row's default (its point chosen on all five sets), the same figures:",
        "",
        "| ranking | " + " | ".join(guards) + " |",
        "|---|" + "---:|" * len(guards),
    ]
    for row in rows:
        cells = [headline_cell(guard, row["guards"][guard]) for guard in guards]
        lines.append(f"| {row['variant']} | " + " | ".join(cells) + " |")
    return lines


def headline_cell(name: str, figures: dict[str, float]) -> str:
    """A set's (or a guard's) two headline figures: `R@k / MRR@10`."""
    first, second = HEADLINE[GUARDS.get(name, name)]
    return f"{figures[first]:.3f} / {figures[second]:.3f}"


def in_sample_line(label: str, pool: dict[str, list[Question]], ranking: Ranking) -> str:
    """One ranking's headline figures on every set of the pool, in sample."""
    cells = (f"{name} {headline_cell(name, scores(qs, ranking))}" for name, qs in pool.items())
    return f"{label}: " + "  ".join(cells)


def print_experiment(
    pool: dict[str, list[Question]],
    tuned: tuple[dict[str, dict[str, Any]], Any, dict[str, Any], dict[str, dict[str, float]]],
    reference: dict[str, dict[str, float]],
    label: str,
) -> None:
    """An experiment's `tuned_jointly` result: each fold's held-out figures beside the
    reference's (`label`), the point chosen on all five, and the guards at that point."""
    folds, default, _chosen, guards = tuned
    for name in folds_of(pool):
        fold = folds[name]
        print(
            f"{name:12s} {label} {headline_cell(name, reference[name])}   held out "
            f"{headline_cell(name, fold['scores'])}   ({fold['chosen']})"
        )
    print(f"chosen on all five: {default}")
    for name, figures in guards.items():
        print(
            f"{name:24s} {label} {headline_cell(name, reference[name])}   default "
            f"{headline_cell(name, figures)}"
        )


def fold_scores(row: dict[str, Any], name: str) -> dict[str, float]:
    scores: dict[str, float] = row["folds"][name]["scores"]
    return scores


def both_levels(rows: list[dict[str, Any]], names: list[str]) -> list[str]:
    """Chunk and file R@10 / MRR@10 of each side alone, today's fusion and the shipped one."""
    shown = [r for r in rows if r["variant"] in ("vector", "keyword", "hybrid (today)")]
    shown.append(rows[-1])
    lines = [
        "| set | level | " + " | ".join(r["variant"] for r in shown) + " |",
        "|---|---|" + "---:|" * len(shown),
    ]
    for name in names:
        for level in ("chunk", "file"):
            cells = [
                " / ".join(
                    f"{r['folds'][name]['scores'][f'{level} {m}']:.3f}" for m in LEVEL_METRICS
                )
                for r in shown
            ]
            lines.append(f"| {name} | {level} R@10 / MRR | " + " | ".join(cells) + " |")
    return lines


def never_below_a_side(rows: list[dict[str, Any]], names: list[str]) -> list[str]:
    """For the last (shipped) ranking: every set and level where it falls more than 0.01
    below the better of vector and keyword alone, on R@10 or MRR@10."""
    by_name = {row["variant"]: row for row in rows}
    shipped = rows[-1]
    misses = []
    for name in names:
        for level in ("chunk", "file"):
            for metric in LEVEL_METRICS:
                key = f"{level} {metric}"
                sides = max(by_name[s]["folds"][name]["scores"][key] for s in ("vector", "keyword"))
                value = shipped["folds"][name]["scores"][key]
                if value < sides - 0.01:
                    misses.append(f"{name} {key} {value:.3f} < {sides:.3f}")
    verdict = "none" if not misses else "; ".join(misses)
    return [f"Below the better single side by more than 0.01 ({shipped['variant']}): {verdict}."]


HEADLINE = {
    "claude-docs": ("chunk recall@5", "chunk mrr@10"),
    "codebase": ("chunk recall@10", "chunk mrr@10"),
    "pytest": ("file recall@10", "file mrr@10"),
    "sphinx": ("file recall@10", "file mrr@10"),
    "pylint": ("file recall@10", "file mrr@10"),
}
# what the headline figures are about, in the README's table
HEADLINE_LABELS = {
    "claude-docs": "docs sections",
    "codebase": "code chunks",
    "pytest": "pytest files",
    "sphinx": "sphinx files",
    "pylint": "pylint files",
}


def readme_report(results: Path) -> str:
    """The README's table: each set's headline figures for each side alone and for the
    shipped ranking, held out."""
    saved = json.loads(results.read_text())
    run, rows = saved["run"], saved["rows"]
    by_name = {row["variant"]: row for row in rows}
    shown = [("vector", by_name["vector"]), ("keyword", by_name["keyword"]), ("hybrid", rows[-1])]
    lines = [
        "| set (questions) | measure | " + " | ".join(n for n, _ in shown) + " |",
        "|---|---|---:|---:|---:|",
    ]
    for name, (recall, mrr) in HEADLINE.items():
        cells = [
            f"{fold_scores(row, name)[recall]:.3f} / {fold_scores(row, name)[mrr]:.3f}"
            for _, row in shown
        ]
        label = f"{HEADLINE_LABELS[name]} ({run['sets'][name]})"
        measure = recall.split("@")[-1]
        lines.append(f"| {label} | R@{measure} / MRR@10 | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"k = 10; each hybrid figure is held out: its set scored with the ranking chosen on "
        f"the other four (`bench/quality_pool.py`, at {run['commit']}, {run['date']}).",
    ]
    return "\n".join(lines) + "\n"


def short(point: Any) -> str:
    """A grid point by the fields that differ from today's ranking (all of them for options
    of another kind, as an experiment's)."""

    default = today_ranking()
    changed = {
        f.name: getattr(point, f.name)
        for f in dataclasses.fields(point)
        if getattr(point, f.name) != getattr(default, f.name, None)
    }
    return ", ".join(f"{k}={v}" for k, v in changed.items()) or "defaults"


def print_guards(row: dict[str, Any]) -> None:
    """A row's default's figures on the guards, when there are any."""
    if row.get("guards"):
        print_row("    guards (default)", {g: {"scores": f} for g, f in row["guards"].items()})


def print_row(name: str, folds: dict[str, dict[str, Any]]) -> None:
    cells = []
    for set_name, figures_of in folds.items():
        first, second = HEADLINE[GUARDS.get(set_name, set_name)]
        figures = figures_of["scores"]
        cells.append(f"{figures[first]:.3f}/{figures[second]:.3f}")
    print(f"{name:32s} " + "  ".join(cells))


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
    parser.add_argument("--write", action="store_true", help="save bench/results/quality_pool.json")
    parser.add_argument("--sets", help="comma-separated subset of the sets (default: all)")
    parser.add_argument("--explore", action="store_true", help="also print every grid point")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.step == "report":
        print(report(RESULTS), end="")
        return
    if args.step == "index":
        index(args.work, Path(sys.executable).parent / "ragspace")
        return
    sets = chosen_sets(args.sets.split(",") if args.sets else None)
    if args.step == "candidates":
        dump_candidates(args.work, sets)
    else:
        evaluate(args.work, sets, args.depth, args.write, args.explore)


if __name__ == "__main__":
    main()
