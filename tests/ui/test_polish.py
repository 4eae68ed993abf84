"""Fast checks of the web app's polish: inline errors, escaping, progress, uploads, network."""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import gradio as gr
import httpx
import pytest

from ragspace.actions import Actions, AppMode
from ragspace.embedding.embedders import Embedder
from ragspace.errors import ConflictError, SourceError
from ragspace.eval.datasets import read_question_set
from ragspace.ingestion.worker import Ingestor
from ragspace.models import Document, EmbeddingStatus, SearchQuery, SourceKind
from ragspace.runtime import build_actions
from ragspace.sample import SAMPLE_DOCSET, sample_files, sample_questions_path
from ragspace.settings import Settings, load_settings
from ragspace.sources.files import UploadedFile
from ragspace.sources.network_errors import network_problem
from ragspace.store import Store
from ragspace_ui.app import checked_update, mode_text, pick_docset, selection_update
from ragspace_ui.docset_forms import size_text, upload_report
from ragspace_ui.docsets_tab import add_sample
from ragspace_ui.error_messages import ERROR_CLASS, UNEXPECTED, inline_errors
from ragspace_ui.escape import md, md_code
from ragspace_ui.server import free_local_port
from ragspace_ui.status_view import overall_progress, progress_text, status_chart

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def test_markdown_escaping_keeps_user_text_literal() -> None:
    assert md("__init__.py") == "\\_\\_init\\_\\_.py"
    assert md("<script>x</script> [a](b) *b* a|b") == (
        "\\<script>x\\</script> \\[a\\](b) \\*b\\* a\\|b"
    )
    assert md("one\n# two") == "one \\# two"  # never a heading on a line of its own
    assert md_code("a`b") == "``a`b``" and md_code("plain.md") == "`plain.md`"


def test_inline_errors_keep_every_output_and_name_the_problem() -> None:
    @inline_errors(outputs=3, message_at=1)
    def conflict(name: str) -> tuple[str, str, str]:
        raise ConflictError(f"A DocSet named {name!r} already exists.")

    @inline_errors(outputs=1)
    def broken() -> str:
        raise KeyError("internal detail")

    first, message, third = conflict("__x__")
    assert first == gr.update() and third == gr.update()  # the inputs keep their values
    assert ERROR_CLASS in message and "'\\_\\_x\\_\\_' already exists" in message
    assert UNEXPECTED in broken() and "internal detail" not in broken()

    @inline_errors(outputs=2)
    def fine() -> tuple[str, int]:
        return "ok", 1

    assert fine() == ("ok", 1)


def test_a_failing_stream_keeps_what_it_showed_and_adds_the_message() -> None:
    @inline_errors(outputs=2, message_at=1)
    def stream() -> Iterator[tuple[str, str]]:
        yield "partial", "panel"
        raise ConflictError("gone away")

    shown = list(stream())
    assert shown[0] == ("partial", "panel")
    kept, message = shown[1]
    assert kept == gr.update() and "gone away" in message and ERROR_CLASS in message


def _document(number: int, status: EmbeddingStatus, **fields: object) -> Document:
    values: dict[str, object] = {
        "id": number,
        "docset_id": 1,
        "docset_name": "docs",
        "source_id": None,
        "path": f"d{number}.md",
        "title": f"d{number}.md",
        "language": "markdown",
        "content_hash": str(number),
        "embedding_status": status,
        "error_message": None,
        "chunk_count": 0,
        "created_at": NOW,
        "updated_at": NOW,
    }
    values.update(fields)
    return Document.model_validate(values)


def test_status_chart_always_has_every_status_so_the_colours_stay_complete() -> None:
    documents = [_document(1, EmbeddingStatus.DONE), _document(2, EmbeddingStatus.DONE)]
    chart = status_chart(documents)
    rows = {(r.DocSet, r.Status): r.Documents for r in chart.itertuples()}
    assert rows == {
        ("docs", "pending"): 0,
        ("docs", "processing"): 0,
        ("docs", "done"): 2,
        ("docs", "error"): 0,
    }
    assert status_chart([]).empty


def test_overall_progress_counts_documents_and_chunks_with_rate_and_eta() -> None:
    started = NOW - timedelta(seconds=20)
    documents = [
        _document(
            1,
            EmbeddingStatus.DONE,
            chunk_count=40,
            text_bytes=40_000,
            started_at=started,
            finished_at=NOW - timedelta(seconds=10),
        ),
        _document(
            2,
            EmbeddingStatus.PROCESSING,
            chunks_embedded=20,
            chunks_total=60,
            text_bytes=60_000,
            started_at=NOW - timedelta(seconds=10),
        ),
        _document(3, EmbeddingStatus.PENDING, text_bytes=40_000),
        _document(4, EmbeddingStatus.ERROR, error_message="broken"),
    ]
    text = overall_progress(documents, NOW)
    # 100 chunks of 100,000 bytes chunked: document 3's 40,000 bytes make about 40 more; two
    # documents chunked are too few to tell when it ends
    assert "**Documents:** 1 of 4 done (1 failed)" in text
    assert "**Chunks:** 60 of about 140 so far embedded" in text
    assert "**Rate:** 3.0 chunks/s" in text and "**ETA:** estimating…" in text
    finished = overall_progress([_document(1, EmbeddingStatus.DONE, chunk_count=5)], NOW)
    assert finished == "**Documents:** 1 of 1 done · **Chunks:** 5 of 5 embedded"
    waiting = overall_progress([_document(1, EmbeddingStatus.PENDING, text_bytes=9)], NOW)
    assert "measuring" in waiting and "ETA" not in waiting


