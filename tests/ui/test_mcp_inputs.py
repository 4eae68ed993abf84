"""Tool arguments as agents send them: forgiven where the intent is plain, refused in words
otherwise, never a JSON-schema dump; over the web app's MCP endpoint too."""

from collections.abc import Callable
from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.errors import ValidationError
from ragspace.ingestion.worker import Ingestor
from ragspace.sources.files import UploadedFile
from ragspace_mcp import read_tools as mcp_read_tools
from ragspace_mcp.catalog import description, docstring_parts, tools_for
from ragspace_mcp.inputs import prepare, with_notes
from tests.ui.test_mcp import call, error_text, result_json

DATA = Path(__file__).parent.parent / "data"


def test_one_name_numbers_as_text_and_lists_of_one_are_taken() -> None:
    prepared = prepare(mcp_read_tools.search, {"query": "q", "docsets": "fastapi", "k": "5"})
    assert prepared.arguments == {"query": "q", "docsets": ["fastapi"], "k": 5}
    assert prepared.notes == []
    several = prepare(mcp_read_tools.ask, {"question": "q", "docsets": "a, b"}).arguments
    assert several["docsets"] == ["a", "b"]
    read = prepare(mcp_read_tools.read_document, {"docset": ["docs"], "path": "a.md"})
    assert read.arguments == {"docset": "docs", "path": "a.md"}
    for sent, taken in (("true", True), ("no", False), (1, True), (False, False)):
        flagged = prepare(mcp_read_tools.search, {"query": "q", "show_hidden": sent})
        assert flagged.arguments["show_hidden"] is taken
    with pytest.raises(ValidationError, match="show_hidden is true or false, not 'maybe'"):
        prepare(mcp_read_tools.search, {"query": "q", "show_hidden": "maybe"})


def test_out_of_range_is_clamped_and_unknown_fields_dropped_with_notes() -> None:
    prepared = prepare(
        mcp_read_tools.search, {"query": "q", "k": 0, "max_tokens": -5, "top_k": 3, "lang": "en"}
    )
    assert prepared.arguments == {"query": "q", "k": 1, "max_tokens": 0}
    assert prepared.notes == [
        "Ignored 'lang', 'top_k': search takes query, docsets, k, max_tokens, ref, expand, "
        "show_hidden.",
        "k=0 is out of range (1 to 50); used 1.",
        "max_tokens=-5 is out of range (at least 0); used 0.",
    ]
    assert (
        "k=99 is out of range (1 to 20); used 20."
        in prepare(mcp_read_tools.ask, {"question": "q", "k": 99}).notes
    )


def test_what_cannot_be_guessed_is_refused_in_words() -> None:
    with pytest.raises(ValidationError, match="search needs 'query': What to look for"):
        prepare(mcp_read_tools.search, {"docsets": ["a"]})
    with pytest.raises(ValidationError, match="search needs 'query'"):
        prepare(mcp_read_tools.search, {"query": "   "})
    with pytest.raises(ValidationError, match="k must be a whole number, not 'many'"):
        prepare(mcp_read_tools.search, {"query": "q", "k": "many"})


def test_notes_ride_along_with_the_result() -> None:
    assert with_notes('{"hits": []}', []) == '{"hits": []}'
    assert '"input_notes": [\n  "n"\n ]' in with_notes('{"hits": []}', ["n"])
    assert '"result": [\n  1\n ]' in with_notes("[1]", ["n"])


def test_each_description_says_in_its_first_line_when_to_use_the_tool() -> None:
    for tool in tools_for(read_only=False):
        first = (tool.__doc__ or "").strip().splitlines()[0]
        assert len(first) <= 100, tool.__name__
        assert description(tool).startswith(first[:-1]), tool.__name__
    assert "call it first" in docstring_parts(mcp_read_tools.list_docsets)[0]
    assert "use ask instead" in docstring_parts(mcp_read_tools.search)[0]
    assert "use search" in docstring_parts(mcp_read_tools.ask)[0]


def test_the_web_endpoint_forgives_too(
    service: Actions, ingestor: Ingestor, launch_app: Callable[..., str]
) -> None:
    service.docsets.create("handbook")
    guide = UploadedFile("deployment-guide.md", (DATA / "deployment-guide.md").read_bytes())
    service.sources.add_files("handbook", [guide])
    ingestor.process_all()
    url = launch_app(service)
    found = result_json(
        call(url, "search", {"query": "roll back", "docsets": "handbook", "k": 80, "limit": 2})
    )
    assert found["hits"][0]["path"] == "deployment-guide.md"
    assert found["input_notes"] == [
        "Ignored 'limit': search takes query, docsets, k, max_tokens, ref, expand, show_hidden.",
        "k=80 is out of range (1 to 50); used 50.",
    ]
    unknown = error_text(call(url, "search", {"query": "x", "docsets": "handbok"}))
    assert "Did you mean 'handbook'?" in unknown and "'handbook'" in unknown
    assert "schema" not in unknown
    assert "search needs 'query'" in error_text(call(url, "search", {}))
