"""The Gradio app builds, serves its page, and shows readable errors."""

import re
import urllib.request
from collections.abc import Iterator

import gradio as gr
import pytest
from gradio_client import Client

from ragspace.errors import NotFoundError
from ragspace.models import Answer, Citation, EmbeddingStatus
from ragspace.services import RagspaceService
from ragspace.sources.files import UploadedFile
from ui.chat_tab import answer_markdown, scope_text, sources_markdown
from ui.docsets_tab import docset_rows
from ui.errors import UNEXPECTED, user_errors
from ui.status_tab import STATUS_COLORS, status_chart


def test_service_errors_become_readable_messages() -> None:
    @user_errors
    def missing() -> None:
        raise NotFoundError("DocSet 'ghost' does not exist.")

    @user_errors
    def broken() -> None:
        raise KeyError("internal detail")

    with pytest.raises(gr.Error, match="ghost"):
        missing()
    with pytest.raises(gr.Error) as caught:
        broken()
    assert caught.value.message == UNEXPECTED


def test_generator_handlers_are_translated_too() -> None:
    @user_errors
    def stream() -> Iterator[str]:
        yield "partial"
        raise NotFoundError("gone")

    results = stream()
    assert next(results) == "partial"
    with pytest.raises(gr.Error, match="gone"):
        next(results)


def test_app_serves_three_tabs(served: str) -> None:
    with urllib.request.urlopen(served, timeout=10) as response:
        page = response.read().decode()
    assert response.status == 200
    assert "RAGSpace" in page
    config = Client(served, verbose=False).config
    labels = {c.get("props", {}).get("label") for c in config["components"]}
    assert {"DocSets", "Embedding status", "Chat"} <= labels


def _citation(number: int, url: str | None = None) -> Citation:
    return Citation(
        number=number,
        label=f"guide.md (lines {number}-{number + 2})",
        path="guide.md",
        start_line=number,
        end_line=number + 2,
        url=url,
        context="Guide > Backups",
        snippet="Take a nightly backup.",
    )


def test_citations_link_to_their_origin_or_to_the_sources_panel() -> None:
    github = "https://github.com/acme/ops/blob/abc123/guide.md#L2-L4"
    text = answer_markdown(
        "Nightly [1]. Restore monthly [2][3].", [_citation(1), _citation(2, github)]
    )
    assert "[\\[1\\]](#ragspace-source-1)" in text  # an upload: the passage in the panel
    assert f"[\\[2\\]]({github})" in text  # GitHub: the lines at the commit
    assert text.endswith("[3].")  # not a citation of this answer: left as it was


def test_sources_panel_anchors_each_cited_passage_and_states_the_scope() -> None:
    answer = Answer(text="Nightly [1].", citations=[_citation(1)])
    panel = sources_markdown(answer, None)
    assert panel.startswith("Searched **all DocSets**.")
    assert '<span id="ragspace-source-1"></span>**[1]** guide.md (lines 1-3)' in panel
    assert "Guide > Backups" in panel and "Take a nightly backup." in panel
    assert scope_text(["ops", "wiki"]) == "Searched **ops**, **wiki**."
    assert sources_markdown(Answer(text="nothing"), ["ops"]).endswith("_No sources._")


def test_status_chart_counts_documents_per_docset_and_status(service: RagspaceService) -> None:
    assert status_chart([]).empty
    for name in ("alpha", "beta"):
        service.create_docset(name)
    service.add_files("alpha", [UploadedFile("a.md", b"# A\n\nalpha"), UploadedFile("b.md", b"")])
    service.add_files("beta", [UploadedFile("c.md", b"# C\n\ngamma")])
    chart = status_chart(service.list_documents())
    rows = {(r.DocSet, r.Status): r.Documents for r in chart.itertuples()}
    assert rows == {("alpha", "pending"): 1, ("alpha", "error"): 1, ("beta", "pending"): 1}
    assert list(chart.columns) == ["DocSet", "Status", "Documents"]
    assert set(STATUS_COLORS) == {s.value for s in EmbeddingStatus}


def test_docsets_table_shows_counts_and_last_sync(service: RagspaceService) -> None:
    service.create_docset("alpha", "first")
    [row] = docset_rows(service)
    assert row[:4] == ["alpha", "first", 0, 0] and row[-1] == "never"
    service.add_files("alpha", [UploadedFile("a.md", b"# A\n\nalpha")])
    [row] = docset_rows(service)
    assert row[2] == 1 and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", row[-1])
