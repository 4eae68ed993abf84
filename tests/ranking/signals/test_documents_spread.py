"""Documents spread over the list when they compete: docs pages, and code files for a question
that names no code symbol."""

from ragspace.models import Hit
from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions, fusion_only
from ragspace.ranking.ranker import rank
from ragspace.ranking.signals.documents_spread import documents_spread
from tests.ranking.made import candidate, hit, in_language


def test_pages_spread_by_competition_keep_a_page_far_above_the_rest_together() -> None:
    def order(second_page: float) -> list[int]:
        ranked = [
            (1.0, in_language("markdown", hit(1, "a.md", document_id=1))),
            (0.9, in_language("markdown", hit(2, "a.md", document_id=1))),
            (0.8, in_language("markdown", hit(3, "a.md", document_id=1))),
            (second_page, in_language("markdown", hit(4, "b.md", document_id=2))),
            (0.7, hit(5, "c.py", document_id=3)),
            (0.69, hit(6, "c.py", document_id=3)),
        ]
        options = RankingOptions(page_decay=0.5, page_spread_power=2.0)
        return [h.chunk_id for _s, h in documents_spread(TOPIC, ranked, options)]

    # b.md at 0.2 of a.md: the page decay is 0.98, a.md's sections stay first; the code
    # file keeps its chunks together (no file decay)
    assert order(0.2) == [1, 2, 3, 5, 6, 4]
    # at 0.75: 1 - 0.5 x 0.5625 = 0.72, a.md's second section (0.9 x 0.72 = 0.65) falls
    # below b.md and c.py, its third (0.8 x 0.52 = 0.41) lower still
    assert order(0.75) == [1, 4, 5, 6, 2, 3]


TOPIC = Offer("thread pool and work queue", [])  # names no code symbol


def _three_chunks_of_a_then(second_file: float) -> list[tuple[float, Hit]]:
    return [
        (1.0, hit(1, "a.py", document_id=1)),
        (0.9, hit(2, "a.py", document_id=1)),
        (0.8, hit(3, "a.py", document_id=1)),
        (second_file, hit(4, "b.py", document_id=2)),
    ]


def _order(offer: Offer, ranked: list[tuple[float, Hit]], options: RankingOptions) -> list[int]:
    return [h.chunk_id for _s, h in documents_spread(offer, ranked, options)]


def test_spreading_files_lets_the_next_file_pass_a_files_third_chunk() -> None:
    ranked = _three_chunks_of_a_then(0.5)
    assert _order(TOPIC, ranked, RankingOptions()) == [1, 2, 3, 4]  # off in hybrid search
    assert _order(TOPIC, ranked, RankingOptions(file_decay=0.5)) == [1, 4, 2, 3]


def test_files_spread_by_competition_keep_a_file_far_above_the_rest_together() -> None:
    options = RankingOptions(file_decay=0.5, file_spread_power=2.0)
    # b.py at 0.2 of a.py: the decay is 1 - 0.5 x 0.2^2 = 0.98, a.py's chunks stay first
    assert _order(TOPIC, _three_chunks_of_a_then(0.2), options) == [1, 2, 3, 4]
    # at 0.6: 1 - 0.5 x 0.36 = 0.82, a.py's third chunk (0.8 x 0.82^2 = 0.54) falls below
    assert _order(TOPIC, _three_chunks_of_a_then(0.6), options) == [1, 2, 4, 3]


def test_a_question_naming_a_symbol_keeps_its_files_chunks_together() -> None:
    ranked = _three_chunks_of_a_then(0.6)
    options = RankingOptions(file_decay=0.5)
    for question in ("What does the `Soundex` constructor take?", "how TreeVisitor walks"):
        assert _order(Offer(question, []), ranked, options) == [1, 2, 3, 4], question
    assert _order(Offer("how the visitor walks a tree", []), ranked, options) == [1, 4, 2, 3]


SCORES = (0.9, 0.88, 0.86, 0.84)


def test_a_question_two_pages_answer_gets_both_in_its_first_hits() -> None:
    """Four sections of one page above another page whose best section follows close:
    spread, the second page comes second."""
    tutorial = [
        in_language("markdown", hit(n, "tutorial/middleware.md", document_id=1))
        for n in (1, 2, 3, 4)
    ]
    advanced = in_language("markdown", hit(5, "advanced/middleware.md", document_id=2))
    cands = [
        *(candidate(h, vector=(h.chunk_id, s)) for h, s in zip(tutorial, SCORES, strict=True)),
        candidate(advanced, vector=(5, 0.83)),
        candidate(hit(6, "other.py", document_id=3), vector=(6, 0.1)),
    ]
    for h in tutorial:
        h.metadata["heading_path"] = f"Middleware > Part {h.chunk_id}"
    plain = fusion_only(RankingOptions())
    assert [h.chunk_id for h in rank(cands, plain, "middleware order")][:5] == [1, 2, 3, 4, 5]
    assert [h.chunk_id for h in rank(cands, RankingOptions(), "middleware order")][:2] == [1, 5]
