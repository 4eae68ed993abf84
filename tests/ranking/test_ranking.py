"""Ranking is plain Python over candidate lists: every rule checked on constructed lists."""

import dataclasses
from collections.abc import Collection

import pytest

from ragspace.models import Fusion, Hit
from ragspace.ranking.candidates import Candidate, Evidence, Side
from ragspace.ranking.definitions import defines
from ragspace.ranking.file_chunks import best_chunks_mean
from ragspace.ranking.fusion import confidence, distribution, min_max
from ragspace.ranking.neighbours import Links, lift_neighbours
from ragspace.ranking.offer import Offer
from ragspace.ranking.paths import is_secondary, name_match
from ragspace.ranking.query import QueryProfile, looks_like_symbol, name_parts
from ragspace.ranking.ranker import (
    RankingOptions,
    canonical,
    file_weight,
    fusion_only,
    rank,
    rank_offer,
)
from ragspace.ranking.selection import spread_files


def hit(chunk_id: int, path: str = "a.py", content: str = "", document_id: int = 0) -> Hit:
    return Hit(
        chunk_id=chunk_id,
        document_id=document_id or chunk_id,
        docset_name="d",
        path=path,
        title=path,
        ordinal=0,
        content=content,
        start_line=1,
        end_line=2,
        score=0.0,
    )


def candidate(chunk: Hit, **sides: tuple[int, float]) -> Candidate:
    return Candidate(chunk, {Side(name): Evidence(*value) for name, value in sides.items()})


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


def test_file_names_and_secondary_paths() -> None:
    profile = QueryProfile("How are fixtures finalized?")
    assert name_match(profile, "src/_pytest/fixtures.py") == 1.0
    assert name_match(profile, "testing/test_fixtures.py") == pytest.approx(1 / 2)
    assert name_match(profile, "src/_pytest/main.py") == 0.0
    for path in ("testing/test_x.py", "pkg/foo_test.go", "web/a.spec.ts", "examples/a.py"):
        assert is_secondary(path), path
    assert is_secondary("vendor/lib/x.go") and is_secondary("api/x_pb2.py")
    assert not is_secondary("src/_pytest/fixtures.py") and not is_secondary("src/contest.py")


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


def test_spreading_files_lets_the_next_file_pass_a_files_third_chunk() -> None:
    ranked = [
        (1.0, hit(1, "a.py", document_id=1)),
        (0.9, hit(2, "a.py", document_id=1)),
        (0.8, hit(3, "a.py", document_id=1)),
        (0.5, hit(4, "b.py", document_id=2)),
    ]
    assert [h.chunk_id for _s, h in spread_files(ranked, 1.0)] == [1, 2, 3, 4]
    assert [h.chunk_id for _s, h in spread_files(ranked, 0.5)] == [1, 4, 2, 3]


def test_a_definition_of_a_named_symbol_rises() -> None:
    cands = [
        candidate(hit(1, "calls.py", "    session.send(request)"), vector=(1, 0.6)),
        candidate(hit(2, "sessions.py", "def send(self, request):"), vector=(2, 0.55)),
        candidate(hit(3, "other.py", "x = 1"), vector=(3, 0.3)),
    ]
    plain = fusion_only(RankingOptions(fusion=Fusion.CONVEX))
    boosted = RankingOptions(fusion=Fusion.CONVEX, definition_boost=0.5)
    question = "What does `send` do with the request?"
    assert [h.chunk_id for h in rank(cands, plain, question)] == [1, 2, 3]
    assert [h.chunk_id for h in rank(cands, boosted, question)] == [2, 1, 3]
    assert [h.chunk_id for h in rank(cands, RankingOptions(), question)] == [2, 1, 3]


def test_a_file_its_card_describes_lifts_each_of_its_chunks() -> None:
    # chunks 2 and 3 belong to the file the card side ranks first; chunk 4, that file's
    # representative, was offered by the card side alone
    cands = [
        candidate(hit(1, "docs/imports.md", document_id=1), vector=(1, 0.7), keyword=(1, 9.0)),
        candidate(hit(2, "private_import.py", document_id=2), vector=(2, 0.6), keyword=(2, 7.0)),
        candidate(hit(3, "private_import.py", document_id=2), vector=(3, 0.5)),
        candidate(hit(4, "private_import.py", document_id=2), file=(1, 12.0)),
        candidate(hit(5, "format.py", document_id=3), vector=(4, 0.4), file=(2, 3.0)),
    ]
    plain = fusion_only(RankingOptions())
    assert [h.chunk_id for h in rank(cands, plain, "q")][:2] == [1, 2]
    with_cards = dataclasses.replace(plain, file_weight=1.0)
    # every chunk of the described file gains; its representative ties with chunk 1
    assert [h.chunk_id for h in rank(cands, with_cards, "q")] == [2, 3, 1, 4, 5]
    # or only the file's best chunk, leaving its others where they were
    best_only = dataclasses.replace(with_cards, lift_best_chunk=True)
    assert [h.chunk_id for h in rank(cands, best_only, "q")] == [2, 1, 3, 4, 5]


