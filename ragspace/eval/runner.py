"""Evaluate a DocSet: every retrieval mode scored on a question set, latency, answer grading."""

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel

from ragspace.answering.answer import AnswerPipeline
from ragspace.eval.evaluation import (
    Dataset,
    EvalQuery,
    first_relevant_rank,
    match_hits,
    score_query,
    whole_files,
)
from ragspace.eval.grading import AnswerGrader, GradedAnswer
from ragspace.models import VERIFICATIONS, Hit, RetrievalMode, SearchQuery
from ragspace.search.retrieval import Retriever

RERANK = "hybrid+rerank"
MODES = (RetrievalMode.VECTOR.value, RetrievalMode.KEYWORD.value, RetrievalMode.HYBRID.value)
ALL_MODES = (*MODES, RERANK)
METRICS = ("recall@5", "recall@10", "mrr@10", "ndcg@10", "hit@5", "hit@10")
TOP_SHOWN = 5
WARMUP_QUESTIONS = 5  # searched once, untimed, per mode: cold caches would skew the tail
NO_CHAT = "no chat model is configured (set OPENAI_API_KEY)"

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class EvalOptions:
    """What an evaluation runs: retrieval depth, modes (None: all available), grading."""

    k: int = 10
    modes: tuple[str, ...] | None = None
    grade: bool = True
    limit: int | None = None


class ModeResult(BaseModel):
    """Mean metrics of one retrieval mode at chunk and file level, and its latency."""

    mode: str
    chunk: dict[str, float]
    file: dict[str, float]
    p50_ms: float
    p95_ms: float
    p99_ms: float


class QuestionOutcome(BaseModel):
    """Where one question's first relevant result ranked in one mode, and what came back."""

    question: str
    mode: str
    rank: int | None
    file_rank: int | None
    top: list[str]


class GradingSummary(BaseModel):
    """Judge verdicts aggregated over the generated answers."""

    answers: int
    correctness: float | None
    correctness_judged: int
    faithfulness: float | None
    claims_judged: int
    answers_without_citations: int
    # share of the answers' citations whose quote was verified / paraphrased / unsupported
    quote_checks: dict[str, float] = {}
    graded: list[GradedAnswer]


class EvalReport(BaseModel):
    """Everything one evaluation measured."""

    dataset: str
    docset: str
    questions: int
    k: int
    modes: list[ModeResult]
    outcomes: list[QuestionOutcome]
    grading: GradingSummary | None = None
    notes: list[str] = []


def percentiles_ms(seconds: Sequence[float]) -> tuple[float, float, float]:
    """p50, p95 and p99 in milliseconds (linear interpolation between samples)."""
    if not seconds:
        return 0.0, 0.0, 0.0
    p50, p95, p99 = np.percentile(np.asarray(seconds) * 1000.0, [50, 95, 99])
    return round(float(p50), 1), round(float(p95), 1), round(float(p99), 1)


def hit_label(hit: Hit) -> str:
    """`path:start-end` of a retrieved chunk."""
    return f"{hit.path}:{hit.start_line}-{hit.end_line}"


def mean_scores(per_query: Sequence[dict[str, float]]) -> dict[str, float]:
    """The mean of each metric over the questions."""
    count = len(per_query) or 1
    return {m: round(sum(q[m] for q in per_query) / count, 4) for m in METRICS}


def summarize_grading(graded: Sequence[GradedAnswer]) -> GradingSummary:
    """Mean correctness over readable verdicts; faithfulness over every judged cited sentence."""
    verdicts = [g.correctness for g in graded if g.correctness is not None]
    claims = [c.score for g in graded for c in g.claims if c.score is not None]
    return GradingSummary(
        answers=len(graded),
        correctness=round(sum(verdicts) / len(verdicts), 4) if verdicts else None,
        correctness_judged=len(verdicts),
        faithfulness=round(sum(claims) / len(claims), 4) if claims else None,
        claims_judged=len(claims),
        answers_without_citations=sum(1 for g in graded if not g.claims),
        quote_checks=quote_check_shares([c for g in graded for c in g.quote_checks]),
        graded=list(graded),
    )


def quote_check_shares(checks: Sequence[str]) -> dict[str, float]:
    """The share of citations with each quote-check label (empty with no citations)."""
    if not checks:
        return {}
    return {label: round(checks.count(label) / len(checks), 4) for label in VERIFICATIONS}


