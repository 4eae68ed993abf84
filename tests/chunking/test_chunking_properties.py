"""Property tests: exact line ranges, full coverage and contiguous ordinals on generated files."""

from hypothesis import given, settings
from hypothesis import strategies as st

from ragspace.chunking.chunker import Chunker

_ALPHABET = [*list("abcxyz XYZ019_\t\r#{}()[]:;=-*`'\"<>/\\.,é漢字😀"), "\xa0", "\u2028"]
_SNIPPETS = [
    "def handler(event):",
    "class Service:",
    "    return value",
    "func main() {",
    "fn parse(input: &str) -> Result<(), Error> {",
    "}",
    "# Title",
    "## Section two",
    "===",
    "---",
    "```",
    "",
    "   ",
    "\t",
    "\r",
    "// comment",
    "@decorator",
]
_LINE = st.one_of(
    st.text(alphabet=_ALPHABET, max_size=60),
    st.sampled_from(_SNIPPETS),
    st.builds(
        lambda indent, body: " " * indent + body, st.integers(0, 12), st.sampled_from(_SNIPPETS)
    ),
)
_LONG_LINE = st.text(alphabet=_ALPHABET, min_size=300, max_size=1500)
_FILE = st.builds(
    lambda lines, newline, final: newline.join(lines) + (newline if final else ""),
    st.lists(st.one_of(_LINE, _LINE, _LINE, _LINE, _LINE, _LINE, _LONG_LINE), max_size=60),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
_LANGUAGES = st.sampled_from(
    ["python", "markdown", "rst", "text", "html", "go", "rust", "cpp", "json", "yaml", "sql", "x"]
)


@settings(max_examples=250, deadline=None)
@given(
    text=_FILE,
    language=_LANGUAGES,
    size=st.integers(100, 600),
    overlap=st.integers(0, 120),
)
def test_chunks_map_exactly_to_lines_and_cover_the_file(
    text: str, language: str, size: int, overlap: int
) -> None:
    """Each chunk lies in its lines, every non-blank line is covered, ordinals run 0..n-1."""
    chunks = Chunker(size, size, overlap).split(text, language, "generated.txt")
    lines = text.split("\n")
    assert [chunk.ordinal for chunk in chunks] == list(range(len(chunks)))
    covered: set[int] = set()
    previous_start = 1
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines)
        assert chunk.start_line >= previous_start
        previous_start = chunk.start_line
        assert chunk.content.strip()
        assert chunk.content in "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        covered.update(range(chunk.start_line, chunk.end_line + 1))
    blank_free = {number for number, line in enumerate(lines, start=1) if line.strip()}
    assert blank_free <= covered


@settings(max_examples=100, deadline=None)
@given(text=_FILE, size=st.integers(100, 600))
def test_chunks_respect_the_size_limit_unless_one_line_is_longer(text: str, size: int) -> None:
    """Chunks stay within the limit; only a single over-long line may be cut by characters."""
    for language in ("python", "markdown"):
        for chunk in Chunker(size, size, 50).split(text, language, "generated.txt"):
            assert len(chunk.content) <= size or chunk.start_line == chunk.end_line
