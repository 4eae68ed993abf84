"""The Sources panel's snippets show the file's lines (issue 67, item 9), and the chat's
question queue takes every question in turn (item 5)."""

from ragspace_ui.chat_sources import paragraphs, snippet_html
from ragspace_ui.question_queue import QuestionQueue

PROSE = (
    "# Backups\n"
    "\n"
    "Take a nightly logical backup with pg_dump and keep fourteen daily copies;\n"
    "test a restore every month.\n"
    "\n"
    "- one item that wraps\n"
    "  onto a second line\n"
    "- two\n"
    "\n"
    "```\n"
    "pg_dump --format=custom\n"
    "pg_restore\n"
    "```\n"
    "    indented code\n"
    "    stays\n"
    "Heading\n"
    "=======\n"
    "…"
)


def test_prose_is_shown_by_paragraphs_and_blocks_keep_their_lines() -> None:
    shown = paragraphs(PROSE).split("\n")
    assert shown[2] == (
        "Take a nightly logical backup with pg_dump and keep fourteen daily copies; "
        "test a restore every month."
    )
    assert shown[0] == "# Backups" and shown[1] == ""
    assert "- one item that wraps onto a second line" in shown and "- two" in shown
    assert shown[7:11] == ["```", "pg_dump --format=custom", "pg_restore", "```"]
    assert shown[11:13] == ["    indented code", "    stays"]
    assert shown[13:] == ["Heading", "=======", "…"]


def test_a_snippet_is_one_escaped_block_code_line_for_line() -> None:
    code = "def f(a):\n    return a < 1  # a long line that must not be wrapped anywhere\n"
    html = snippet_html(code, prose=False)
    assert html.startswith('<pre class="rs-snippet rs-code"><code>')
    assert "return a &lt; 1  # a long line" in html and html.count("\n") == code.count("\n")
    prose = snippet_html("one\ntwo <b>", prose=True)
    assert 'class="rs-snippet rs-prose"' in prose and "one two &lt;b&gt;" in prose


def test_questions_wait_their_turn_and_a_finished_loop_lets_a_new_one_start() -> None:
    queue = QuestionQueue()
    queue.put("page", "first")
    assert queue.claim("page") and not queue.claim("page")  # one loop per page
    assert queue.next_question("page") == "first" and queue.busy("page")
    queue.put("page", "second")
    assert queue.waiting("page") == ["second"]
    assert queue.next_question("page") == "second"
    assert queue.next_question("page") is None and not queue.busy("page")
    assert queue.claim("page")  # the next question starts a new loop
    queue.put("page", "left")
    queue.release("page")  # the page is gone: nothing of it is kept
    assert queue.waiting("page") == [] and not queue.busy("page")
    queue.put("other", "x")
    queue.drop("other")
    assert queue.waiting("other") == []
