"""Files the symbol table links to the best ones join them, without displacing them."""

import dataclasses
from collections.abc import Collection

import pytest

from ragspace.ranking.candidates import Side
from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions, fusion_only
from ragspace.ranking.ranker import rank
from ragspace.ranking.signals.linked_files import Links, linked_files
from tests.ranking.made import candidate, hit

ON = RankingOptions(neighbour_weight=0.5)


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

    lifted = linked_files(Offer("q", cands), scores, ON, read)
    assert asked == [([1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6, 7])]  # the five best, once
    # up to the fifth file's best chunk, above file 1's second chunk and file 7; no higher
    assert lifted[6] == pytest.approx(0.7)
    assert {c: s for c, s in lifted.items() if c != 6} == {
        c: s for c, s in scores.items() if c != 6
    }
    off = dataclasses.replace(ON, neighbour_weight=0.0)
    assert linked_files(Offer("q", cands), scores, off, read) == scores
    unseeded = {7: {6: 1.0}, 6: {7: 1.0}}
    assert linked_files(Offer("q", cands), scores, ON, lambda *_: unseeded) == scores
    # the best files all pages: the store is not asked
    pages = [
        candidate(c.hit.model_copy(update={"metadata": {"language": "markdown"}}), vector=(1, 0.5))
        for c in cands
    ]
    assert linked_files(Offer("q", pages), scores, ON, read) == scores and len(asked) == 1
    # in a ranking: off by default, on with a weight
    plain = fusion_only(RankingOptions())
    assert [h.chunk_id for h in rank(cands, plain, "q", links=read)][5:] == [8, 7, 6]
    linked = dataclasses.replace(plain, neighbour_weight=0.5)
    assert [h.chunk_id for h in rank(cands, linked, "q", links=read)][5:] == [6, 8, 7]
