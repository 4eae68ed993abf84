"""Ranking is plain Python over candidate lists: every rule checked on constructed lists (each
signal's own in tests/ranking/signals/)."""

import dataclasses

import pytest

from ragspace.models import Fusion
from ragspace.ranking.candidates import Candidate, Side
from ragspace.ranking.definitions import defines
from ragspace.ranking.fusion import confidence, distribution, min_max
from ragspace.ranking.offer import Offer
from ragspace.ranking.options import OFF, RankingOptions, fusion_only
from ragspace.ranking.query import QueryProfile, looks_like_symbol, name_parts
from ragspace.ranking.ranker import SIGNALS, canonical, rank, rank_offer
from ragspace.search.keyword_ranking import keyword_only_ranking
from tests.ranking.made import candidate, hit


def test_symbols_are_told_from_words() -> None:
    assert looks_like_symbol("from_item_and_call")
    assert looks_like_symbol("HTTPAdapter") and looks_like_symbol("getUser")
    assert looks_like_symbol("Session.request") and looks_like_symbol("run()")
    assert not looks_like_symbol("session") and not looks_like_symbol("Session")
    assert name_parts("HTTPAdapter") == ["http", "adapter"]
    assert name_parts("test_from_item_and_call") == ["test", "from", "item", "and", "call"]


def test_a_question_names_symbols_by_their_parts() -> None:
    profile = QueryProfile("Why does `FixtureFunctionMarker.__call__` refuse Session objects?")
    assert profile.symbols == (
        "FixtureFunctionMarker.__call__",
        "FixtureFunctionMarker",
    )
    assert not QueryProfile("how do retries work").symbols


def test_definitions_are_found_in_any_common_language() -> None:
    names = ("send",)
    assert defines("class Session:\n    def send(self):\n", names)
    assert defines("export async function send(x) {", names)
    assert defines("pub fn send(&self) -> Result<()> {", names)
    assert defines("func (c *Client) send() error {", ("Client",)) is False
    assert defines("send = make_sender()", names)
    assert not defines("    self.send(request)\n", names)
    assert not defines("sender = 1", names)
    assert defines("no definition in the text", names, declared=["send"])


def test_scalings_place_each_score_in_its_sides_distribution() -> None:
    cands = [candidate(hit(i), keyword=(i, 10.0 - i)) for i in range(1, 5)]
    assert min_max(cands, Side.KEYWORD) == {1: 1.0, 2: pytest.approx(2 / 3), 3: 1 / 3, 4: 0.0}
    spread = distribution(cands, Side.KEYWORD)
    assert spread[1] < 1.0 and spread[4] > 0.0  # no clear winner: nobody gets the extremes
    assert list(spread.values()) == sorted(spread.values(), reverse=True)
    peaked = [candidate(hit(1), vector=(1, 0.9))] + [
        candidate(hit(i), vector=(i, 0.3)) for i in range(2, 10)
    ]
    flat = [candidate(hit(i), vector=(i, 0.5 - i / 1000)) for i in range(1, 10)]
    assert confidence(peaked, Side.VECTOR) > confidence(flat, Side.VECTOR)
    assert confidence(peaked[:1], Side.VECTOR) == 0.0


def test_every_signal_the_app_holds_is_on_and_listed_once() -> None:
    """A signal that lost the protocol leaves the app for bench/experiments/tried_signals/:
    each option in OFF is on by default in hybrid search or in the keyword-only ranking (the
    file names: on there only), and SIGNALS lists each signal once."""
    defaults, keyword_only = RankingOptions(), keyword_only_ranking()
    for field, off in OFF.items():
        assert getattr(defaults, field) != off or getattr(keyword_only, field) != off, field
    fields = {f.name for f in dataclasses.fields(RankingOptions)}
    assert set(OFF) <= fields
    listed = [SIGNALS.fusion, *SIGNALS.files, *SIGNALS.question, SIGNALS.links]
    assert len(set(listed)) == len(listed)


