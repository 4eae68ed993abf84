"""Precise citation ranges: a widened passage links to the few lines that matched best."""

from ragspace.answering.citations import cite
from ragspace.answering.focus import lead
from ragspace.models import Passage

SHA = "9943026326188317eaab57a879bcf4534d20dcec"


def _widened_passage() -> Passage:
    """Lines 1-45 of a module; the matching chunk is lines 30-40, the matching lines 33-36."""
    lines = [f"    value_{n} = compute({n})" for n in range(1, 46)]
    lines[32] = "def retry_with_backoff(request, attempts):"
    lines[33] = '    """Retry a request with exponential backoff."""'
    lines[34] = "    for attempt in range(attempts):"
    lines[35] = "        delay = 2 ** attempt"
    lines[36] = ""
    return Passage(
        number=1,
        document_id=1,
        docset_name="ops",
        path="client.py",
        title="client.py",
        start_line=1,
        end_line=45,
        content="\n".join(lines),
        metadata={
            "source": "github",
            "commit": SHA,
            "html_url": "https://github.com/acme/ops",
            "repo_path": "src/client.py",
            "language": "python",
        },
        score=0.5,
        focus_line=30,
        focus_end_line=40,
    )


def test_a_widened_passage_links_to_its_best_lines_and_keeps_its_range() -> None:
    citation = cite(_widened_passage(), "How does the client retry with backoff?")
    assert (citation.start_line, citation.end_line) == (1, 45)  # the passage, for the viewer
    assert (citation.focus_start_line, citation.focus_end_line) == (33, 36)
    assert citation.url == f"https://github.com/acme/ops/blob/{SHA}/src/client.py#L33-L36"
    assert citation.snippet.removeprefix("…\n").startswith("def retry_with_backoff")


def test_without_a_matching_word_the_link_covers_the_best_chunk() -> None:
    citation = cite(_widened_passage(), "zebra")
    assert (citation.focus_start_line, citation.focus_end_line) == (30, 40)
    assert citation.url is not None and citation.url.endswith("#L30-L40")


def test_between_sentences_sharing_as_many_words_the_one_with_the_question_s_phrase_leads() -> None:
    content = (
        "Search and ask take an optional ref. With a ref only documents at that ref are"
        " searched; a ref that is not indexed is an error that names the refs that are."
    )
    passage = _widened_passage().model_copy(
        update={"content": content, "start_line": 1, "end_line": 1, "metadata": {}}
    )
    found = lead(passage, "What happens when I ask for a ref that is not indexed?")
    assert found is not None and found.text.endswith("names the refs that are.")
