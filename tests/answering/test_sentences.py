"""Prose passages grow to whole sentences: a chunk cut mid-sentence is not cited cut."""

from ragspace.answering.sentences import whole_sentences

# Line numbers on the left; the chunk is lines 4-5.
TEXT = """\
# Versions

A source keeps the commit it resolved to. Search and ask take
an optional ref, and with a ref only documents indexed at that
ref are searched; a ref that is not indexed is an error that
names the refs that are. Without one, every version
is searched.
"""
LINES = TEXT.split("\n")


def test_a_cut_sentence_is_completed_on_both_sides() -> None:
    # line 5 ends "an error that": the sentence ends inside line 6, which also starts the
    # next one; line 4 continues line 3, where the sentence starts after "resolved to."
    assert whole_sentences(LINES, 1, 4, 5, reach=3) == (3, 6)


def test_lines_that_hold_whole_sentences_stay_as_they_are() -> None:
    lines = ["# Title", "", "One sentence here.", "Another one there.", "", "- an item"]
    assert whole_sentences(lines, 1, 3, 4, reach=3) == (3, 4)


def test_a_sentence_longer_than_the_reach_is_left_cut() -> None:
    lines = ["It starts here", "and goes on", "and on", "and on", "and on", "and ends."]
    assert whole_sentences(lines, 1, 3, 3, reach=1) == (3, 3)
    assert whole_sentences(lines, 1, 3, 3, reach=3) == (1, 6)


def test_headings_blank_lines_lists_and_fences_bound_a_sentence() -> None:
    lines = ["## Install", "Run the command", "```", "pip install x", "```", "- first item", "then"]
    assert whole_sentences(lines, 1, 2, 2, reach=3) == (2, 2)  # heading above, fence below
    assert whole_sentences(lines, 1, 7, 7, reach=3) == (6, 7)  # an item's wrapped line


def test_lines_past_the_end_of_the_document_end_its_last_sentence() -> None:
    lines = ["a sentence that", "runs to the last line"]
    assert whole_sentences(lines, 1, 1, 1, reach=3) == (1, 2)
