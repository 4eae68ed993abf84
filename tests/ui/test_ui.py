"""The Gradio app builds, serves its page, and shows readable errors."""

import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import gradio as gr
import pytest
from gradio_client import Client

from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder, OpenAIEmbedder
from ragspace.errors import NotFoundError
from ragspace.ingestion.worker import Ingestor
from ragspace.models import Answer, Citation, EmbeddingStatus, Passage
from ragspace.runtime import build_actions
from ragspace.settings import Settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from ragspace_ui.app import build_ui
from ragspace_ui.chat_sources import scope_text, sources_markdown
from ragspace_ui.chat_tab import (
    EXTRACTIVE_NOTICE,
    NO_ANSWER,
    SEARCHING,
    answer_markdown,
    answer_turns,
    open_source,
    with_viewer_updates,
)
from ragspace_ui.docset_forms import NO_DOCSET_SELECTED, upload_hint
from ragspace_ui.docsets_tab import docset_rows
from ragspace_ui.error_messages import UNEXPECTED, user_errors
from ragspace_ui.status_view import STATUS_COLORS, status_chart
from ragspace_ui.viewer import EMPTY_VIEWER
from tests.fakes.chat_server import FakeChat, chat_model_of

DATA = Path(__file__).parent.parent / "data"


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
    notices = [c["props"].get("value", "") for c in config["components"]]
    # no key here: the chat tab says once that answers are extractive and how to change it
    assert sum(n == EXTRACTIVE_NOTICE for n in notices) == 1
    assert "OPENAI_API_KEY" in EXTRACTIVE_NOTICE