def test_every_section_of_a_described_page_rises_even_when_only_a_files_best_chunk_would() -> None:
    page = [hit(i, "guide.md", document_id=1) for i in (1, 2)]
    for h in page:
        h.metadata["language"] = "markdown"
        h.metadata["heading_path"] = f"Guide > Part {h.chunk_id}"
    cands = [
        candidate(hit(3, "other.md", document_id=2), vector=(1, 0.9), keyword=(1, 9.0)),
        candidate(page[0], vector=(2, 0.6), keyword=(2, 6.0), file=(1, 8.0)),
        candidate(page[1], vector=(3, 0.5), keyword=(3, 5.0)),
        candidate(hit(4, "other.md", document_id=2), vector=(4, 0.4), file=(2, 1.0)),
    ]
    options = dataclasses.replace(
        fusion_only(RankingOptions()), file_weight=1.0, lift_best_chunk=True
    )
    assert [h.chunk_id for h in rank(cands, options, "q")][:2] == [1, 2]


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
    plain = fusion_only(RankingOptions())
    assert [h.chunk_id for h in rank(cands, plain, "q")][:2] == [1, 2]
    files = dataclasses.replace(plain, file_vector_weight=0.5, lift_best_chunk=True)
    # the file rises by its best chunk; its other chunks stay where they were
    assert [h.chunk_id for h in rank(cands, files, "q")] == [2, 1, 3, 4, 5, 6]
    # a side that offered no chunk scores no file
    assert best_chunks_mean(cands, Side.KEYWORD) == {}


def test_cards_that_single_out_a_file_weigh_more_than_cards_that_match_many_alike() -> None:
    def offered(file_scores: list[float]) -> list[Candidate]:
        chunks = [0.9, 0.5, 0.45, 0.4, 0.35]
        return [
            candidate(hit(i + 1), vector=(i + 1, v), keyword=(i + 1, 10 * v), file=(i + 1, f))
            for i, (v, f) in enumerate(zip(chunks, file_scores, strict=True))
        ]

    options = RankingOptions(file_weight=0.5, file_confidence_power=2.0)
    clear = file_weight(Offer("q", offered([20.0, 2.0, 1.9, 1.8, 1.7])), options)
    flat = file_weight(Offer("q", offered([5.0, 4.9, 4.8, 4.7, 4.6])), options)
    assert clear > 0.5 > flat > 0
    fixed = RankingOptions(file_weight=0.5, file_confidence_power=0.0)
    assert file_weight(Offer("q", offered([5.0, 4.9, 4.8, 4.7, 4.6])), fixed) == 0.5


def test_the_parse_says_what_a_chunk_defines() -> None:
    """A chunk whose parse lists the symbol (chunking/syntax.py's `defines`) rises even
    when its text holds no definition line the patterns know (a Haskell equation here)."""
    parsed = {"defines": [{"name": "render", "kind": "function", "line": 3}]}
    cands = [
        candidate(hit(1, "Main.hs", "main = print (render page)"), vector=(1, 0.6)),
        candidate(
            hit(2, "Render.hs", "render page = concatMap line page").model_copy(
                update={"metadata": parsed}
            ),
            vector=(2, 0.55),
        ),
        candidate(hit(3, "Other.hs", "x = 1"), vector=(3, 0.3)),
    ]
    assert rank(cands, RankingOptions(), "what does `render` do")[0].chunk_id == 2


def test_tests_sink_unless_the_question_asks_about_tests() -> None:
    cands = [
        candidate(hit(1, "tests/test_retry.py"), keyword=(1, 5.0)),
        candidate(hit(2, "src/retry.py"), keyword=(2, 4.5)),
        candidate(hit(3, "src/other.py"), keyword=(3, 1.0)),
    ]
    options = RankingOptions(secondary_factor=0.5)
    assert [h.chunk_id for h in rank(cands, options, "how does retry back off")] == [2, 1, 3]
    assert [h.chunk_id for h in rank(cands, options, "how is retry tested")] == [1, 2, 3]


def _in(language: str, chunk: Hit) -> Hit:
    return chunk.model_copy(update={"metadata": {"language": language}})