def test_one_offer_ranked_under_many_options_ranks_as_fresh_candidates_do() -> None:
    """What an Offer derives once (scaled scores, prose, definitions, confidence) is shared
    by every ranking of it: no option may change what the next one sees."""
    question = "how does `send` retry in the fixtures"
    cands = [
        candidate(hit(1, "src/send.py", "def send(x):\n    retry()\n"), vector=(2, 0.8)),
        candidate(hit(2, "tests/test_send.py", "send()", 2), vector=(1, 0.9), keyword=(2, 3.0)),
        candidate(hit(3, "docs/retry.md", "retry", 3), keyword=(1, 9.0), file=(1, 4.0)),
        candidate(hit(4, "src/fixtures.py", "fixtures", 4), vector=(3, 0.5), file=(2, 7.0)),
        candidate(hit(5, "src/send.py", "more", 1), vector=(4, 0.4), keyword=(3, 1.0)),
    ]
    cands[2] = Candidate(
        cands[2].hit.model_copy(update={"metadata": {"language": "markdown"}}),
        cands[2].evidence,
    )
    base = RankingOptions()
    options = [
        base,
        fusion_only(base),
        dataclasses.replace(base, fusion=Fusion.RRF),
        dataclasses.replace(base, scaling="distribution", vector_share=0.7),
        dataclasses.replace(base, file_weight=1.0, lift_best_chunk=False),
        dataclasses.replace(base, prose_factor=0.3, definition_boost=0.5),
        dataclasses.replace(base, file_weight=0.0, file_confidence_power=2.0),
        dataclasses.replace(fusion_only(base), lift_best_chunk=True, file_confidence_power=2.0),
        base,
    ]
    shared = Offer(question, cands)
    for option in options:
        assert rank_offer(shared, option) == rank(cands, option, question)
        # options of one canonical form rank alike (the protocol scores them once)
        assert rank_offer(shared, canonical(option)) == rank_offer(shared, option)
        assert rank_offer(shared, canonical(option, shared)) == rank_offer(shared, option)
    # the neighbours' weight varied last, as the protocol's grids do: the scores before the
    # links are reused, never changed (file 6 is linked to the best file 1)
    files = {1: 0.9, 2: 0.85, 3: 0.8, 4: 0.75, 5: 0.7, 7: 0.5, 6: 0.4}
    many = [candidate(hit(d, f"f{d}.py", document_id=d), vector=(1, s)) for d, s in files.items()]
    linked = {1: {6: 1.0}, 6: {1: 1.0}}
    offer = Offer("q", many)
    ranked = {}
    for weight in (0.5, 0.0, 0.5, 1.0, 0.0):
        option = dataclasses.replace(fusion_only(base), neighbour_weight=weight)
        ranked[weight] = rank(many, option, "q", links=lambda *_: linked)
        assert rank_offer(offer, option, links=lambda *_: linked) == ranked[weight]
    assert ranked[1.0] != ranked[0.0]  # the link lifts file 6
    # for one question, the signals it gives nothing to act on are off: no chunk defines a
    # symbol it names, no prose beside code for a question about code, no code for links
    pages = [
        Candidate(c.hit.model_copy(update={"metadata": {"language": "markdown"}}), c.evidence)
        for c in many
    ]
    on = dataclasses.replace(base, definition_boost=1.0, prose_factor=0.5, neighbour_weight=0.5)
    assert canonical(on, Offer("how do `send` retries work", pages)) == dataclasses.replace(
        on,
        definition_boost=0.0,
        definition_specificity=0.0,
        text_definition_factor=1.0,
        definition_once_per_file=False,
        prose_factor=1.0,
        neighbour_weight=0.0,
    )
    # send.py's definition is read off its text in no parsed language: the factor for
    # definitions only the patterns read cannot matter
    assert canonical(on, shared) == dataclasses.replace(on, text_definition_factor=1.0)
    assert canonical(options[-2]) == canonical(fusion_only(base)) != canonical(base)
    assert shared.defining == {1}
    assert shared.prose == {3}
