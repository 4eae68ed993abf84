"""A file whose name the question uses rises (the keyword-only ranking's signal; off in hybrid)."""

from ragspace.models import Fusion
from ragspace.ranking.options import RankingOptions, fusion_only
from ragspace.ranking.ranker import rank
from tests.ranking.made import candidate, hit


def test_a_file_named_by_the_question_rises_only_when_the_signal_is_on() -> None:
    cands = [
        candidate(hit(1, "src/helpers.py", "def setup(): ..."), keyword=(1, 3.0)),
        candidate(hit(2, "src/fixtures.py", "def setup(): ..."), keyword=(2, 2.7)),
        candidate(hit(3, "src/other.py", "x = 1"), keyword=(3, 1.0)),
    ]
    question = "how are fixtures set up"
    plain = fusion_only(RankingOptions(fusion=Fusion.CONVEX))
    named = RankingOptions(fusion=Fusion.CONVEX, name_boost=0.5)
    assert [h.chunk_id for h in rank(cands, plain, question)] == [1, 2, 3]
    assert [h.chunk_id for h in rank(cands, RankingOptions(), question)][:2] == [1, 2]
    assert [h.chunk_id for h in rank(cands, named, question)][:2] == [2, 1]
