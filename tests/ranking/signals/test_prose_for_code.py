"""Prose sinks below code for a question about code."""

from ragspace.ranking.options import RankingOptions
from ragspace.ranking.query import QueryProfile
from ragspace.ranking.ranker import rank
from tests.ranking.made import candidate, hit, in_language


def test_prose_sinks_below_code_for_a_question_about_code_and_only_then() -> None:
    page = in_language("markdown", hit(1, "docs/retry.md"))
    code = in_language("python", hit(2, "src/retry.py"))
    other = in_language("python", hit(3, "src/other.py"))
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
    not_about_code = "how often are failed requests retried"
    assert [h.chunk_id for h in rank(cands, options, not_about_code)] == [1, 2, 3]
    off = RankingOptions(prose_factor=1.0)
    assert [h.chunk_id for h in rank(cands, off, about_code)] == [1, 2, 3]
    # among prose alone there is nothing to prefer: the same order and scores as without
    pages = [
        candidate(page, keyword=(1, 5.0)),
        candidate(in_language("markdown", hit(4, "docs/other.md")), keyword=(2, 1.0)),
    ]
    assert rank(pages, options, about_code) == rank(pages, off, about_code)
