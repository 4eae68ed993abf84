"""Which lines an extractive answer quotes: the statement or sentence that does the thing,
not the heading, markup, licence or bare signature beside it (issue 69)."""

from typing import Any

import pytest

from ragspace.answering.answer import extractive_answer
from ragspace.answering.boilerplate import as_text, boilerplate_kind
from ragspace.answering.focus import lead
from ragspace.models import Passage


def _passage(text: str, path: str, language: str, start: int = 1, **meta: Any) -> Passage:
    lines = text.split("\n")
    return Passage(
        number=1,
        document_id=1,
        docset_name="requests",
        path=path,
        title=path,
        start_line=start,
        end_line=start + len(lines) - 1,
        content=text,
        metadata={"language": language, **meta},
        score=0.5,
    )


TEST_WITH_A_CALL = """def test_urllib3_retries(httpbin):
    from urllib3.util import Retry

    s = requests.Session()
    s.mount("http://", HTTPAdapter(max_retries=Retry(total=2, status_forcelist=[500])))
    with pytest.raises(RetryError):
        s.get(httpbin("status/500"))"""


def test_a_call_is_quoted_before_its_tests_def_line() -> None:
    passage = _passage(TEST_WITH_A_CALL, "tests/test_requests.py", "python", start=40)
    found = lead(passage, "How are retries configured on a Session?")
    assert found is not None and found.code
    assert "s.mount(" in found.text
    assert "def test_urllib3_retries" not in found.text
    assert "import" not in found.text
    # the lines it quotes, in the document's numbering
    assert (found.start_line, found.end_line) == (43, 46)


ROLLBACK_GUIDE = """Rollbacks of the payments API
=============================

Overview
--------

The payments API is deployed in stages. A rollback takes about four minutes, and traffic
keeps flowing to the previous version meanwhile."""


def test_the_sentence_with_the_number_beats_the_title_above_it() -> None:
    passage = _passage(ROLLBACK_GUIDE, "docs/rollback.rst", "rst", start=10)
    found = lead(passage, "How long does a rollback of the payments API take?")
    assert found is not None and not found.code
    assert found.text.startswith("A rollback takes about four minutes")
    assert (found.start_line, found.end_line) == (16, 17)


def test_a_rest_sentence_is_quoted_with_its_markup_rendered() -> None:
    text = (
        "To retry, mount an adapter on a :class:`Session <requests.Session>` using the\n"
        "`urllib3.util.Retry`_ class, as ``max_retries=Retry(3)``::"
    )
    found = lead(_passage(text, "docs/user/advanced.rst", "rst"), "How do I retry a Session?")
    assert found is not None
    assert found.text == (
        "To retry, mount an adapter on a `Session` using the urllib3.util.Retry class, "
        "as `max_retries=Retry(3)`:"
    )


def test_licence_text_is_never_the_lead() -> None:
    text = (
        "Licensed under the Apache License, Version 2.0; you may not use this file except in\n"
        "compliance with the License.\n\nThe client retries a request three times."
    )
    found = lead(_passage(text, "NOTICE.md", "markdown"), "Is the use of this file licensed?")
    assert found is None or "Licensed" not in found.text


