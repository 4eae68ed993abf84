"""The signals the retrieval protocol tried and left off (bench/experiments/tried_signals/):
each still does what it did in the app, and with all of them off the protocol's ranking is
the app's, so bench/quality_pool.py's rows score what the app ships."""

import dataclasses

import pytest

from bench.experiments.tried_signals.files_best_chunks import best_chunks_mean
from bench.experiments.tried_signals.options import (
    FIELD_ORDER,
    TriedOptions,
    canonical,
    fusion_only,
)
from bench.experiments.tried_signals.ranking import TRIED, rank_offer
from bench.experiments.tried_signals.sub_questions import sub_questions
from bench.experiments.tried_signals.tests_lowered import is_secondary
from ragspace.models import Fusion
from ragspace.ranking import ranker
from ragspace.ranking.candidates import Candidate, Side
from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions
from ragspace.ranking.query import QueryProfile
from ragspace.ranking.signals.file_names import name_match
from tests.ranking.made import candidate, hit, in_language


def rank(cands: list[Candidate], options: TriedOptions, question: str = "q") -> list[int]:
    return [h.chunk_id for h in rank_offer(Offer(question, cands), options)]


def test_the_tried_signals_sit_among_the_apps_in_the_apps_order() -> None:
    app = ranker.SIGNALS
    assert TRIED.links is app.links
    for tried, own in ((TRIED.files, app.files), (TRIED.question, app.question)):
        assert [s for s in tried if s in own] == list(own)
    fields = [f.name for f in dataclasses.fields(TriedOptions)]
    assert sorted(fields) == sorted(FIELD_ORDER)


def test_with_every_tried_signal_off_the_protocol_ranks_as_the_app() -> None:
    question = "how does `send` retry in the fixtures"
    cands = [
        candidate(hit(1, "src/send.py", "def send(x):\n    retry()\n"), vector=(2, 0.8)),
        candidate(hit(2, "tests/test_send.py", "send()", 2), vector=(1, 0.9), keyword=(2, 3.0)),
        candidate(hit(3, "docs/retry.md", "retry", 3), keyword=(1, 9.0), file=(1, 4.0)),
        candidate(hit(4, "src/fixtures.py", "fixtures", 4), vector=(3, 0.5), document=(1, 7.0)),
        candidate(hit(5, "src/send.py", "more", 1), vector=(4, 0.4), keyword=(3, 1.0)),
    ]
    offer = Offer(question, cands)
    for app in (
        RankingOptions(),
        RankingOptions(fusion=Fusion.RRF, file_weight=1.0, lift_best_chunk=False),
        RankingOptions(scaling="distribution", prose_factor=0.3, neighbour_weight=0.0),
    ):
        tried = TriedOptions(**{f.name: getattr(app, f.name) for f in dataclasses.fields(app)})
        assert rank_offer(offer, tried) == ranker.rank_offer(offer, app)


def test_one_offer_ranked_under_many_tried_options_ranks_as_fresh_candidates_do() -> None:
    question = "how does `send` retry in the fixtures"
    cands = [
        candidate(hit(1, "src/send.py", "def send(x):\n    retry()\n"), vector=(2, 0.8)),
        candidate(hit(2, "tests/test_send.py", "send()", 2), vector=(1, 0.9), keyword=(2, 3.0)),
        candidate(hit(3, "docs/retry.md", "retry", 3), keyword=(1, 9.0), file=(1, 4.0)),
        candidate(hit(4, "src/fixtures.py", "fixtures", 4), vector=(3, 0.5), document=(1, 7.0)),
        candidate(hit(5, "src/send.py", "more", 1), vector=(4, 0.4), keyword=(3, 1.0)),
    ]
    base = TriedOptions()
    options = [
        dataclasses.replace(base, scaling="distribution", confidence_power=1.0),
        dataclasses.replace(base, document_weight=1.0, file_weight=1.0, lift_best_chunk=False),
        dataclasses.replace(base, file_vector_weight=0.5, file_keyword_weight=0.5),
        dataclasses.replace(base, secondary_factor=0.5, prose_factor=0.3, name_boost=0.5),
        dataclasses.replace(base, coherence_boost=0.4, file_decay=0.5, definition_boost=2.0),
        dataclasses.replace(fusion_only(base), document_weight=0.5, lift_best_chunk=True),
        base,
    ]
    shared = Offer(question, cands)
    for option in options:
        assert rank_offer(shared, option) == rank_offer(Offer(question, cands), option)
        assert rank_offer(shared, canonical(option)) == rank_offer(shared, option)
        assert rank_offer(shared, canonical(option, shared)) == rank_offer(shared, option)
    # a tried document-level signal keeps lifting only each file's best chunk
    lifted = dataclasses.replace(fusion_only(base), document_weight=0.5, lift_best_chunk=True)
    assert canonical(lifted).lift_best_chunk and not canonical(fusion_only(base)).lift_best_chunk


def test_file_names_and_secondary_paths() -> None:
    profile = QueryProfile("How are fixtures finalized?")
    assert name_match(profile, "src/_pytest/fixtures.py") == 1.0
    assert name_match(profile, "testing/test_fixtures.py") == pytest.approx(1 / 2)
    assert name_match(profile, "src/_pytest/main.py") == 0.0
    for path in ("testing/test_x.py", "pkg/foo_test.go", "web/a.spec.ts", "examples/a.py"):
        assert is_secondary(path), path
    assert is_secondary("vendor/lib/x.go") and is_secondary("api/x_pb2.py")
    assert not is_secondary("src/_pytest/fixtures.py") and not is_secondary("src/contest.py")


