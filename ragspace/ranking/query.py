"""What a question says about itself: the code symbols it names and the words it is made of."""

import re
from dataclasses import dataclass
from functools import cached_property

from ragspace.text.terms import terms

# `quoted` spans, dotted.names, snake_case, CamelCase / camelCase, _private, call()
_QUOTED = re.compile(r"`([^`\n]{1,120})`")
_IDENTIFIER = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::|->|#)[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?"
)
_CAMEL_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SEPARATORS = re.compile(r"\.|::|->|#")


def looks_like_symbol(word: str) -> bool:
    """An identifier a person would not write as an English word: dotted, snake_case,
    CamelCase inside the word, a leading underscore, or a call's parentheses."""
    if word.endswith("()") or word.startswith("_"):
        return True
    core = word.rstrip("()")
    if _SEPARATORS.search(core) or "_" in core.strip("_"):
        return True
    return any(c.isupper() for c in core[1:]) and any(c.islower() for c in core)


def name_parts(name: str) -> list[str]:
    """The lower-case words of an identifier or file name: `HTTPAdapter` -> http, adapter;
    `from_item_and_call` -> from, item, and, call."""
    words: list[str] = []
    for piece in re.split(r"[^A-Za-z0-9]+", name):
        words += [w.lower() for w in _CAMEL_PARTS.findall(piece)]
    return words


# stems of words that talk about code's own parts: a question using them asks about code
# ("the method that...", "which class implements..."), whatever else it names
_CODE_WORDS = frozenset(
    terms(
        "method function class attribute parameter argument implement implementation module"
        " variable decorator constructor subclass instance signature invoke caller callback"
    )
)


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


@dataclass(frozen=True)
class QueryProfile:
    """A question seen by ranking: which symbols it names, which words it is made of."""

    text: str

    @cached_property
    def symbols(self) -> tuple[str, ...]:
        """Code symbols the question names, each also by its parts (`Session.request` names
        `Session.request`, `Session` and `request`; dunder parts like `__call__` are too
        common to name anything alone), quoted spans first."""
        found: list[str] = []
        quoted = _QUOTED.findall(self.text)
        for span in quoted:
            found += [w for w in _IDENTIFIER.findall(span)]
        rest = _QUOTED.sub(" ", self.text)
        found += [w for w in _IDENTIFIER.findall(rest) if looks_like_symbol(w)]
        names: list[str] = []
        for symbol in found:
            symbol = symbol.removesuffix("()")
            parts = [p for p in _SEPARATORS.split(symbol) if not _is_dunder(p)]
            for name in (symbol, *parts):
                if len(name.strip("_")) >= 2 and name not in names:
                    names.append(name)
        return tuple(names)

    @cached_property
    def terms(self) -> frozenset[str]:
        """The stems of the question's telling words and of its symbols' parts."""
        parts = " ".join(" ".join(name_parts(s)) for s in self.symbols)
        return frozenset(terms(f"{self.text} {parts}"))

    @cached_property
    def asks_about_code(self) -> bool:
        """The question names a code symbol or talks about code's parts (methods, classes,
        parameters...): it wants code, not the prose that describes it."""
        return bool(self.symbols) or bool(self.terms & _CODE_WORDS)
