"""Agent-shaped search results: whole definitions and sections around the hits, grouped per
file within max_tokens, each with a one-line reason, on the real store and model."""

import json
from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.actions.hit_reasons import why_hit
from ragspace.errors import ValidationError
from ragspace.ingestion.worker import Ingestor
from ragspace.models import Hit, SearchQuery
from ragspace.sources.files import UploadedFile
from ragspace_mcp import read_tools as mcp_read_tools

DATA = Path(__file__).parent.parent / "data"
FILLER = (
    "Each paragraph of this section explains another detail of the installation, so that "
    "the section is longer than one chunk and the chunker has to cut it in several pieces.\n\n"
)
GUIDE = (
    "# Beacon guide\n\nIntro to the guide.\n\n## Install\n\n"
    + FILLER * 8
    + "The installer verifies the checksum of the downloaded archive with sha256sum.\n\n"
    + FILLER * 4
    + "### Linux\n\nOn Linux the package manager pulls the systemd unit too.\n\n"
    + "## Usage\n\nRun beacon start to launch the scheduler daemon.\n"
)


@pytest.fixture
def library(service: Actions, ingestor: Ingestor) -> Actions:
    """DocSet `library`: a real Python module (textwrap) and a long markdown guide."""
    service.docsets.create("library")
    files = [
        UploadedFile("textwrap.py", (DATA / "textwrap.py").read_bytes()),
        UploadedFile("guide.md", GUIDE.encode()),
    ]
    service.sources.add_files("library", files)
    ingestor.process_all()
    return service


def lines_of(text: str, first: int, last: int) -> str:
    return "\n".join(text.splitlines()[first - 1 : last])


def test_a_hit_inside_a_long_function_grows_to_the_whole_definition(library: Actions) -> None:
    query = "How does _wrap_chunks handle the width of each line?"
    hits = library.search.hits(SearchQuery(question=query, docsets=("library",), limit=5))
    inside = [h for h in hits if h.path == "textwrap.py" and 238 <= h.start_line <= 339]
    assert inside and inside[0].end_line < 339  # the function is cut in chunks
    [unit] = [e for e in library.search.expand(hits, "definition") if inside[0] in e.hits]
    assert unit.unit == "definition" and unit.label.endswith("_wrap_chunks")
    assert unit.start_line == 238 and 338 <= unit.end_line <= 340
    source = (DATA / "textwrap.py").read_text()
    assert unit.text == lines_of(source, unit.start_line, unit.end_line)
    assert unit.text.lstrip().startswith("def _wrap_chunks(self, chunks):")


def test_a_hit_inside_a_long_section_grows_to_the_section_and_its_subsections(
    library: Actions,
) -> None:
    hits = library.search.hits(
        SearchQuery(
            question="verify the checksum of the archive with sha256sum",
            docsets=("library",),
            limit=5,
        )
    )
    best = next(h for h in hits if h.path == "guide.md")
    assert "sha256sum" in best.content
    [unit] = [e for e in library.search.expand(hits, "section") if e.hit.path == "guide.md"]
    assert unit.unit == "section" and unit.label == "Beacon guide > Install"
    assert unit.text.startswith("## Install") and "### Linux" in unit.text
    assert "## Usage" not in unit.text and "Intro to the guide" not in unit.text


def test_the_tool_groups_units_per_file_within_max_tokens(library: Actions) -> None:
    query = "_wrap_chunks width and the installer checksum"
    whole = json.loads(mcp_read_tools.search(library, query, ["library"], 8, expand="definition"))
    files = whole["files"]
    assert [f["path"] for f in files] == sorted(
        {f["path"] for f in files}, key=[f["path"] for f in files].index
    )
    assert len({f["path"] for f in files}) == len(files)  # one group per file
    units = [u for f in files for u in f["units"]]
    numbers = [n for u in units for n in u["hits"]]
    assert sorted(numbers) == list(range(1, len(numbers) + 1))  # every hit in exactly one unit
    assert all(u["why"] and u["text"] for u in units)
    code = next(f for f in files if f["path"] == "textwrap.py")
    assert any(u["unit"] == "definition" for u in code["units"])
    assert whole["truncated"] is False and whole["dropped_units"] == 0
    # a budget keeps whole units from the best, never cuts one
    first = units[0]
    small = json.loads(
        mcp_read_tools.search(
            library, query, ["library"], 8, max_tokens=whole["tokens"] - 1, expand="definition"
        )
    )
    kept = [u for f in small["files"] for u in f["units"]]
    assert small["truncated"] is True and small["dropped_units"] >= 1
    assert kept[0]["text"] == first["text"] and small["tokens"] < whole["tokens"]
    with pytest.raises(ValidationError, match="expand is 'section' or 'definition'"):
        mcp_read_tools.search(library, query, expand="paragraphs")


def test_each_hit_says_why_it_was_returned(library: Actions) -> None:
    found = json.loads(
        mcp_read_tools.search(
            library, "What does `_wrap_chunks` do with long words?", ["library"], 5
        )
    )
    reasons = [h["why"] for h in found["hits"] if h["path"] == "textwrap.py"]
    assert any("defines `_wrap_chunks`" in why for why in reasons), reasons
    hit = Hit(
        chunk_id=1,
        document_id=1,
        docset_name="d",
        path="a.md",
        title="a",
        ordinal=0,
        content="Backups run nightly; a backup is kept for 30 days.",
        start_line=1,
        end_line=1,
        score=0.1,
        vector_similarity=0.31,
    )
    assert why_hit("how long are backups kept?", hit) == "words: backups, kept (2 of 3)"
    assert why_hit("unrelated phrasing", hit) == "close in meaning (0.31)"
    inside = hit.model_copy(update={"metadata": {"scope": ["Store", "backup_now"]}})
    assert why_hit("what does backup_now do?", inside).startswith("inside `backup_now`")
