"""User text (file names, DocSet names, snippets) shown literally inside Markdown."""

import re

# the characters that mean something inside a line (emphasis, code, links, images, tables,
# strike-through, entities, tags); the text is kept on one line, so block syntax (`# `, `- `,
# `1. `, `> `) never starts
_SPECIAL = re.compile(r"([\\`*_{}\[\]<&!|~#])")


def md(text: object) -> str:
    """`text` escaped so Markdown shows it as typed: `__init__.py` stays `__init__.py`."""
    return _SPECIAL.sub(r"\\\1", " ".join(str(text).splitlines()))


def md_code(text: object) -> str:
    """`text` as an inline code span that survives backticks inside it."""
    value = str(text).replace("\n", " ")
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"