def test_the_eta_is_a_range_from_the_text_sizes_known_at_the_start() -> None:
    """Five documents of 10,000 bytes chunked into 6-14 chunks (1 per 1,000 bytes in all,
    0.6-1.4 from the 10th to the 90th percentile): 50,000 bytes more make 80-120 in all; 50
    embedded in 25 s."""
    done = [
        _document(
            n,
            EmbeddingStatus.DONE,
            chunk_count=chunks,
            text_bytes=10_000,
            started_at=NOW - timedelta(seconds=25),
            finished_at=NOW - timedelta(seconds=1),
        )
        for n, chunks in enumerate((6, 8, 10, 12, 14), start=1)
    ]
    text = overall_progress([*done, _document(6, EmbeddingStatus.PENDING, text_bytes=50_000)], NOW)
    assert "**Chunks:** 50 of about 80-120 embedded" in text
    assert "**Rate:** 2.0 chunks/s" in text and "**ETA:** 15-35 s" in text


def test_uploads_report_empty_and_binary_files_as_skipped(service: Actions) -> None:
    service.docsets.create("docs")
    documents = service.sources.add_files(
        "docs",
        [
            UploadedFile("__init__.py", b"VERSION = 1\n"),
            UploadedFile("empty.md", b""),
            UploadedFile("logo.bin", b"\x89PNG\x00\x01\x02"),
        ],
    )
    report = upload_report("docs", documents)
    assert "Added 1 file(s) to **docs**" in report
    assert "- `__init__.py`" in report
    assert "Skipped 2 file(s):" in report
    assert "- `empty.md`: empty.md is not indexed: empty file." in report
    assert "`logo.bin`:" in report and "Added 3" not in report
    assert upload_report("docs", documents[1:]).startswith("Nothing was added to **docs**.")
    assert size_text(20 * 1024 * 1024) == "20 MB" and size_text(1536) == "1.5 KB"


def test_the_sample_docset_is_built_from_shipped_files(
    service: Actions, ingestor: Ingestor
) -> None:
    names = [f.name for f in sample_files()]
    assert names == ["embeddings.md", "getting-started.md", "retry_policy.py"]
    name, documents = add_sample(service)
    assert name == SAMPLE_DOCSET and all(not d.error_message for d in documents)
    add_sample(service)  # a second click adds nothing twice
    assert len(service.documents.all(SAMPLE_DOCSET)) == 3
    ingestor.process_all()
    questions = read_question_set(sample_questions_path())
    assert len(questions.queries) == 5
    hits = service.search.hits(
        SearchQuery(
            question="Which model embeds text when no API key is set?",
            docsets=(SAMPLE_DOCSET,),
            floor=False,
        )
    )
    assert hits[0].path == "embeddings.md"


def test_mode_indicator_and_remembered_docset() -> None:
    local = AppMode("local/all-MiniLM-L6-v2-int8", True, False, 20 * 1024 * 1024)
    text = mode_text(local)
    assert "local model (all-MiniLM-L6-v2-int8" in text and "extractive" in text
    remote = AppMode("openai/text-embedding-3-small@1536", False, True, 1)
    assert "OpenAI (openai/text-embedding-3-small@1536)" in mode_text(remote)
    assert "written by the LLM" in mode_text(remote)
    local_chat = AppMode(
        "local/all-MiniLM-L6-v2-int8", True, True, 1, chat_model="smollm2 at 127.0.0.1:8089"
    )
    assert "written by the LLM (`smollm2 at 127.0.0.1:8089`)" in mode_text(local_chat)
    assert pick_docset(["a", "b"], None, "b") == "b"
    assert pick_docset(["a", "b"], "a", "b") == "a"
    assert pick_docset(["a", "b"], None, "gone") is None
    assert pick_docset(["only"], None, None) == "only"


def test_service_mode_reports_the_configured_parts(service: Actions) -> None:
    mode = service.mode
    assert mode.local_embeddings and not mode.llm_answers
    assert mode.max_upload_bytes == load_settings(env_file=None).limits.max_upload_bytes


@pytest.fixture
def closed_port() -> int:
    """A local port nothing listens on."""
    return free_local_port()


