"""File names and file contents that try to drive the terminal through the CLI's output.

A name can hold ESC and OSC sequences (retitle or recolour the terminal, write to the
clipboard), BEL, backspace and carriage returns (overwrite what was printed), newlines
(break a list into forged lines), C1 controls and bidi overrides. Every one of them is
generated below and put in a file name and in a document; no command prints one raw."""

import json
import sys
import unicodedata
from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.ingestion.worker import Ingestor
from tests.cli.test_cli import Run, cli  # noqa: F401 (the `cli` fixture)

DOCSET = "names"
# every character a terminal may act on: C0 but NUL and "/", DEL, C1, and the format and
# separator characters that reorder or break lines (bidi overrides, isolates, U+2028)
HOSTILE = sorted(
    {chr(c) for c in [*range(1, 32), 127, *range(0x80, 0xA0)] if chr(c) != "/"}
    | {chr(c) for c in range(0x2000, 0x2070) if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp")}
    | {"\ufeff", "\u061c"}
)
SEQUENCES = {
    "osc-title": "\x1b]0;owned\x07",
    "osc-clipboard": "\x1b]52;c;ZWNobyBvd25lZA==\x07",
    "csi-colour": "\x1b[31;1m",
    "c1-csi": "\x9b2J",
    "forged-line": "\n  fake.md: looks fine",
    "overwrite": "\rREADME.md",
    "bidi": "\u202edm.txt",
}


def _printable(text: str) -> bool:
    return all(c.isprintable() or c == "\n" for c in text)


def _names() -> dict[str, str]:
    names = {f"U+{ord(c):04X}": f"a{c}b.md" for c in HOSTILE}
    names |= {label: f"x{seq}y.md" for label, seq in SEQUENCES.items()}
    return names


@pytest.fixture
def hostile_folder(tmp_path: Path) -> Path:
    root = tmp_path / "names"
    root.mkdir()
    for label, name in _names().items():
        (root / name).write_text(f"# {label}\n\nBody of {label} with \x1b]0;inside\x07 too.\n")
    return root


@pytest.mark.skipif(sys.platform != "linux", reason="names with any byte need a Linux filesystem")
def test_the_dry_run_prints_every_hostile_name_escaped_on_its_own_line(
    cli: Run,  # noqa: F811
    service: Actions,
    hostile_folder: Path,
) -> None:
    service.docsets.create(DOCSET)

    preview = cli("add", "dir", DOCSET, str(hostile_folder), "--dry-run")

    assert preview.code == 0, preview.err
    assert _printable(preview.out) and _printable(preview.err)
    listed = [line for line in preview.out.splitlines() if line.startswith("  names/")]
    assert len(listed) == len(_names())  # one line per file: no newline got through
    assert "  names/a\\x1bb.md" in listed and "  names/x\\x1b]0;owned\\x07y.md" in listed
    assert "  names/a\\u202eb.md" in listed and "  names/a\\x9bb.md" in listed
    assert "  names/x\\n  fake.md: looks finey.md" in listed


def test_lists_status_documents_and_search_escape_names_and_text(
    cli: Run,  # noqa: F811
    service: Actions,
    ingestor: Ingestor,
    hostile_folder: Path,
) -> None:
    service.docsets.create(DOCSET)
    added = cli("add", "dir", DOCSET, str(hostile_folder))
    assert added.code == 0, added.err
    assert _printable(added.out) and _printable(added.err)
    ingestor.process_all()
    osc = next(d.path for d in service.documents.all(DOCSET) if "owned" in d.path)

    for argv in (
        ("docs", "list", DOCSET),
        ("status", DOCSET),
        ("docs", "show", DOCSET, osc),
        ("search", "Body of osc-title", "--docset", DOCSET),
        ("docs", "list", DOCSET, "--json"),
        ("search", "Body of bidi", "--docset", DOCSET, "--json"),
    ):
        run = cli(*argv)
        assert run.code == 0, (argv, run.err)
        assert _printable(run.out) and _printable(run.err), argv
        if "--json" in argv:  # still JSON, and the same names once decoded
            json.loads(run.out)
    shown = cli("docs", "show", DOCSET, osc).out
    assert "\\x1b]0;inside\\x07" in shown
    listing = json.loads(cli("docs", "list", DOCSET, "--json").out)
    assert {entry["path"] for entry in listing} == {d.path for d in service.documents.all(DOCSET)}