def test_a_file_whose_best_chunks_all_match_rises_above_one_lone_close_chunk() -> None:
    # file 1 has one close chunk among unrelated ones; every one of file 2's three chunks
    # matches well; file 3 has a single middling chunk
    cands = [
        candidate(hit(1, "a.py", document_id=1), vector=(1, 0.80)),
        candidate(hit(2, "b.py", document_id=2), vector=(2, 0.75)),
        candidate(hit(3, "b.py", document_id=2), vector=(3, 0.74)),
        candidate(hit(4, "b.py", document_id=2), vector=(4, 0.73)),
        candidate(hit(5, "c.py", document_id=3), vector=(5, 0.60)),
        candidate(hit(6, "a.py", document_id=1), vector=(6, 0.40)),
    ]
    # a file's missing chunks count at the lowest score offered
    assert best_chunks_mean(cands, Side.VECTOR) == {
        1: pytest.approx((0.80 + 0.40 + 0.40) / 3),
        2: pytest.approx(0.74),
        3: pytest.approx((0.60 + 0.40 + 0.40) / 3),
    }
    plain = fusion_only(TriedOptions())
    assert rank(cands, plain)[:2] == [1, 2]
    files = dataclasses.replace(plain, file_vector_weight=0.5, lift_best_chunk=True)
    # the file rises by its best chunk; its other chunks stay where they were
    assert rank(cands, files) == [2, 1, 3, 4, 5, 6]
    # a side that offered no chunk scores no file
    assert best_chunks_mean(cands, Side.KEYWORD) == {}


def test_tests_sink_unless_the_question_asks_about_tests() -> None:
    cands = [
        candidate(hit(1, "tests/test_retry.py"), keyword=(1, 5.0)),
        candidate(hit(2, "src/retry.py"), keyword=(2, 4.5)),
        candidate(hit(3, "src/other.py"), keyword=(3, 1.0)),
    ]
    options = TriedOptions(secondary_factor=0.5)
    assert rank(cands, options, "how does retry back off") == [2, 1, 3]
    assert rank(cands, options, "how is retry tested") == [1, 2, 3]


def _one_side_knows(side: str, other: str) -> list[Candidate]:
    """`side` has a clear winner (chunk 1) that `other` did not find; `other` has no clear
    opinion: a flat list of near-equal scores led by chunks 2, 3, ..."""
    clear = {"vector": (0.92, 0.40), "keyword": (24.0, 3.0)}[side]
    flat = {"vector": 0.55, "keyword": 6.0}[other]
    cands = [candidate(hit(1), **{side: (1, clear[0])})]
    for i in range(2, 13):
        cands.append(
            candidate(hit(i), **{side: (i, clear[1] - i / 1000), other: (i - 1, flat - i / 1000)})
        )
    return cands


@pytest.mark.parametrize(("side", "other"), [("vector", "keyword"), ("keyword", "vector")])
def test_the_side_sure_of_its_answer_leads_the_fused_list(side: str, other: str) -> None:
    """Fixed weights put the unsure side's leader first (each side's best scales to 1); with
    each side weighed by its confidence the clear winner comes first."""
    cands = _one_side_knows(side, other)
    assert rank(cands, TriedOptions(vector_share=0.5), "which chunk")[0] != 1
    assert rank(cands, TriedOptions(vector_share=0.5, confidence_power=1.0), "which chunk")[0] == 1


def test_a_compound_question_is_split_where_it_joins_two() -> None:
    assert sub_questions("How are fixtures torn down, and how does caching of fixtures work?") == [
        "How are fixtures torn down",
        "how does caching of fixtures work",
    ]
    assert sub_questions("How are fixtures torn down?") == []


def test_a_docs_pages_name_lifts_it_no_more_when_names_are_code_files_alone() -> None:
    question = "how does blocking work"
    cands = [
        candidate(in_language("markdown", hit(1, "docs/overview.md", "intro")), vector=(1, 0.9)),
        candidate(in_language("markdown", hit(2, "docs/blocking.md", "page")), vector=(2, 0.85)),
        candidate(in_language("rust", hit(3, "task/blocking.rs", "fn spawn")), vector=(3, 0.84)),
        candidate(in_language("rust", hit(4, "src/other.rs", "fn other")), vector=(4, 0.1)),
    ]
    names = TriedOptions(name_boost=0.5)
    code = dataclasses.replace(names, names_of_code_only=True)
    assert rank(cands, names, question)[:2] == [2, 3]
    assert rank(cands, code, question)[:2] == [3, 1]


def test_a_docs_pages_card_lifts_it_no_more_when_cards_are_code_files_alone() -> None:
    question = "how does blocking work"
    cands = [
        candidate(in_language("markdown", hit(1, "docs/overview.md")), vector=(1, 0.9)),
        candidate(in_language("markdown", hit(2, "docs/blocking.md")), file=(1, 9.0)),
        candidate(in_language("rust", hit(3, "task/blocking.rs")), vector=(2, 0.6), file=(2, 3.0)),
        candidate(in_language("rust", hit(4, "src/other.rs")), vector=(3, 0.1), file=(3, 1.0)),
    ]
    cards = dataclasses.replace(fusion_only(TriedOptions()), file_weight=1.0)
    code = dataclasses.replace(cards, cards_of_code_only=True)
    # the page its card ranks first rises above the code file, the other page below both
    assert rank(cands, cards, question)[:3] == [2, 3, 1]
    # code cards alone: the code file rises, the pages keep their own order
    assert rank(cands, code, question)[:3] == [3, 1, 2]
    offer = Offer(question, cands)
    assert rank_offer(offer, canonical(code, offer)) == rank_offer(offer, code)