class Evaluator:
    """Runs a question set against DocSets through the real retrieval and answer paths."""

    def __init__(self, retriever: Retriever, answers: AnswerPipeline) -> None:
        self._retriever = retriever
        self._answers = answers

    def available_modes(self) -> tuple[str, ...]:
        """Every mode this configuration can run (reranking needs a chat model)."""
        return ALL_MODES if self._answers.can_rerank else MODES

    def run(
        self,
        docset_ids: Sequence[int],
        docset_name: str,
        dataset: Dataset,
        options: EvalOptions,
        progress: Progress | None = None,
    ) -> EvalReport:
        """Score every selected mode on every question, then grade answers if possible."""
        report: Progress = progress or (lambda _fraction, _text: None)
        queries = dataset.queries[: options.limit] if options.limit else dataset.queries
        modes, notes = self._modes(options.modes)
        results, outcomes = [], []
        for number, mode in enumerate(modes):
            report(number / (len(modes) + 1), f"Searching {len(queries)} questions ({mode})")
            result, mode_outcomes = self._score_mode(mode, docset_ids, queries, options.k)
            results.append(result)
            outcomes += mode_outcomes
        grading = None
        if options.grade and self._answers.chat is None:
            notes.append(f"Answer grading skipped: {NO_CHAT}.")
        elif options.grade:
            report(len(modes) / (len(modes) + 1), f"Grading {len(queries)} answers")
            grading = summarize_grading(self._grade(docset_ids, queries))
        report(1.0, "Done")
        return EvalReport(
            dataset=dataset.name,
            docset=docset_name,
            questions=len(queries),
            k=options.k,
            modes=results,
            outcomes=outcomes,
            grading=grading,
            notes=notes,
        )

    def _modes(self, wanted: Sequence[str] | None) -> tuple[list[str], list[str]]:
        available = self.available_modes()
        if wanted is None:
            notes = [] if RERANK in available else [f"{RERANK} skipped: {NO_CHAT}."]
            return list(available), notes
        notes = [f"{m} skipped: {NO_CHAT}." for m in wanted if m not in available]
        return [m for m in ALL_MODES if m in wanted and m in available], notes

    def _score_mode(
        self,
        mode: str,
        docset_ids: Sequence[int],
        queries: Sequence[EvalQuery],
        k: int,
    ) -> tuple[ModeResult, list[QuestionOutcome]]:
        chunk_scores, file_scores, seconds, outcomes = [], [], [], []
        if mode != RERANK:  # reranking costs model calls; its latency is the model's anyway
            for query in queries[:WARMUP_QUESTIONS]:
                self._search(mode, query.text, docset_ids, k)
        for query in queries:
            started = time.perf_counter()
            hits = self._search(mode, query.text, docset_ids, k)
            seconds.append(time.perf_counter() - started)
            files = whole_files(query)
            chunk_matches = match_hits(hits, query.gold)
            file_matches = match_hits(hits, files.gold)
            chunk_scores.append(score_query(chunk_matches, len(query.gold)))
            file_scores.append(score_query(file_matches, len(files.gold)))
            outcomes.append(
                QuestionOutcome(
                    question=query.text,
                    mode=mode,
                    rank=first_relevant_rank(chunk_matches),
                    file_rank=first_relevant_rank(file_matches),
                    top=[hit_label(h) for h in hits[:TOP_SHOWN]],
                )
            )
        p50, p95, p99 = percentiles_ms(seconds)
        result = ModeResult(
            mode=mode,
            chunk=mean_scores(chunk_scores),
            file=mean_scores(file_scores),
            p50_ms=p50,
            p95_ms=p95,
            p99_ms=p99,
        )
        return result, outcomes

    def _search(self, mode: str, query: str, docset_ids: Sequence[int], k: int) -> list[Hit]:
        if mode == RERANK:
            return self._answers.reranked_search(
                SearchQuery(question=query, limit=k).within(docset_ids)
            )
        searched = SearchQuery(question=query, mode=RetrievalMode(mode)).within(docset_ids)
        return self._retriever.search(searched, k)

    def _grade(self, docset_ids: Sequence[int], queries: Sequence[EvalQuery]) -> list[GradedAnswer]:
        assert self._answers.chat is not None
        grader = AnswerGrader(self._answers.chat)
        graded = []
        for query in queries:
            *_, last = self._answers.stream(SearchQuery(question=query.text).within(docset_ids))
            assert last.answer is not None
            graded.append(grader.grade(query.text, query.answer, last.answer))
        return graded


METRIC_HEADERS = [
    "level",
    "mode",
    "Recall@5",
    "Recall@10",
    "MRR@10",
    "nDCG@10",
    "Hit@5",
    "Hit@10",
    "p50 ms",
    "p95 ms",
    "p99 ms",
]
QUESTION_HEADERS = ["question", "Hit@5", "first relevant rank", "first relevant file rank", "top"]


def metric_rows(report: EvalReport) -> list[list[str | float]]:
    """One row per mode and level (chunk, then file), in METRIC_HEADERS order."""
    rows: list[list[str | float]] = []
    for level in ("chunk", "file"):
        for result in report.modes:
            scores = result.chunk if level == "chunk" else result.file
            latency = [result.p50_ms, result.p95_ms, result.p99_ms]
            rows.append([level, result.mode, *(round(scores[m], 3) for m in METRICS), *latency])
    return rows


def question_rows(report: EvalReport, mode: str) -> list[list[str | int]]:
    """One row per question for one mode, in QUESTION_HEADERS order."""
    return [
        [
            o.question,
            "yes" if o.rank is not None and o.rank <= 5 else "no",
            o.rank if o.rank is not None else "-",
            o.file_rank if o.file_rank is not None else "-",
            "\n".join(o.top),
        ]
        for o in report.outcomes
        if o.mode == mode
    ]


def grading_text(grading: GradingSummary) -> str:
    """A one-line summary of the judge's verdicts."""

    def fmt(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    return (
        f"Answer grading ({grading.answers} answers): correctness {fmt(grading.correctness)} "
        f"({grading.correctness_judged} judged); citation faithfulness "
        f"{fmt(grading.faithfulness)} ({grading.claims_judged} cited sentences judged); "
        f"{grading.answers_without_citations} answers without citations."
        + (
            " Quotes: "
            + ", ".join(f"{label} {share:.0%}" for label, share in grading.quote_checks.items())
            + "."
            if grading.quote_checks
            else ""
        )
    )
