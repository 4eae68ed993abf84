"""Chunker behaviour on prose and code: heading paths, anchors, headers and exact lines."""

import itertools

from ragspace.chunking.chunker import Chunker
from ragspace.runtime import build_chunker
from ragspace.settings import load_settings

GUIDE = """# Guide

Welcome to the guide. It explains how to install and use the tool.

## Install

Pick the instructions for your system.

### Linux

Run the installer from your package manager:

```
# not a heading: this is a shell comment
sudo apt-get install tool
```

### macOS

Use Homebrew: brew install tool.

## Usage

Run `tool --help` to list the commands.

## Usage

A second section with the same title gets a numbered anchor.
"""


def _by_heading(chunks: list, path: str) -> list:  # type: ignore[type-arg]
    return [c for c in chunks if c.metadata.get("heading_path") == path]


def test_prose_chunks_carry_heading_path_anchor_and_header() -> None:
    """Each section is a chunk labelled with its heading path and GitHub-style anchor."""
    chunks = Chunker(1200, 150, 0).split(GUIDE, "markdown", "docs/guide.md")
    linux = _by_heading(chunks, "Guide > Install > Linux")
    assert len(linux) == 1
    assert linux[0].metadata["anchor"] == "linux"
    assert linux[0].header == "docs/guide.md | Guide > Install > Linux"
    assert linux[0].embedding_text.startswith("docs/guide.md | Guide > Install > Linux\n\n")
    assert "sudo apt-get install tool" in linux[0].content
    assert [c.metadata["anchor"] for c in _by_heading(chunks, "Guide > Usage")] == [
        "usage",
        "usage-1",
    ]
    assert not _by_heading(chunks, "Guide > Install > Linux > not a heading")


def test_prose_line_ranges_point_at_the_sections() -> None:
    """start_line is the heading's line and the content is exactly those lines."""
    lines = GUIDE.split("\n")
    for chunk in Chunker(1200, 150, 0).split(GUIDE, "markdown", "guide.md"):
        assert chunk.content == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
    macos = _by_heading(
        Chunker(1200, 150, 0).split(GUIDE, "markdown", "g.md"), "Guide > Install > macOS"
    )
    assert lines[macos[0].start_line - 1] == "### macOS"


def test_small_documents_are_kept_whole() -> None:
    """A document below the prose size is one chunk named after its first heading."""
    chunks = Chunker(1200, 2000, 100).split(GUIDE, "markdown", "guide.md")
    assert len(chunks) == 1
    assert (chunks[0].start_line, chunks[0].end_line) == (1, GUIDE.count("\n"))
    assert chunks[0].metadata["heading_path"] == "Guide"


def test_long_sections_are_split_with_overlap() -> None:
    """Paragraphs of one long section share their heading path; neighbours overlap."""
    body = "\n\n".join(f"Paragraph {n} talks about topic {n} at some length." for n in range(40))
    text = f"# Title\n\n## Long section\n\n{body}\n"
    chunks = Chunker(1200, 300, 80).split(text, "markdown", "long.md")
    long = _by_heading(chunks, "Title > Long section")
    assert len(long) > 3
    for before, after in itertools.pairwise(long):
        assert after.start_line <= before.end_line  # overlapping lines
        assert after.start_line > before.start_line
    assert all(c.metadata["anchor"] == "long-section" for c in long)


def test_setext_and_restructuredtext_headings() -> None:
    """Underlined titles open sections; reST levels follow the order adornments appear."""
    markdown = "Title\n=====\n\n" + "text " * 40 + "\n\nPart\n----\n\n" + "more " * 40 + "\n"
    paths = {
        c.metadata["heading_path"] for c in Chunker(999, 150, 0).split(markdown, "markdown", "a.md")
    }
    assert {"Title", "Title > Part"} <= paths
    rst = "======\nManual\n======\n\nIntro " + "x " * 80 + "\n\nSetup\n-----\n\n" + "y " * 80 + "\n"
    chunks = Chunker(999, 150, 0).split(rst, "rst", "manual.rst")
    assert chunks[0].start_line == 1
    assert {c.metadata["heading_path"] for c in chunks} == {"Manual", "Manual > Setup"}
    assert chunks[-1].metadata["anchor"] == "setup"


