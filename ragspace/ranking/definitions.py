"""Whether a chunk defines a symbol a question names."""

import re
from functools import lru_cache

# keywords that introduce a definition in common languages (case-sensitive: `Class` in prose
# or `Module` in docs is no definition); `NAME =` / `NAME :=` assignments at a line's start
_KEYWORDS = (
    "def|async def|class|function|func|fn|pub fn|struct|interface|trait|enum|type|module|"
    "defmodule|object|protocol|record|typedef|fun|sub|macro|impl|const|let|var|val"
)


@lru_cache(maxsize=1024)
def definition_pattern(name: str) -> re.Pattern[str]:
    """Matches a line that defines `name` (possibly qualified: `class pkg.Name`)."""
    escaped = re.escape(name)
    return re.compile(
        rf"^[ \t]*(?:(?:export|public|private|protected|static|abstract|final|pub|async|"
        rf"data|sealed|inline|override|open)\s+)*(?:(?:{_KEYWORDS})\s+(?:[\w.:]+[.:])?"
        rf"{escaped}\b|{escaped}\s*:?=)",
        re.MULTILINE,
    )


def defines(content: str, names: tuple[str, ...], declared: list[str] | None = None) -> bool:
    """The chunk defines one of the names: its parse says so (`declared`, from the chunk's
    metadata) or a definition line in its text does."""
    simple = [n for n in names if "." not in n and "::" not in n and "->" not in n]
    if declared is not None and any(n in declared for n in simple):
        return True
    # the pattern needs the name itself in the text: most chunks are ruled out without it
    return any(n in content and definition_pattern(n).search(content) for n in simple)
