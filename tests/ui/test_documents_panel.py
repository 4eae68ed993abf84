"""The DocSets tab's documents panel: what it lists, how it filters, what the viewer shows."""

import re
from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.ingestion.worker import Ingestor
from ragspace.models import Citation, RetrievalMode, SearchQuery
from ragspace.sources.files import UploadedFile, error_document
from ragspace.store import Store
from ragspace_ui import documents_panel
from ragspace_ui.amounts import size_text
from ragspace_ui.documents_panel import document_rows, listing
from ragspace_ui.viewer import CONTEXT_LINES, open_citation, open_document

DATA = Path(__file__).parent.parent / "data"


def _handbook(service: Actions, ingestor: Ingestor, store: Store) -> None:
    docset = service.docsets.create("handbook")
    service.sources.add_files(
        "handbook",
        [
            UploadedFile("deployment-guide.md", (DATA / "deployment-guide.md").read_bytes()),
            UploadedFile("textwrap.py", (DATA / "textwrap.py").read_bytes()),
        ],
    )
    # a document in error (an upload skips a binary file; a source may keep one that failed)
    failed = error_document("logo.png", b"\x89PNG", "logo.png looks binary, not text.")
    store.documents.upsert(docset.id, None, [failed])
    ingestor.process_all()


def test_rows_give_path_source_status_chunks_size_and_reason(
    service: Actions, ingestor: Ingestor, store: Store
) -> None:
    _handbook(service, ingestor, store)
    rows = {row.path: row for row in document_rows(service, "handbook")}
    assert list(rows) == ["deployment-guide.md", "logo.png", "textwrap.py"]  # by path
    code = rows["textwrap.py"]
    assert code.source.startswith("upload of 20")  # the upload's date and time
    assert (code.status, code.reason) == ("done", "")
    assert code.chunks > 1
    size = (DATA / "textwrap.py").stat().st_size
    assert code.size == f"{size / 1024:.1f} KB"
    image = rows["logo.png"]
    assert image.status == "error"
    assert "binary" in image.reason


def test_the_filter_matches_path_status_or_reason_in_any_case(
    service: Actions, ingestor: Ingestor, store: Store
) -> None:
    _handbook(service, ingestor, store)
    table, choices, summary = listing(service, "handbook", "ERROR")
    assert [row[0] for row in table] == ["logo.png"]
    assert choices["choices"] == ["logo.png"]
    assert summary == "1 of 3 document(s) of **handbook**."
    table, _, summary = listing(service, "handbook", ".py")
    assert [row[0] for row in table] == ["textwrap.py"]
    table, _, summary = listing(service, "handbook", "nothing like this")
    assert table == []
    assert summary == "0 of 3 document(s) of **handbook** match the filter."
    assert listing(service, None, "")[2].startswith("_Select a DocSet")


def test_a_large_docset_lists_its_first_rows_and_says_so(
    service: Actions, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.docsets.create("many")
    service.sources.add_files(
        "many", [UploadedFile(f"note{n:02}.md", b"# Note\n") for n in range(12)]
    )
    monkeypatch.setattr(documents_panel, "MAX_LISTED", 5)
    table, choices, summary = listing(service, "many", "note")
    assert [row[0] for row in table] == [f"note{n:02}.md" for n in range(5)]
    assert choices["choices"] == [row[0] for row in table]
    assert summary == (
        "12 of 12 document(s) of **many**; the first 5 are listed, narrow them with the filter."
    )


def test_a_removed_document_leaves_search_at_once(
    service: Actions, ingestor: Ingestor, store: Store
) -> None:
    _handbook(service, ingestor, store)
    question = "How does dedent remove common leading whitespace?"
    before = service.search.hits(
        SearchQuery(
            question=question,
            docsets=("handbook",),
            limit=5,
            mode=RetrievalMode.HYBRID,
            floor=False,
        )
    )
    assert any(hit.path == "textwrap.py" for hit in before)
    service.documents.remove("handbook", ["textwrap.py"])
    after = service.search.hits(
        SearchQuery(
            question=question,
            docsets=("handbook",),
            limit=5,
            mode=RetrievalMode.HYBRID,
            floor=False,
        )
    )
    assert all(hit.path != "textwrap.py" for hit in after)
    assert [row.path for row in document_rows(service, "handbook")] == [
        "deployment-guide.md",
        "logo.png",
    ]


def test_a_document_opens_numbered_from_its_first_line(
    service: Actions, ingestor: Ingestor, store: Store
) -> None:
    _handbook(service, ingestor, store)
    shown = open_document(service, "handbook", "textwrap.py")
    lines = (DATA / "textwrap.py").read_text().split("\n")
    assert f"lines 1-{len(lines)} of {len(lines)}" in shown
    assert 'id="rs-L1"' in shown
    assert f'id="rs-L{len(lines)}"' in shown
    assert "rs-focus" not in shown  # nothing is cited: no line is marked


def test_sizes_read_the_way_people_read_them() -> None:
    assert [size_text(n) for n in (0, 999, 12_345, 4_100_000, 20 * 2**20)] == [
        "0 bytes",
        "999 bytes",
        "12.1 KB",
        "3.9 MB",
        "20 MB",
    ]


def test_a_long_passage_opens_at_its_best_lines_not_at_its_top(
    service: Actions, ingestor: Ingestor, store: Store
) -> None:
    _handbook(service, ingestor, store)
    citation = Citation(
        number=1,
        label="textwrap.py (lines 1-300)",
        path="textwrap.py",
        start_line=1,
        end_line=300,
        focus_start_line=250,
        focus_end_line=252,
    )
    shown = open_citation(service, citation, "handbook")
    numbers = [int(n) for n in re.findall(r'id="rs-L(\d+)"', shown)]
    assert numbers[0] == 250 - CONTEXT_LINES  # the best lines a screen's top away
    assert numbers[-1] == 300 + CONTEXT_LINES  # the passage's end, then context
    assert "lines 1-300" in shown and "best-matching lines 250-252" in shown
