"""Questions the symbol table answers: "where is X defined", "what calls X"."""

import re
from dataclasses import dataclass
from typing import Literal

from ragspace.symbols.names import is_symbol_name, normalised

SymbolIntent = Literal["definition", "references"]

_NAME = r"`?(?P<name>[A-Za-z_$][\w$]*(?:(?:\.|::|->|#)[A-Za-z_$][\w$]*)*)(?:\(\))?`?"
_KINDS = r"(?:function|class|method|type|struct|interface|trait|module|symbol|macro|constant)"
_WHAT = rf"(?:the\s+)?(?:{_KINDS}\s+)?"
_KIND_AFTER = rf"(?:\s+{_KINDS})?"  # "the `Flask` class defined"
_PATTERNS: tuple[tuple[SymbolIntent, re.Pattern[str]], ...] = (
    (
        "definition",
        re.compile(
            rf"^(?:where|in\s+which\s+file|which\s+file)\s+(?:is|are|was|'s)\s+{_WHAT}{_NAME}"
            rf"{_KIND_AFTER}\s+(?:defined|declared|implemented)\b"
        ),
    ),
    (
        "definition",
        re.compile(rf"^where'?s\s+{_WHAT}{_NAME}{_KIND_AFTER}\s+(?:defined|declared)\b"),
    ),
    (
        "definition",
        re.compile(
            rf"^(?:find|show|go\s+to|where\s+is|where'?s)?\s*(?:the\s+)?definition\s+of\s+"
            rf"{_WHAT}{_NAME}{_KIND_AFTER}\s*$"
        ),
    ),
    (
        "references",
        re.compile(
            rf"^(?:what|who|which\s+\w+)\s+(?:calls?|uses?|invokes?|references?)\s+"
            rf"{_WHAT}{_NAME}{_KIND_AFTER}\s*$"
        ),
    ),
    (
        "references",
        re.compile(
            rf"^where\s+(?:is|are)\s+{_WHAT}{_NAME}\s+(?:called|used|referenced|invoked)"
            rf"(?:\s+from)?\s*$"
        ),
    ),
    (
        "references",
        re.compile(
            rf"^(?:find|show|list)?\s*(?:all\s+)?(?:the\s+)?(?:references|usages|uses|callers|"
            rf"calls)\s+(?:of|to)\s+{_WHAT}{_NAME}\s*$"
        ),
    ),
)


@dataclass(frozen=True)
class SymbolQuestion:
    """A question about one symbol: where it is defined, or where it is used."""

    intent: SymbolIntent
    name: str


def symbol_question(question: str) -> SymbolQuestion | None:
    """The symbol and intent of a navigation question, or None for any other question."""
    text = " ".join(question.strip().split()).rstrip("?.! ")
    lowered = text[:1].lower() + text[1:]
    for intent, pattern in _PATTERNS:
        match = pattern.match(lowered) or pattern.match(text.lower())
        if match is None:
            continue
        # the name as written (case kept): same span in the original text
        name = text[match.start("name") : match.end("name")]
        if is_symbol_name(name):
            return SymbolQuestion(intent, normalised(name))
    return None


_ARCHITECTURE = re.compile(
    r"\b(?:architecture|architectural|high[- ]level|overview|code ?base|project structure|"
    r"(?:is|are)\s+(?:\w+\s+){0,4}(?:organi[sz]ed|structured|laid out)|"
    r"main\s+(?:components|modules|parts|classes|packages|entry ?points?)|"
    r"fit together|entry ?points?|how\s+(?:\w+\s+){0,3}(?:flows?|wired))\b",
    re.IGNORECASE,
)


def is_architecture_question(question: str) -> bool:
    """True for a question about the shape of the code (its parts and how they connect),
    which a repository map helps a model answer."""
    return bool(_ARCHITECTURE.search(question))