def test_crlf_tabs_unicode_and_missing_final_newline() -> None:
    """Line numbers count `\\n`; content keeps tabs and unicode and drops the final `\\r`."""
    text = "def café():\r\n\treturn '漢字😀'\r\n\r\n\r\nclass Ünï:\r\n\tpass"
    chunks = Chunker(40, 40, 0).split(text, "python", "u.py")
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 2), (5, 6)]
    assert chunks[0].content == "def café():\r\n\treturn '漢字😀'"
    assert chunks[1].content == "class Ünï:\r\n\tpass"
    assert chunks[1].metadata["symbol"] == "class Ünï"


def test_minified_lines_are_split_by_characters_and_keep_their_line() -> None:
    """A 10,000+-character line becomes several chunks, all on that line, covering it."""
    long_line = "".join(f"v{n}={n};" for n in range(1250))
    text = f"// header\n{long_line}\nconsole.log(a);\n"
    chunks = Chunker(1000, 1000, 50).split(text, "js", "app.min.js")
    on_line = [c for c in chunks if c.start_line == 2]
    assert len(on_line) >= 10
    assert all(c.end_line == 2 and c.content in long_line for c in on_line)
    covered = set()
    for chunk in on_line:
        start = long_line.index(chunk.content)
        covered.update(range(start, start + len(chunk.content)))
    assert covered == set(range(len(long_line)))
    assert chunks[-1].start_line == 3


def test_sizes_in_tokens_use_the_local_tokenizer() -> None:
    """With unit=tokens, a chunk's size is counted in MiniLM word pieces, not characters."""
    text = "\n".join(f"def function_number_{n}(argument): return argument * {n}" for n in range(60))
    by_chars = Chunker(200, 200, 0).split(text, "python", "t.py")
    by_tokens = Chunker(200, 200, 0, unit="tokens").split(text, "python", "t.py")
    assert len(by_tokens) < len(by_chars)
    assert all(len(c.content) > 200 for c in by_tokens[:-1])


def test_build_chunker_reads_the_settings() -> None:
    """Sizes, overlap and unit come from the settings."""
    settings = load_settings(
        env_file=None,
        code_chunk_size=900,
        prose_chunk_size=700,
        chunk_overlap=40,
        chunk_size_unit="tokens",
    )
    chunker = build_chunker(settings)
    assert (chunker.code_chunk_size, chunker.prose_chunk_size, chunker.overlap) == (900, 700, 40)
    assert chunker.unit == "tokens"


def test_code_overlap_only_inside_oversized_definitions() -> None:
    """Cuts between definitions get no overlap; cuts inside a long function do."""
    small = "\n\n".join(f"def f{n}(x):\n    return x + {n}" for n in range(30))
    chunks = Chunker(120, 120, 60).split(small, "python", "s.py")
    assert all(b.start_line > a.end_line for a, b in itertools.pairwise(chunks))
    big = "def big(x):\n" + "\n".join(f"    x = x * {n} + 1  # step {n}" for n in range(40))
    chunks = Chunker(300, 300, 60).split(big, "python", "b.py")
    assert len(chunks) > 2
    assert all(b.start_line <= a.end_line for a, b in itertools.pairwise(chunks))
    assert all(c.metadata["symbol"] == "def big" for c in chunks)


def test_closing_hashes_are_dropped_but_a_trailing_hash_in_a_word_is_kept() -> None:
    """`## Setup ##` is titled Setup; `## C#` stays C#."""
    text = "# Languages ##\n\nIntro.\n\n## C#\n\n" + "Body text. " * 30 + "\n"
    chunks = Chunker(1200, 200, 0).split(text, "markdown", "l.md")
    assert chunks[0].metadata["heading_path"] == "Languages"
    assert chunks[-1].metadata["heading_path"] == "Languages > C#"
    assert chunks[-1].metadata["anchor"] == "c"