def test_the_citation_is_focused_on_the_quoted_lines() -> None:
    passage = _passage(
        TEST_WITH_A_CALL,
        "tests/test_requests.py",
        "python",
        start=40,
        source="github",
        commit="9943026326188317eaab57a879bcf4534d20dcec",
        html_url="https://github.com/psf/requests",
        repo_path="tests/test_requests.py",
        symbol="test_urllib3_retries",
    )
    answer = extractive_answer("How are retries configured on a Session?", [passage])
    [citation] = answer.citations
    assert (citation.focus_start_line, citation.focus_end_line) == (43, 46)
    assert citation.url is not None and citation.url.endswith("#L43-L46")
    assert answer.text.startswith("In `test_urllib3_retries` [1]:\n```python\n    s = requests")


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("## Automatic Retries", "heading"),
        ("~~~~~~~~~~~~~~~~~", "heading"),
        ("# Copyright (c) 2019 The Authors", "heading"),
        (" * Licensed under the Apache License, Version 2.0", "licence"),
        ('    """requests.sessions', "docstring opener"),
        ("def test_urllib3_retries(httpbin):", "bare definition"),
        ("class Session(SessionRedirectMixin):", "bare definition"),
        ("public class DiffExecutor implements Executor {", "bare definition"),
        ("pub fn new(primary: A, secondary: B) -> Self {", "bare definition"),
        ("func (s *Server) Serve(l net.Listener) error {", "bare definition"),
        ("@pytest.fixture(scope='module')", "bare definition"),
        ("from urllib3.util import Retry", "import"),
        ("#include <log4cxx/logger.h>", "import"),
        (".. versionadded:: 2.1", "markup"),
        ("See :class:`Session <requests.Session>`.", "markup"),
        ('s.mount("http://", HTTPAdapter(max_retries=3))', None),
        ("if (retries > max) {", None),
        ("A rollback takes about four minutes.", None),
        ("timeout = None", None),
    ],
)
def test_boilerplate_lines_are_told_from_lines_that_say_something(
    line: str, kind: str | None
) -> None:
    assert boilerplate_kind(line) == kind


def test_in_code_a_hash_line_is_a_comment_not_a_heading() -> None:
    assert boilerplate_kind("# retry once more before giving up", code=True) is None
    assert boilerplate_kind("# retry once more before giving up") == "heading"
    assert boilerplate_kind("# Copyright (c) 2019 The Authors", code=True) == "licence"


def test_markdown_links_render_as_their_title_and_identifiers_stay_whole() -> None:
    assert as_text("See [the guide](https://x.org/guide) for __init__ and type_.") == (
        "See the guide for __init__ and type_."
    )


SCHEDULER = """impl<S> Scheduler for MergeScheduler<S> {
    fn on_add(&mut self, state: &mut S, id: CorpusId) -> Result<(), Error> {
        self.all.insert(id);
        let testcase = state.corpus().get(id)?.borrow();
        self.mapping.insert(testcase.entries(), id);
        Ok(())
    }

    fn on_remove(&mut self, state: &mut S, id: CorpusId) -> Result<(), Error> {
        self.all.remove(&id);
        Ok(())
    }
}"""


def test_the_name_the_question_gives_outweighs_shared_words() -> None:
    passage = _passage(SCHEDULER, "src/schedulers.rs", "rust", start=29)
    found = lead(passage, "How does the `on_add` method of the scheduler add a corpus entry?")
    assert found is not None
    assert "self.all.insert(id);" in found.text and "remove" not in found.text
    assert found.start_line == 31  # the body under `fn on_add`, its signature left out


def test_a_sentence_under_the_heading_the_question_names_is_quoted() -> None:
    text = "# Tide analysis\n\nWe load the tide table.\n\n## Spring tides\n\nThey peak at new moon."
    found = lead(_passage(text, "tides.md", "markdown"), "When do spring tides peak?")
    assert found is not None and found.text == "They peak at new moon."
    assert (found.start_line, found.end_line) == (7, 7)


def test_a_question_about_what_happens_without_something_quotes_the_negative_sentence() -> None:
    text = (
        "## The local model\n\nWithout any API key RAGSpace embeds text with the bundled "
        "all-MiniLM-L6-v2 model.\n\n## OpenAI\n\nSet `OPENAI_API_KEY` to embed with "
        "`text-embedding-3-small` and to have a chat model write the answers."
    )
    passage = _passage(text, "embeddings.md", "markdown").model_copy(
        update={"focus_line": 7, "focus_end_line": 9}  # the OpenAI section ranked first
    )
    found = lead(passage, "Which model embeds text when no API key is set?")
    assert found is not None and "all-MiniLM-L6-v2" in found.text