def test_prose_sinks_below_code_for_a_question_about_code_and_only_then() -> None:
    page = _in("markdown", hit(1, "docs/retry.md"))
    code = _in("python", hit(2, "src/retry.py"))
    other = _in("python", hit(3, "src/other.py"))
    cands = [
        candidate(page, keyword=(1, 5.0)),
        candidate(code, keyword=(2, 4.5)),
        candidate(other, keyword=(3, 1.0)),
    ]
    options = RankingOptions(prose_factor=0.5)
    about_code = "which method retries a failed request"
    assert QueryProfile(about_code).asks_about_code
    assert QueryProfile("how is `Retry.backoff` computed").asks_about_code
    assert not QueryProfile("how often are failed requests retried").asks_about_code
    assert [h.chunk_id for h in rank(cands, options, about_code)] == [2, 1, 3]
    assert [h.chunk_id for h in rank(cands, options, "how often are failed requests retried")] == [
        1,
        2,
        3,
    ]
    off = RankingOptions(prose_factor=1.0)
    assert [h.chunk_id for h in rank(cands, off, about_code)] == [1, 2, 3]
    # among prose alone there is nothing to prefer: the same order and scores as without
    pages = [
        candidate(page, keyword=(1, 5.0)),
        candidate(_in("markdown", hit(4, "docs/other.md")), keyword=(2, 1.0)),
    ]
    assert rank(pages, options, about_code) == rank(pages, off, about_code)


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
    each side weighed by its confidence the clear winner comes first, as the sure side alone
    would rank it: the fused list is not worse than that side."""
    cands = _one_side_knows(side, other)
    fixed = rank(cands, RankingOptions(vector_share=0.5), "which chunk")
    adaptive = rank(cands, RankingOptions(vector_share=0.5, confidence_power=1.0), "which chunk")
    assert fixed[0].chunk_id != 1
    assert adaptive[0].chunk_id == 1


def test_a_file_linked_to_the_best_files_joins_them_without_displacing_them() -> None:
    # five files lead (documents 1-5), file 1 also has a weaker second chunk; file 6 is
    # linked to file 1 by the symbol table, file 7 matches better but is linked to nothing
    best = {1: 0.9, 2: 0.85, 3: 0.8, 4: 0.75, 5: 0.7, 7: 0.5, 6: 0.4}
    cands = [candidate(hit(d, f"f{d}.py", document_id=d), vector=(1, s)) for d, s in best.items()]
    cands.append(candidate(hit(8, "f1.py", document_id=1), vector=(2, 0.6)))
    scores = {c.hit.chunk_id: c.evidence[Side.VECTOR].score for c in cands}
    links = {1: {6: 1.0}, 6: {1: 1.0}, 7: {9: 5.0}}
    asked: list[tuple[list[int], list[int]]] = []

    def read(seeds: Collection[int], documents: Collection[int]) -> Links:
        asked.append((sorted(seeds), sorted(documents)))
        return links

    lifted = lift_neighbours(Offer("q", cands), scores, read, 0.5)
    assert asked == [([1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6, 7])]  # the five best, once
    # up to the fifth file's best chunk, above file 1's second chunk and file 7; no higher
    assert lifted[6] == pytest.approx(0.7)
    assert {c: s for c, s in lifted.items() if c != 6} == {
        c: s for c, s in scores.items() if c != 6
    }
    assert lift_neighbours(Offer("q", cands), scores, read, 0.0) == scores
    unseeded = {7: {6: 1.0}, 6: {7: 1.0}}
    assert lift_neighbours(Offer("q", cands), scores, lambda *_: unseeded, 0.5) == scores
    # the best files all pages: the store is not asked
    pages = [
        candidate(c.hit.model_copy(update={"metadata": {"language": "markdown"}}), vector=(1, 0.5))
        for c in cands
    ]
    assert lift_neighbours(Offer("q", pages), scores, read, 0.5) == scores and len(asked) == 1
    # in a ranking: off by default, on with a weight
    plain = fusion_only(RankingOptions())
    assert [h.chunk_id for h in rank(cands, plain, "q", links=read)][5:] == [8, 7, 6]
    linked = dataclasses.replace(plain, neighbour_weight=0.5)
    assert [h.chunk_id for h in rank(cands, linked, "q", links=read)][5:] == [6, 8, 7]


def test_one_offer_ranked_under_many_options_ranks_as_fresh_candidates_do() -> None:
    """What an Offer derives once (scaled scores, prose, definitions, confidence) is shared
    by every ranking of it: no option may change what the next one sees."""
    question = "how does `send` retry in the fixtures"
    cands = [
        candidate(hit(1, "src/send.py", "def send(x):\n    retry()\n"), vector=(2, 0.8)),
        candidate(hit(2, "tests/test_send.py", "send()", 2), vector=(1, 0.9), keyword=(2, 3.0)),
        candidate(hit(3, "docs/retry.md", "retry", 3), keyword=(1, 9.0), file=(1, 4.0)),
        candidate(hit(4, "src/fixtures.py", "fixtures", 4), vector=(3, 0.5), document=(1, 7.0)),
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
        dataclasses.replace(base, scaling="distribution", confidence_power=1.0),
        dataclasses.replace(base, document_weight=1.0, file_weight=1.0, lift_best_chunk=False),
        dataclasses.replace(base, file_vector_weight=0.5, file_keyword_weight=0.5),
        dataclasses.replace(base, secondary_factor=0.5, prose_factor=0.3, name_boost=0.5),
        dataclasses.replace(base, coherence_boost=0.4, file_decay=0.5, definition_boost=2.0),
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
        on, definition_boost=0.0, prose_factor=1.0, neighbour_weight=0.0
    )
    assert canonical(on, shared) == on
    assert canonical(options[-2]) == canonical(fusion_only(base)) != canonical(base)
    assert shared.defining == {1}
    assert shared.prose == {3}
