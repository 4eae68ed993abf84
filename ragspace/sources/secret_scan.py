"""Secrets inside ordinary files: high-confidence token formats, their lines redacted.

Why not `detect-secrets`: it costs about 6 s per MB of text (all default plugins, measured
on this repository's own source), and its entropy and keyword plugins flagged three
harmless lines there (a SHA-256 constant, a message constant, a docstring with a URL).
These few formats have fixed prefixes, so a false positive is rare; they run on RE2
(linear time), and a text without any match costs one pass.
"""

from dataclasses import dataclass
from typing import Any

import re2

from ragspace.models import SkippedItem, redaction_skips

REDACTED = "[redacted: looks like a secret]"
REDACTED_LINES = "redacted_lines"  # document metadata: [[line, reason], ...]
_BEGIN_KEY = r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
_END_KEY = re2.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_TOKENS = {
    "a private key": _BEGIN_KEY,
    "an AWS access key": r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
    "a GitHub token": r"\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,251})\b",
    "a GitLab token": r"\bglpat-[A-Za-z0-9_-]{20,}",
    "a Slack token": r"\bxox[abprs]-[A-Za-z0-9-]{10,}",
    "a Stripe live key": r"\b[rs]k_live_[A-Za-z0-9]{20,}",
    "a Google API key": r"\bAIza[0-9A-Za-z_-]{35}\b",
    "an OpenAI key": r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}",
    "an Anthropic key": r"\bsk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{32,}",
    "an npm token": r"\bnpm_[A-Za-z0-9]{36}\b",
    "a PyPI token": r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
}
_ANY = re2.compile("|".join(f"(?:{pattern})" for pattern in _TOKENS.values()))
_EACH = {kind: re2.compile(pattern) for kind, pattern in _TOKENS.items()}
_BEGIN = _EACH["a private key"]


@dataclass(frozen=True)
class Redaction:
    """A line (1-based) replaced because it holds what looks like a secret."""

    line: int
    kind: str

    @property
    def reason(self) -> str:
        """How the skip list shows it."""
        return f"line {self.line} redacted: looks like a secret ({self.kind})"


def redact_secrets(text: str) -> tuple[str, list[Redaction]]:
    """The text with every line holding a secret (a whole private-key block) replaced."""
    if _ANY.search(text) is None:  # the common case: one linear pass, nothing copied
        return text, []
    lines = text.split("\n")
    redactions: list[Redaction] = []
    in_key = False  # inside a private-key block: every line to its END line goes
    for index, line in enumerate(lines):
        if in_key:
            kind: str | None = "a private key"
            in_key = _END_KEY.search(line) is None
        else:
            kind = _kind(line)
            if kind is None:
                continue
            in_key = _BEGIN.search(line) is not None and _END_KEY.search(line) is None
        lines[index] = REDACTED
        redactions.append(Redaction(index + 1, kind or ""))
    return "\n".join(lines), redactions


def _kind(line: str) -> str | None:
    if _ANY.search(line) is None:
        return None
    return next((kind for kind, pattern in _EACH.items() if pattern.search(line)), None)


def redacted_skips(path: str, metadata: dict[str, Any]) -> list[SkippedItem]:
    """The redacted lines a document's metadata records, as entries of a skip list."""
    return redaction_skips(path, metadata.get(REDACTED_LINES) or [])
