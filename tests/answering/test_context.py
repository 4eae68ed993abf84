"""Passages: merged hits, neighbours within the budget, exact lines, page ranges."""

import tracemalloc

import numpy as np

from ragspace.answering.citations import cite
from ragspace.answering.context import ContextBuilder
from ragspace.models import ChunkDraft, Hit
from ragspace.reading import MAX_READ_CHARS
from ragspace.store import NewDocument, Store

LINES = [f"Line {n} of the guide." for n in range(1, 11)]  # one sentence a line


def _document(store: Store) -> tuple[int, list[ChunkDraft]]:
    docset = store.docsets.create("guide", "", "local/test", 384)
    text = "\n".join(LINES)
    [document_id] = store.documents.upsert(
        docset.id, None, [NewDocument("guide.md", "guide", "markdown", text, "h")]
    )
    chunks = [
        ChunkDraft(
            ordinal=i,
            content="\n".join(LINES[2 * i : 2 * i + 2]),
            start_line=2 * i + 1,
            end_line=2 * i + 2,
            metadata={"page": i + 1},
        )
        for i in range(5)
    ]
    vectors = np.ones((5, 384), dtype=np.float32)
    store.chunks.replace(document_id, docset.id, chunks, vectors, [str(i) for i in range(5)])
    return document_id, chunks


def _hit(document_id: int, chunk: ChunkDraft, score: float) -> Hit:
    return Hit(
        chunk_id=chunk.ordinal,
        document_id=document_id,
        docset_name="guide",
        path="guide.md",
        title="guide",
        ordinal=chunk.ordinal,
        content=chunk.content,
        start_line=chunk.start_line,
        end_line=chunk.end_line,
        metadata=chunk.metadata,
        score=score,
    )


def test_adjacent_hits_merge_and_neighbours_widen_within_budget(store: Store) -> None:
    document_id, chunks = _document(store)
    hits = [_hit(document_id, chunks[2], 0.9), _hit(document_id, chunks[3], 0.8)]
    [narrow] = ContextBuilder(store, 10_000).passages(hits, widen=False)
    assert (narrow.start_line, narrow.end_line) == (5, 8)
    assert narrow.content == "\n".join(LINES[4:8])
    assert (narrow.metadata["page"], narrow.metadata["page_end"]) == (3, 4)
    [wide] = ContextBuilder(store, 10_000).passages(hits, widen=True)
    assert (wide.start_line, wide.end_line) == (3, 10)
    assert wide.content == "\n".join(LINES[2:10])
    assert (wide.metadata["page"], wide.metadata["page_end"]) == (2, 5)


def test_neighbours_that_do_not_fit_are_left_out(store: Store) -> None:
    document_id, chunks = _document(store)
    core = "\n".join(LINES[4:6])
    [passage] = ContextBuilder(store, len(core) + 5).passages([_hit(document_id, chunks[2], 1.0)])
    assert (passage.start_line, passage.end_line, passage.content) == (5, 6, core)


def test_a_widened_passage_cites_from_its_best_match(store: Store) -> None:
    document_id, chunks = _document(store)
    [wide] = ContextBuilder(store, 10_000).passages([_hit(document_id, chunks[2], 1.0)])
    assert (wide.start_line, wide.end_line, wide.focus_line) == (3, 8, 5)
    citation = cite(wide)
    assert (citation.start_line, citation.end_line) == (3, 8)  # the range is the whole passage
    assert citation.snippet == "…\n" + "\n".join(LINES[4:8])  # the snippet starts at the match
    [first] = ContextBuilder(store, 10_000).passages([_hit(document_id, chunks[0], 1.0)])
    assert cite(first).snippet == "\n".join(LINES[0:4])  # the match is the passage start


def test_a_prose_passage_cut_mid_sentence_grows_to_whole_sentences(store: Store) -> None:
    docset = store.docsets.create("refs", "", "local/test", 384)
    lines = [
        "# Versions",
        "",
        "Each ref is its own source. Search takes",
        "an optional ref; a ref that is not indexed is an error that",
        "names the refs that are. Without one,",
        "every version is searched.",
    ]
    [document_id] = store.documents.upsert(
        docset.id, None, [NewDocument("refs.md", "refs", "markdown", "\n".join(lines), "h")]
    )
    chunk = ChunkDraft(ordinal=0, content=lines[3], start_line=4, end_line=4, metadata={})
    vectors = np.ones((1, 384), dtype=np.float32)
    store.chunks.replace(document_id, docset.id, [chunk], vectors, ["0"])
    [passage] = ContextBuilder(store, 10_000).passages([_hit(document_id, chunk, 1.0)], False)
    assert (passage.start_line, passage.end_line) == (3, 5)
    assert passage.content == "\n".join(lines[2:5])
    assert (passage.focus_line, passage.focus_end_line) == (4, 4)  # the link: the chunk


def _largest_allocation_building(store: Store, hit: Hit, budget: int = 10_000) -> tuple[int, str]:
    """Peak Python memory while the context of one hit is built, and the passage's text."""
    tracemalloc.start()
    try:
        [passage] = ContextBuilder(store, budget).passages([hit])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, passage.content


def _stored(store: Store, text: str, chunk: ChunkDraft) -> int:
    docset = store.docsets.create("large", "", "local/test", 384)
    [document_id] = store.documents.upsert(
        docset.id, None, [NewDocument("large.txt", "large", "text", text, "h")]
    )
    vectors = np.ones((1, 384), dtype=np.float32)
    store.chunks.replace(document_id, docset.id, [chunk], vectors, ["0"])
    return document_id


def test_a_multi_megabyte_line_is_never_read_whole_for_a_prompt(store: Store) -> None:
    line = "".join(f"token{n};" for n in range(600_000))  # one minified line of ~6.6 MB
    chunk = ChunkDraft(ordinal=0, content=line[:900], start_line=1, end_line=1, metadata={})
    document_id = _stored(store, line, chunk)
    peak, content = _largest_allocation_building(store, _hit(document_id, chunk, 1.0))
    assert content == line[:900]  # the best chunk stands in for the line
    assert peak < 4 * MAX_READ_CHARS * 4  # the reading caps, not the line (4 bytes a char)


def test_a_range_of_100k_lines_is_never_read_whole_for_a_prompt(store: Store) -> None:
    lines = [
        f"line {n:06d} of a long generated table, padded to sixty chars" for n in range(100_000)
    ]
    chunk = ChunkDraft(
        ordinal=0, content="\n".join(lines[:10]), start_line=1, end_line=100_000, metadata={}
    )
    document_id = _stored(store, "\n".join(lines), chunk)
    peak, content = _largest_allocation_building(store, _hit(document_id, chunk, 1.0))
    assert content == "\n".join(lines[:10])
    assert peak < 4 * MAX_READ_CHARS * 4


def test_lines_in_the_middle_of_a_100k_line_document_are_read_exactly(store: Store) -> None:
    lines = [f"Row {n} of the ledger." for n in range(1, 100_001)]
    chunk = ChunkDraft(
        ordinal=0,
        content="\n".join(lines[50_000:50_003]),
        start_line=50_001,
        end_line=50_003,
        metadata={},
    )
    document_id = _stored(store, "\n".join(lines), chunk)
    peak, content = _largest_allocation_building(store, _hit(document_id, chunk, 1.0))
    assert content == "\n".join(lines[50_000:50_003])
    assert peak < 4 * MAX_READ_CHARS * 4
