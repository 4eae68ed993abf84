"""The retrieval protocol (bench/quality_pool.py): what the app ships is what it chose, and
a fold never looks at its held-out set's questions, not even through a guard."""

import json
from pathlib import Path
from typing import Any

from bench import quality_pool
from bench.pool.sets import DOCS_GUARDS
from bench.quality_pool import GUARDS, folds_of, guards_seen, short, training_sets, wins
from ragspace.ranking.options import RankingOptions
from ragspace.settings import RETRIEVAL_CANDIDATES

RESULTS = Path(__file__).resolve().parent.parent / "bench" / "results" / "quality_pool.json"
SETS = [s.name for s in quality_pool.SETS]  # the five and semble-dev's repositories


def test_the_apps_ranking_defaults_are_the_protocols_last_choice() -> None:
    rows = json.loads(RESULTS.read_text(encoding="utf-8"))["rows"]
    assert rows[-1]["shipped"] == short(RankingOptions()), (
        "RankingOptions' defaults are not what bench/quality_pool.py chose on every set"
    )


def test_the_published_run_scored_sets_of_the_protocols_table() -> None:
    run = json.loads(RESULTS.read_text(encoding="utf-8"))["run"]
    assert set(run["sets"]) <= set(SETS) and set(run["guards"]) <= set(GUARDS)


def test_the_published_figures_rank_as_many_candidates_as_the_app() -> None:
    run = json.loads(RESULTS.read_text(encoding="utf-8"))["run"]
    assert run["depth"] == RETRIEVAL_CANDIDATES, (
        "bench/results/quality_pool.json was scored at another candidate depth than the app's"
    )


def test_a_fold_never_sees_the_guard_asking_its_held_out_questions() -> None:
    pool: dict[str, list[Any]] = {name: [] for name in [*SETS, *GUARDS]}
    assert folds_of(pool) == SETS
    for held_out in SETS:
        training = training_sets(pool, held_out)
        assert held_out not in training and not set(training) & set(GUARDS)
        seen = guards_seen(pool, training)
        assert all(GUARDS[guard] != held_out for guard in seen)
        assert len(seen) == len([g for g, source in GUARDS.items() if source != held_out])


def _row(gain: float, guard_change: float) -> dict[str, Any]:
    headline = {"chunk recall@5": 0.8, "chunk recall@10": 0.8, "chunk mrr@10": 0.8}
    headline |= {"file recall@10": 0.8, "file mrr@10": 0.8, "chunk ndcg@10": 0.8}
    headline |= {"file recall@5": 0.8}
    folds = {name: {"scores": {k: v + gain for k, v in headline.items()}} for name in SETS}
    guards = {g: {k: v + guard_change for k, v in headline.items()} for g in GUARDS}
    return {"folds": folds, "guards": guards}


def test_a_row_is_kept_only_when_it_gains_and_costs_no_guard_more_than_001() -> None:
    before = _row(0.0, 0.0)
    assert wins(_row(0.02, 0.0), before)
    assert wins(_row(0.02, -0.005), before)
    assert not wins(_row(0.02, -0.02), before)  # better on the folds, worse beside code
    assert not wins(_row(0.0, 0.0), before)  # no gain
    assert quality_pool.HEADLINE.keys() == set(SETS) | {s.name for s in DOCS_GUARDS}


def test_a_fold_counts_a_guards_shortfall_on_every_figure_the_rows_check_holds_it_to() -> None:
    """A fold choosing a point that costs a guard its page Recall@5 would make `wins` refuse
    the whole row: the choice counts that shortfall too."""
    from bench.pool.choice import guard_metrics
    from bench.pool.sets import HEADLINE

    for guard, source in GUARDS.items():
        assert set(HEADLINE[source]) <= set(guard_metrics(guard))
    assert "file recall@5" in guard_metrics("fastapi")
