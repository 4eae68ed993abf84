"""Token counts for budgets (MCP `max_tokens`), with the bundled MiniLM WordPiece tokenizer.

The chunker sizes chunks with the same tokenizer; it ships in the package, so counting
needs no download. Counts approximate an LLM's: WordPiece splits English about as finely
as GPT-style BPE and code somewhat more finely, so a budget errs on the small side.
"""

import threading
from collections.abc import Sequence
from importlib import resources
from typing import Any

_local = threading.local()  # one tokenizer per thread: concurrent requests never share one


def bundled_tokenizer() -> Any:
    """A new instance of the bundled MiniLM WordPiece tokenizer, as its file configures it
    (truncated and padded to 128); callers set the truncation and padding they need."""
    from tokenizers import Tokenizer

    source = resources.files("ragspace") / "data" / "minilm-tokenizer.json"
    return Tokenizer.from_str(source.read_text(encoding="utf-8"))


def counting_tokenizer() -> Any:
    """The bundled tokenizer for counting: no truncation, no padding."""
    tokenizer = bundled_tokenizer()
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def _tokenizer() -> Any:
    tokenizer = getattr(_local, "tokenizer", None)
    if tokenizer is None:
        tokenizer = _local.tokenizer = counting_tokenizer()
    return tokenizer


def count_tokens(text: str) -> int:
    """How many tokens `text` is (no special tokens)."""
    if not text:
        return 0
    return len(_tokenizer().encode(text, add_special_tokens=False).ids)


def leading_within(texts: Sequence[str], max_tokens: int) -> tuple[int, int]:
    """(how many of the first texts fit in max_tokens together, their token count).

    Whole texts only, in order: the first that does not fit ends the run, so a budget
    never reorders results or returns a piece of one.
    """
    used = 0
    for kept, text in enumerate(texts):
        tokens = count_tokens(text)
        if used + tokens > max_tokens:
            return kept, used
        used += tokens
    return len(texts), used
