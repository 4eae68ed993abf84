"""The file side (the documents' cards) lifts the files it describes."""

import dataclasses

from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions, fusion_only
from ragspace.ranking.ranker import rank
from ragspace.ranking.signals.file_cards import card_weight
from tests.ranking.made import candidate, hit


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


def test_cards_that_single_out_a_file_weigh_more_than_cards_that_match_many_alike() -> None:
    def offered(file_scores: list[float]) -> Offer:
        chunks = [0.9, 0.5, 0.45, 0.4, 0.35]
        return Offer(
            "q",
            [
                candidate(hit(i + 1), vector=(i + 1, v), keyword=(i + 1, 10 * v), file=(i + 1, f))
                for i, (v, f) in enumerate(zip(chunks, file_scores, strict=True))
            ],
        )

    options = RankingOptions(file_weight=0.5, file_confidence_power=2.0)
    clear = card_weight(offered([20.0, 2.0, 1.9, 1.8, 1.7]), options)
    flat = card_weight(offered([5.0, 4.9, 4.8, 4.7, 4.6]), options)
    assert clear > 0.5 > flat > 0
    fixed = RankingOptions(file_weight=0.5, file_confidence_power=0.0)
    assert card_weight(offered([5.0, 4.9, 4.8, 4.7, 4.6]), fixed) == 0.5
