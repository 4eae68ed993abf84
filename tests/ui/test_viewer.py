"""The source viewer's HTML: numbered lines, the cited ones marked, everything escaped."""

import re
from datetime import UTC, datetime

from ragspace.models import Citation, Document, DocumentText, EmbeddingStatus
from ragspace_ui.viewer import numbered_html, viewer_html

NOW = datetime(2026, 11, 23, tzinfo=UTC)


def _document(path: str, language: str, text: str, start: int) -> DocumentText:
    document = Document(
        id=1,
        docset_id=1,
        docset_name="ops",
        source_id=None,
        path=path,
        title=path,
        language=language,
        content_hash="h",
        embedding_status=EmbeddingStatus.DONE,
        error_message=None,
        chunk_count=1,
        created_at=NOW,
        updated_at=NOW,
    )
    lines = text.split("\n")
    return DocumentText(
        document=document,
        start_line=start,
        end_line=start + len(lines) - 1,
        total_lines=200,
        text=text,
    )


def _roles(page: str) -> dict[int, str]:
    found = re.findall(r'<span class="rs-line ([a-z-]*)" id="rs-L(\d+)">', page)
    return {int(number): role for role, number in found}


def test_lines_are_numbered_from_the_first_shown_and_marked_by_role() -> None:
    text = "\n".join(f"line {n}" for n in range(10, 20))
    page = numbered_html(text, "text", 10, passage=(12, 17), focus=(14, 15))
    roles = _roles(page)
    assert sorted(roles) == list(range(10, 20))  # every line, numbered as in the document
    assert [n for n, r in roles.items() if r == "rs-focus"] == [14, 15]
    assert [n for n, r in roles.items() if r == "rs-passage"] == [12, 13, 16, 17]
    assert roles[10] == roles[19] == ""  # context


def test_blank_lines_at_either_end_keep_their_numbers() -> None:
    # a window that starts (or ends) on blank lines: Pygments would drop them by default
    page = numbered_html("\n\nx = 1\n\n", "python", 40, passage=(40, 44), focus=(42, 42))
    roles = _roles(page)
    assert sorted(roles) == [40, 41, 42, 43, 44]
    assert [n for n, r in roles.items() if r == "rs-focus"] == [42]
    assert re.search(r'id="rs-L42"><span class="rs-ln">42</span><span class="n">x', page)


def test_code_is_highlighted_and_a_multiline_string_stays_line_by_line() -> None:
    code = 'def f():\n    """Doc\n    string."""\n    return "<b>"'
    page = numbered_html(code, "python", 1, passage=(1, 4), focus=(1, 1))
    assert len(_roles(page)) == 4  # the docstring's two lines are two numbered lines
    assert '<span class="k">def</span>' in page  # Pygments token classes
    assert "<b>" not in page and "&lt;b&gt;" in page  # document text is escaped


def test_viewer_heading_names_the_file_the_ranges_the_check_and_the_origin() -> None:
    text = "\n".join(f"x = {n}" for n in range(1, 41))
    citation = Citation(
        number=2,
        label="src/<evil>.py (lines 5-30)",
        path="src/<evil>.py",
        start_line=5,
        end_line=30,
        url="https://github.com/acme/ops/blob/abc/src/x.py#L12-L14",
        focus_start_line=12,
        focus_end_line=14,
        verification="paraphrased",
    )
    page = viewer_html(_document("src/<evil>.py", "python", text, 1), citation)
    head = page.split("</div>", 1)[0]
    assert "[2] src/&lt;evil&gt;.py" in head and "<evil>" not in page
    assert "lines 5-30 of 200" in head and "best-matching lines 12-14" in head
    assert "paraphrased" in head
    assert 'href="https://github.com/acme/ops/blob/abc/src/x.py#L12-L14"' in head
    assert "open at the commit on GitHub" in head
    roles = _roles(page)
    assert [n for n, r in roles.items() if r == "rs-focus"] == [12, 13, 14]
