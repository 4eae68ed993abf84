"""User text (file names, DocSet names) shown literally inside Markdown."""

import re

# the characters that mean something inside a line (emphasis, code, links, images, tables,
# strike-through, entities, tags); the text is kept on one line, so block syntax (`# `, `- `,
# `1. `, `> `) never starts
_SPECIAL = re.compile(r"([\\`*_{}\[\]<&!|~#])")


def escape_markdown(text: object) -> str:
    """`text` escaped so Markdown shows it as typed: `__init__.py` stays `__init__.py`."""
    return _SPECIAL.sub(r"\\\1", " ".join(str(text).splitlines()))
