"""User text (file names, DocSet names, snippets) shown literally inside Markdown."""

import re

from ragspace.text.markdown_text import escape_markdown


def md(text: object) -> str:
    """`text` escaped so Markdown shows it as typed: `__init__.py` stays `__init__.py`."""
    return escape_markdown(text)


def md_code(text: object) -> str:
    """`text` as an inline code span that survives backticks inside it."""
    value = str(text).replace("\n", " ")
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"
