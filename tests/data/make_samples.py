"""Regenerates the sample files in this folder: python tests/data/make_samples.py."""

import codecs
import json
import zipfile
from pathlib import Path

HERE = Path(__file__).parent

PDF_PAGES = [
    ["Ragspace Field Guide", "Chapter one explains the heron migration.", "Herons fly south."],
    ["Chapter two covers the otter dams.", "Otters build dams from willow branches."],
]


def pdf(pages: list[list[str]], drawing: str = "") -> bytes:
    """A minimal but complete PDF 1.4: one Helvetica text stream per page, exact xref.

    `drawing`: path operators painted on every page (with no lines: a text-free figure)."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", ""]
    kids = []
    font_id = 3
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for lines in pages:
        ops = [drawing] if drawing else []
        if lines:
            ops += ["BT", "/F1 12 Tf", "14 TL", "72 720 Td"]
            for line in lines:
                ops += [f"({line}) Tj", "T*"]
            ops.append("ET")
        stream = "\n".join(ops)
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
        content_id = len(objects)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content_id} 0 R"
            f" /Resources << /Font << /F1 {font_id} 0 R >> >> >>"
        )
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>"
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python", "version": "3.11.0"},
    },
    "cells": [
        {
            "cell_type": "markdown",
            "id": "a1",
            "metadata": {},
            "source": ["# Tide analysis\n", "\n", "We load the tide table."],
        },
        {
            "cell_type": "code",
            "id": "a2",
            "metadata": {},
            "execution_count": 1,
            "outputs": [],
            "source": ["import csv\n", "rows = list(csv.reader(open('tides.csv')))"],
        },
        {
            "cell_type": "markdown",
            "id": "a3",
            "metadata": {},
            "source": "## Spring tides\nThey peak at new moon.",
        },
        {
            "cell_type": "code",
            "id": "a4",
            "metadata": {},
            "execution_count": 2,
            "outputs": [{"output_type": "stream", "name": "stdout", "text": ["42\n"]}],
            "source": ["print(len(rows))"],
        },
    ],
}

HTML = """<!doctype html>
<html><head><title>Glacier handbook</title></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<main>
<h1 id="glaciers">Glacier handbook</h1>
<p>Glaciers are slow rivers of ice that carve valleys over thousands of years.</p>
<section id="moraines"><h2>Moraines and till</h2>
<p>A moraine is the ridge of rock debris a glacier pushes ahead and leaves behind.</p></section>
<h2><a id="calving"></a>Calving fronts</h2>
<p>Calving happens when blocks of ice break off the terminus into the sea.</p>
</main>
<footer>Copyright the glacier society</footer>
</body></html>
"""


# Files of a healthy repository that hold no text, made like the real ones of the shared
# evaluation checkouts (not copied: pylint's fixtures are GPL-2.0): pylint's
# tests/regrtest_data/unicode/pep_bidirectional_utf_{16,32}_bom.txt are Python source behind
# a byte-order mark with one stray newline byte after it, so they do not decode; sphinx's
# tests/roots/*/img.pdf and svgimg.pdf are one-page figures without a character of text.
NO_TEXT_SOURCE = '# vim: set fileencoding={} :\nprint("bidirectional")\ns = "x\u200f" * 100\n'
FIGURE = "0.2 0.4 0.8 rg 100 500 200 150 re f 0 0 0 RG 4 w 100 500 m 300 650 l S"


def no_text_files() -> dict[str, bytes]:
    """The no-text checkout: two broken byte-order-mark files, a figure PDF, one README."""
    utf16 = NO_TEXT_SOURCE.format("utf_16").encode("utf-16-le")
    utf32 = NO_TEXT_SOURCE.format("utf_32").encode("utf-32-le")
    return {
        "README.md": b"# Fixtures\n\nFiles that hold no text, kept on purpose by the tests.\n",
        "unicode/pep_bidirectional_utf_16_bom.txt": codecs.BOM_UTF16_LE + utf16 + b"\n",
        "unicode/pep_bidirectional_utf_32_bom.txt": codecs.BOM_UTF32_LE + utf32 + b"\n",
        "roots/test-images/img.pdf": pdf([[]], drawing=FIGURE),
    }


def main() -> None:
    """Write sample.pdf, sample.ipynb, sample.html, sample.zip and the no-text/ checkout."""
    for name, data in no_text_files().items():
        (HERE / "no-text" / name).parent.mkdir(parents=True, exist_ok=True)
        (HERE / "no-text" / name).write_bytes(data)
    (HERE / "sample.pdf").write_bytes(pdf(PDF_PAGES))
    (HERE / "sample.ipynb").write_text(json.dumps(NOTEBOOK, indent=1) + "\n")
    (HERE / "sample.html").write_text(HTML)
    with zipfile.ZipFile(HERE / "sample.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("docs/guide.md", "# Guide\n\nThe lighthouse keeper logs every ship.\n")
        archive.writestr("src/app.py", "def beacon() -> str:\n    return 'flash'\n")
        archive.write(HERE / "sample.pdf", "papers/field.pdf")
        archive.writestr("images/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00binary")
        archive.writestr("../escape.txt", "outside the archive root")


if __name__ == "__main__":
    main()