def _failure(url: str, **client: object) -> httpx.HTTPError:
    with pytest.raises(httpx.HTTPError) as caught, httpx.Client(timeout=5, **client) as http:
        http.get(url)  # type: ignore[arg-type]
    return caught.value


def test_network_failures_are_explained_in_words(closed_port: int) -> None:
    refused = network_problem(_failure(f"http://127.0.0.1:{closed_port}/"), "127.0.0.1")
    assert "refused the connection" in refused and "firewall" in refused
    dns = network_problem(_failure("http://no-such-host.invalid/"), "no-such-host.invalid")
    assert "could not be looked up" in dns and "offline" in dns
    proxied = _failure("http://example.com/", proxy=f"http://127.0.0.1:{closed_port}")
    assert "proxy" in network_problem(proxied, "example.com")
    for text in (refused, dns):
        assert "Error" not in text


def test_an_unreachable_github_is_explained_not_named_by_exception(
    settings: Settings, store: Store, embedder: Embedder, closed_port: int
) -> None:
    offline = settings.replace(github_api_url=f"http://127.0.0.1:{closed_port}")
    service = build_actions(offline, store, embedder)
    with pytest.raises(SourceError) as caught:
        service.sources.preview(SourceKind.GITHUB_REPO, "acme/widgets")
    message = str(caught.value)
    assert message.startswith("GitHub could not be reached for acme/widgets:")
    assert "refused the connection" in message and "ConnectionError" not in message


def test_a_document_being_embedded_shows_its_running_time() -> None:
    started = NOW - timedelta(seconds=18)
    stalled = _document(1, EmbeddingStatus.PROCESSING, chunks_total=61, started_at=started)
    assert progress_text(stalled, NOW) == "0/61 (0%) · 18 s"
    chunking = _document(2, EmbeddingStatus.PROCESSING, started_at=started)
    assert progress_text(chunking, NOW) == "chunking · 18 s"
    done = _document(3, EmbeddingStatus.DONE, chunks_total=4, chunks_embedded=4)
    assert progress_text(done, NOW) == "4/4 (100%)"
    assert progress_text(_document(4, EmbeddingStatus.PENDING), NOW) == "queued"


def test_an_extractive_answer_lists_its_sources_with_escaped_names(
    service: Actions, ingestor: Ingestor
) -> None:
    service.docsets.create("__pkg__")
    service.sources.add_files(
        "__pkg__", [UploadedFile("__init__.py", b'"""The package."""\n\nRETRIES = 3\n')]
    )
    ingestor.process_all()
    answer = service.answers.answer(SearchQuery(question="How many retries?", docsets=("__pkg__",)))
    sources = answer.text.split("**Sources**")[1]
    assert "\\_\\_init\\_\\_.py" in sources and "DocSet *\\_\\_pkg\\_\\_*" in sources


def test_a_refresh_sends_a_value_only_when_the_chosen_docset_is_gone() -> None:
    """The lists refresh after every change and tab switch with the values read when the
    refresh was asked for: re-sending them could undo a choice made since."""
    assert selection_update(["a", "b"], "a", None) == gr.update(choices=["a", "b"])
    assert selection_update(["b"], "a", "b") == gr.update(choices=["b"], value="b")
    # none chosen and none to choose: no value either (a None sent to a dropdown that had
    # none, then a DocSet, set off its change event in a loop under load)
    assert selection_update([], None, None) == gr.update(choices=[])
    assert selection_update(["only"], None, None) == gr.update(choices=["only"], value="only")
    assert checked_update(["a", "b"], ["a"]) == gr.update(choices=["a", "b"])
    assert checked_update(["a", "b"], []) == gr.update(choices=["a", "b"])
    assert checked_update(["b"], ["a", "b"]) == gr.update(choices=["b"], value=["b"])


def test_secrets_inside_uploaded_files_are_listed_as_skips(service: Actions) -> None:
    token = "ghp_" + "R7x2ZkP9qLm4Tn8Vb1Yc6Wd3Hf5Gj0Ks2Ae9"  # split: not a secret itself
    service.docsets.create("docs")
    text = f"# Deploy\n\nExport the token\nGITHUB_TOKEN={token}\nand run it.\n"
    documents = service.sources.add_files(
        "docs", [UploadedFile("deploy.md", text.encode()), UploadedFile("ok.md", b"# Fine\n")]
    )
    by_path = {d.path: d for d in documents}
    [skip] = by_path["deploy.md"].redactions
    assert skip.path == "deploy.md#L4"
    assert skip.reason == "line 4 redacted: looks like a secret (GitHub Token)"
    assert by_path["ok.md"].redactions == []
    assert token not in service.documents.read("docs", "deploy.md").text
    report = upload_report("docs", documents)
    assert "Added 2 file(s) to **docs**" in report
    assert "Redacted 1 line(s) that look like secrets:" in report
    assert "- `deploy.md#L4`: line 4 redacted: looks like a secret (GitHub Token)" in report
