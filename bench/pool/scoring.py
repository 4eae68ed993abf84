"""A ranking's figures over a set's questions: the app's ranking (with the tried signals) at
a grid point, or one side alone, scored at chunk and file level."""

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bench.pool.questions import Question, cut_question
from bench.pool.sets import K

# a question -> the K hits a search returns (at most one per prose section)
Ranking = Callable[[Question], list[Any]]

# the figure a parameter choice maximises, averaged over the training sets: every level's
# R@10 and MRR count alike, so no set's headline metric dominates
OBJECTIVE = ("chunk recall@10", "chunk mrr@10", "file recall@10", "file mrr@10")


LEVEL_METRICS = ("recall@10", "mrr@10")  # each level's figures the tables show


def objective(figures: dict[str, float]) -> float:
    return sum(figures[m] for m in OBJECTIVE) / len(OBJECTIVE)


def fold_scores(row: dict[str, Any], name: str) -> dict[str, float]:
    """A results row's figures on one set's fold."""
    figures: dict[str, float] = row["folds"][name]["scores"]
    return figures


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
    """The app's ranking with `options` (TriedOptions: the app's and the tried signals')
    over the first `depth` candidates a side: a Ranking whose figures question_scores can
    remember."""

    options: Any
    depth: int

    def __call__(self, question: Question) -> list[Any]:
        return ranked(cut_question(question, self.depth), self.options)

    def canonical(self, question: Question) -> Any:
        from bench.experiments.tried_signals.options import canonical, tried

        options = tried(self.options)
        if options.sub_question_weight and question.parts:
            return self.options  # the parts' candidates are ranked with these options too
        return canonical(options, cut_question(question, self.depth).offer)


def ranked(question: Question, options: Any, limit: int | None = K) -> list[Any]:
    """The question's hits as the app ranks its candidates with `options` (TriedOptions,
    or the app's RankingOptions), the symbol table's saved links included; the `limit` best
    (all with None)."""
    from bench.experiments.tried_signals.options import tried
    from bench.experiments.tried_signals.ranking import rank_offer

    links = question.links
    return rank_offer(
        question.offer, tried(options), limit, parts=question.part_offers, links=lambda *_: links
    )


def side_alone(side: Any) -> Ranking:
    """One side's own order (what the app's vector or keyword mode returns)."""
    from ragspace.ranking.candidates import Candidate

    def ranking(question: Question) -> list[Any]:
        offered = [Candidate(c.hit, {side: c.on(side)}) for c in question.candidates if c.on(side)]
        return _rank(offered, today_ranking(), question.text, K)

    return ranking


def keyword_sides(question: Question) -> Question:
    """The question with its vector side's evidence removed: what a keyword-only search has."""
    from ragspace.ranking.candidates import Candidate, Side

    offered = [
        Candidate(c.hit, {s: e for s, e in c.evidence.items() if s is not Side.VECTOR})
        for c in question.candidates
        if any(s is not Side.VECTOR for s in c.evidence)
    ]
    return dataclasses.replace(question, candidates=offered, parts=[])


def keyword_only(question: Question) -> list[Any]:
    """What a search without vectors returns (keyword mode, and hybrid before the vectors
    land): every side but the vector one, ranked with the app's keyword-only ranking
    (search/keyword_ranking.py), the symbol table's saved links included."""
    from ragspace.search.keyword_ranking import for_candidates, keyword_only_ranking

    alone = keyword_sides(question)
    return ranked(alone, for_candidates(keyword_only_ranking(), alone.candidates))


def _rank(candidates: list[Any], options: Any, text: str, limit: int) -> list[Any]:
    from bench.experiments.tried_signals.ranking import rank_offer
    from ragspace.ranking.offer import Offer

    return rank_offer(Offer(text, candidates), options, limit)


def at_depth(ranking: Ranking, depth: int) -> Ranking:
    """The ranking over only the first `depth` candidates of each side."""
    return lambda question: ranking(cut_question(question, depth))


def today_ranking() -> Any:
    """The ranking before round 3 (round 2's): fusion only, every signal off."""
    from bench.experiments.tried_signals.options import TriedOptions, fusion_only

    return fusion_only(TriedOptions())


def short(point: Any) -> str:
    """A grid point by the fields that differ from today's ranking (all of them for options
    of another kind, as an experiment's)."""
    from bench.experiments.tried_signals.options import fields_in_order

    default = today_ranking()
    changed = {
        f.name: getattr(point, f.name)
        for f in fields_in_order(point)
        if getattr(point, f.name) != getattr(default, f.name, None)
    }
    return ", ".join(f"{k}={v}" for k, v in changed.items()) or "defaults"
