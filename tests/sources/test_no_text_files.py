"""Files of a healthy checkout that hold no text are skips with their reason, not errors.

tests/data/no-text/ is made by tests/data/make_samples.py like the real files that ended as
`error` in the shared pylint and sphinx checkouts: Python source behind a UTF-16 or UTF-32
byte-order mark with one stray byte after it, and a one-page figure PDF with no text.
"""

import codecs
import json
from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.models import EmbeddingStatus, NewDocument, UploadedFile
from ragspace.sources.files import classify_bytes, read_upload
from ragspace_cli.main import main

NO_TEXT = Path(__file__).parent.parent / "data" / "no-text"
# each skip's reason (stable words, so skips are counted by reason), and the error message
# of the same file uploaded alone (which names the byte)
REASONS = {
    "no-text/unicode/pep_bidirectional_utf_16_bom.txt": (
        "not valid UTF-16 text after its byte-order mark",
        "starts like UTF-16 text but is not (invalid byte at offset 144)",
    ),
    "no-text/unicode/pep_bidirectional_utf_32_bom.txt": (
        "not valid UTF-32 text after its byte-order mark",
        "starts like UTF-32 text but is not (invalid byte at offset 288)",
    ),
    "no-text/roots/test-images/img.pdf": (
        "PDF with no extractable text (image-only or scanned)",
        "has no extractable text",
    ),
}


def test_cli_add_dir_of_files_without_text_ends_in_skips_and_status_has_no_errors(
    database_url: str,
    service: Actions,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("RAGSPACE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    service.docsets.create("fixtures")

    code = main(["add", "dir", "fixtures", str(NO_TEXT), "--wait"])
    out, err = capsys.readouterr()
    assert code == 0, err
    skipped = {
        s["path"]: s["reason"] for s in service.sources.all("fixtures")[0].sync_state["skipped"]
    }
    assert set(skipped) == set(REASONS)
    for path, (reason, _) in REASONS.items():
        assert skipped[path] == reason
        assert f"  {path}: {reason}" in out  # printed with its reason
    documents = service.documents.all("fixtures")
    assert [(d.path, d.embedding_status) for d in documents] == [
        ("no-text/README.md", EmbeddingStatus.DONE)
    ]

    assert main(["status", "fixtures", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["errors"] == [] and status["counts"].get("error", 0) == 0


def test_the_same_files_uploaded_on_their_own_are_errors_that_say_why() -> None:
    # a user who uploads a file wants to hear that it holds no text; a checkout's fixtures not
    for name in REASONS:
        data = (NO_TEXT.parent / name).read_bytes()
        [document] = read_upload(UploadedFile(Path(name).name, data), 10**6)
        assert document.error_message and REASONS[name][1] in document.error_message


def test_valid_utf32_with_a_byte_order_mark_is_read_as_text() -> None:
    data = codecs.BOM_UTF32_LE + "def hello() -> str:\n    return 'hi'\n".encode("utf-32-le")
    document = classify_bytes("src/hello.py", data, 10**6, in_tree=True)
    assert isinstance(document, NewDocument) and document.error_message is None
    assert document.content.startswith("def hello()")