def test_an_idle_app_neither_reports_to_gradio_nor_polls_every_millisecond(
    service: Actions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A self-hosted server may not reach the internet, and its owner did not ask it to
    report its starts to huggingface.co or to ask there for Gradio's latest version; nor to
    keep a core busy while nobody uses it (Gradio's queue polls every 1 ms by default)."""
    from ragspace_ui.server import PROGRESS_POLL_SECONDS, QUEUE_POLL_SECONDS, launch_on_localhost

    reports: list[str] = []
    monkeypatch.delenv("GRADIO_ANALYTICS_ENABLED", raising=False)  # Gradio's default: on
    for name in ("version_check", "initiated_analytics", "launched_analytics"):
        monkeypatch.setattr(gr.analytics, name, lambda *_a, _n=name, **_k: reports.append(_n))
    demo = build_ui(service)
    try:
        launch_on_localhost(demo)
        queue = demo._queue
        assert (queue.sleep_when_free, queue.progress_update_sleep_when_free) == (
            QUEUE_POLL_SECONDS,
            PROGRESS_POLL_SECONDS,
        )
    finally:
        demo.close()
    assert reports == []


def test_with_a_chat_model_no_extractive_notice_is_shown(
    settings: Settings, store: Store, embedder: Embedder, fake_chat: FakeChat
) -> None:
    service = build_actions(settings, store, embedder, chat=chat_model_of(fake_chat))
    assert service.mode.llm_answers
    blocks = build_ui(service)
    values = [getattr(block, "value", None) for block in blocks.blocks.values()]
    assert EXTRACTIVE_NOTICE not in values


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


def _cited(text: str, citations: list[Citation], similarity: float | None = 0.61) -> Answer:
    """An answer citing these citations, each with its passage (as answers always have)."""
    passages = [
        Passage(
            number=c.number,
            document_id=1,
            docset_name="ops",
            path=c.path,
            title=c.path,
            start_line=c.start_line,
            end_line=c.end_line,
            content=c.snippet,
            score=0.8,
            similarity=similarity,
        )
        for c in citations
    ]
    return Answer(text=text, citations=citations, passages=passages)


def test_citations_link_to_their_origin_or_to_the_sources_panel() -> None:
    github = "https://github.com/acme/ops/blob/abc123/guide.md#L2-L4"
    text = answer_markdown(
        "Nightly [1]. Restore monthly [2][3].", [_citation(1), _citation(2, github)]
    )
    assert "[\\[1\\]](#ragspace-source-1)" in text  # an upload: the passage in the panel
    assert f"[\\[2\\]]({github})" in text  # GitHub: the lines at the commit
    assert text.endswith("[3].")  # not a citation of this answer: left as it was


def test_sources_panel_anchors_each_cited_passage_and_states_the_scope() -> None:
    answer = _cited("Nightly [1].", [_citation(1)])
    panel = sources_markdown(answer, None)
    assert panel.startswith("Searched **all DocSets**.")
    # the number opens the passage in the viewer (a click handler in the page)
    opens = "[**\\[1\\]**](#ragspace-source-1)"
    assert f'<span id="ragspace-source-1"></span>{opens} guide.md (lines 1-3)' in panel
    assert "Guide > Backups" in panel and "Take a nightly backup." in panel
    # the score search shows for a hit: the cosine similarity, when it was measured
    assert "· score 0.6100" in panel
    assert "score" not in sources_markdown(_cited("[1]", [_citation(1)], similarity=None))
    assert scope_text(["ops", "wiki"]) == "Searched **ops**, **wiki**."
    assert sources_markdown(Answer(text="nothing"), ["ops"]).endswith("_No sources._")


def test_sources_panel_says_what_the_quote_check_found() -> None:
    checked = [
        _citation(1).model_copy(update={"verification": "verified"}),
        _citation(2).model_copy(update={"verification": "paraphrased"}),
        _citation(3).model_copy(update={"verification": "unsupported"}),
    ]
    panel = sources_markdown(_cited("[1] [2] [3]", checked), None)
    blocks = panel.split("<span id=")[1:]
    assert "✓ quote found in these lines" in blocks[0]
    assert "≈ a close paraphrase" in blocks[1] and "✓" not in blocks[1]
    assert "⚠ the quote was not found" in blocks[2] and "✓" not in blocks[2]
    assert "quote" not in sources_markdown(_cited("[1]", [_citation(1)]), None)


def test_status_chart_counts_documents_per_docset_and_status(
    service: Actions, store: Store
) -> None:
    assert status_chart([]).empty
    for name in ("alpha", "beta"):
        service.docsets.create(name)
    service.sources.add_files(
        "alpha", [UploadedFile("a.md", b"# A\n\nalpha"), UploadedFile("b.md", b"# B\n\nbeta")]
    )
    service.sources.add_files("beta", [UploadedFile("c.md", b"# C\n\ngamma")])
    failed = next(d for d in service.documents.all("alpha") if d.path == "b.md")
    store.documents.mark_error(failed.id, "The embedding API was down.")
    chart = status_chart(service.documents.all())
    rows = {(r.DocSet, r.Status): r.Documents for r in chart.itertuples()}
    assert rows == {
        ("alpha", "pending"): 1,
        ("alpha", "processing"): 0,
        ("alpha", "done"): 0,
        ("alpha", "error"): 1,
        ("beta", "pending"): 1,
        ("beta", "processing"): 0,
        ("beta", "done"): 0,
        ("beta", "error"): 0,
    }
    assert list(chart.columns) == ["DocSet", "Status", "Documents", "Share"]
    # each DocSet's bar is its own 100 %: a small DocSet beside a large one is not a sliver
    shares = {(r.DocSet, r.Status): r.Share for r in chart.itertuples()}
    assert shares[("alpha", "pending")] == shares[("alpha", "error")] == 50.0
    assert shares[("beta", "pending")] == 100.0
    assert set(STATUS_COLORS) == {s.value for s in EmbeddingStatus}


def test_opening_the_status_tab_refreshes_its_counts(service: Actions) -> None:
    """The tab shows current counts as soon as it is opened, not at the timer's next tick
    (it showed "No documents yet" for up to two seconds beside documents that exist)."""
    demo = build_ui(service)
    config = demo.get_config_file()
    [tab] = [c["id"] for c in config["components"] if c["props"].get("label") == "Embedding status"]
    timer_outputs = [
        d["outputs"]
        for d in config["dependencies"]
        if any(trigger == "tick" for _id, trigger in d["targets"])
    ]
    on_open = [
        d["outputs"]
        for d in config["dependencies"]
        if [tab, "select"] in [list(target) for target in d["targets"]]
    ]
    assert timer_outputs and timer_outputs[0] in on_open  # the same refresh, on opening


def test_the_status_timer_ticks_only_while_its_tab_is_open(service: Actions) -> None:
    """A tick re-reads every document and redraws the table and chart: it is off until the
    status tab is opened and turned off again when another tab is."""
    demo = build_ui(service)
    config = demo.get_config_file()
    [timer] = [c for c in config["components"] if c["type"] == "timer"]
    assert timer["props"]["active"] is False
    tabs = {c["props"]["label"]: c["id"] for c in config["components"] if c["type"] == "tabitem"}
    assert set(tabs) == {"DocSets", "Embedding status", "Chat", "Evaluate"}
    switching = {
        label: [d for d in config["dependencies"] if [tab, "select"] in map(list, d["targets"])]
        for label, tab in tabs.items()
    }
    for label, dependencies in switching.items():
        [toggle] = [d for d in dependencies if d["outputs"] == [timer["id"]]]
        assert demo.fns[toggle["id"]].fn().active is (label == "Embedding status"), label


def test_docsets_table_shows_counts_and_last_sync(service: Actions) -> None:
    service.docsets.create("alpha", "first")
    [row] = docset_rows(service)
    assert row[:4] == ["alpha", "first", 0, 0] and row[-1] == "never"
    service.sources.add_files("alpha", [UploadedFile("a.md", b"# A\n\nalpha")])
    [row] = docset_rows(service)
    assert row[2] == 1 and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", row[-1])


def _handbook_with_guide(service: Actions, ingestor: Ingestor) -> Path:
    """The DocSet "handbook" holding the deployment guide, embedded; the guide's path."""
    service.docsets.create("handbook")
    guide = DATA / "deployment-guide.md"
    service.sources.add_files("handbook", [UploadedFile(guide.name, guide.read_bytes())])
    ingestor.process_all()
    return guide


def test_a_streamed_turn_shows_the_question_at_once_then_the_cited_answer(
    service: Actions, ingestor: Ingestor
) -> None:
    guide = _handbook_with_guide(service, ingestor)
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    turns = list(answer_turns(service, "pg_dump backups", history, [], "hybrid", True))
    chat, panel, openable = turns[0]
    assert chat[-2:] == [
        {"role": "user", "content": "pg_dump backups"},
        {"role": "assistant", "content": SEARCHING},
    ]
    assert chat[:2] == history and panel == SEARCHING and openable == []
    chat, panel, openable = turns[-1]
    assert "[\\[1\\]](#ragspace-source-1)" in chat[-1]["content"]
    assert '<span id="ragspace-source-1"></span>' in panel and "pg_dump" in panel
    first = openable[0]
    assert first["docset"] == "handbook" and first["citation"]["path"] == guide.name
    viewer = open_source(service, first["citation"]["number"], openable)
    assert 'class="rs-line rs-focus"' in viewer and "pg_dump" in viewer
    # a session the server forgot (beyond RAGSPACE_SESSION_CAPACITY) says so
    assert "Ask the question again" in open_source(service, 1, [])


def test_only_a_new_question_empties_the_viewer_and_the_picker(
    service: Actions, ingestor: Ingestor
) -> None:
    # a citation opened from a link while the answer still streams must stay open: later
    # steps leave the viewer alone and send the picker (whose emptying used to empty the
    # viewer) only a changed list
    _handbook_with_guide(service, ingestor)
    turns = list(answer_turns(service, "pg_dump backups", [], [], "hybrid", True))
    turns.append(turns[-1])  # a last step that cites the same passages
    steps = list(with_viewer_updates(iter(turns)))
    assert len(steps) == len(turns) >= 3
    no_change = gr.update()
    assert steps[0][-1] == EMPTY_VIEWER
    assert [step[-1] for step in steps[1:]] == [no_change] * (len(steps) - 1)
    assert steps[0][-2] == gr.update(choices=[], value=None)
    listed = [step[-2] for step in steps if step[-2] != no_change]
    assert len(listed) == 2 and listed[-1]["choices"] and listed[-1]["value"] is None
    assert steps[-1][-2] == no_change


def test_a_failure_while_answering_leaves_no_pending_bubble(
    settings: Settings, store: Store
) -> None:
    unreachable = OpenAIEmbedder(
        api_key="sk-x", model="m", dimensions=8, base_url="http://127.0.0.1:9/v1", max_retries=0
    )
    service = build_actions(settings, store, unreachable)
    service.docsets.create("docs")
    turns = user_errors(answer_turns)(service, "anything", [], ["docs"], "hybrid", True)
    assert next(turns)[0][-1]["content"] == SEARCHING
    chat, panel, openable = next(turns)
    assert chat == [{"role": "user", "content": "anything"}] and panel == NO_ANSWER
    assert openable == []
    with pytest.raises(gr.Error, match="could not be reached"):
        next(turns)


def test_a_reselected_docset_keeps_the_upload_report() -> None:
    """The DocSet list refreshes after every change and may select the same DocSet again,
    or none when it was deleted meanwhile: the report or error of an upload stays (under load
    both were replaced before they could be read)."""
    report = "Added folder **proj** to **proj**: 4 new or changed file(s)"
    assert upload_hint(True, report) == gr.update()  # left as it is
    assert upload_hint(False, "DocSet 'proj' does not exist.") == gr.update()
    assert upload_hint(True, NO_DOCSET_SELECTED) == ""  # the hint goes once one is chosen
    assert upload_hint(True, "") == ""
    assert upload_hint(False, "") == NO_DOCSET_SELECTED
