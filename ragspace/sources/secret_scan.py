"""Secrets inside ordinary files: detect-secrets' detectors, run in linear time; lines redacted.

The rules are detect-secrets' (Yelp's maintained scanner, pinned): every regular-expression
detector it ships but the IP-address one (an address is not a secret), plus the formats
1.5.0 lacks written as detectors of the same kind (`_GAPS`). Its scanner is not used as is:
with all its default plugins it costs about 6 s per MB of text, and its entropy and keyword
plugins flag hashes, message constants and test fixtures (docs/architecture.md, Secrets in
sources; figures in docs/benchmarks.md). Instead each detector's patterns are compiled by
RE2 (linear time: a hostile line cannot make them backtrack), one alternation of all of
them passes over the whole text (a text without a match costs that pass and nothing else),
and on a line it matches, the detector that matched confirms the match with its own code
(a JWT must decode) and detect-secrets' heuristics drop sequential, UUID, templated and
`$`-prefixed values, as its scanner does.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import re2
from detect_secrets.filters import heuristic
from detect_secrets.plugins.artifactory import ArtifactoryDetector
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.cloudant import CloudantDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.ibm_cloud_iam import IbmCloudIamDetector
from detect_secrets.plugins.ibm_cos_hmac import IbmCosHmacDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.softlayer import SoftlayerDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

from ragspace.models import SkippedItem, redaction_skips

REDACTED = "[redacted: looks like a secret]"
REDACTED_LINES = "redacted_lines"  # document metadata: [[line, reason], ...]
_END_KEY = re2.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_CONFIRMED_SPAN = 4096  # longer matches are redacted on RE2's word alone (no re on them)


class GoogleApiKeyDetector(RegexBasedDetector):
    """Google API keys (not in detect-secrets 1.5.0)."""

    secret_type = "Google API Key"
    denylist = (re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),)


class AnthropicKeyDetector(RegexBasedDetector):
    """Anthropic API and admin keys (not in detect-secrets 1.5.0)."""

    secret_type = "Anthropic API Key"
    denylist = (re.compile(r"\bsk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{32,}"),)


class GitHubTokenFormatsDetector(RegexBasedDetector):
    """GitHub's fine-grained tokens and longer classic ones (1.5.0 knows 36-character ones)."""

    secret_type = "GitHub Token"
    denylist = (
        re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,251}\b"),
        re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,251}\b"),
    )


class NpmTokenDetector(RegexBasedDetector):
    """npm access tokens on their own (1.5.0 finds them only in an .npmrc line)."""

    secret_type = "NPM tokens"
    denylist = (re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"),)


class UnquotedAwsSecretDetector(RegexBasedDetector):
    """AWS secret keys assigned without quotes (`aws_secret_access_key = wJalr...` in an INI
    or shell line; 1.5.0 wants them quoted)."""

    secret_type = "AWS Access Key"
    denylist = (
        re.compile(
            r"aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?[=:]\s*([0-9a-zA-Z/+]{40})(?:\s|$)",
            re.IGNORECASE,
        ),
    )


DETECTORS: tuple[type[RegexBasedDetector], ...] = (
    ArtifactoryDetector,
    AWSKeyDetector,
    AzureStorageKeyDetector,
    BasicAuthDetector,
    CloudantDetector,
    DiscordBotTokenDetector,
    GitHubTokenDetector,
    GitLabTokenDetector,
    IbmCloudIamDetector,
    IbmCosHmacDetector,
    JwtTokenDetector,
    MailchimpDetector,
    NpmDetector,
    OpenAIDetector,
    PrivateKeyDetector,
    PypiTokenDetector,
    SendGridDetector,
    SlackDetector,
    SoftlayerDetector,
    SquareOAuthDetector,
    StripeDetector,
    TelegramBotTokenDetector,
    TwilioKeyDetector,
)
_GAPS: tuple[type[RegexBasedDetector], ...] = (
    GoogleApiKeyDetector,
    AnthropicKeyDetector,
    GitHubTokenFormatsDetector,
    NpmTokenDetector,
    UnquotedAwsSecretDetector,
)
# the lookarounds detect-secrets uses and RE2 lacks, as the characters they look at (the
# line is redacted whole, so consuming one more character changes nothing): "not after a
# word character" and "not before one of a class"
_RE2_FORMS = (("(?:(?<=\\W)|(?<=^))", "(?:^|\\W)"), ("(?!\\w)", "(?:\\W|$)"))
_NOT_BEFORE_CLASS = re.compile(r"\(\?!\[([^\]^][^\]]*)\]\)")
_LONG_REPEAT = re.compile(r"\{(\d+),(\d+)\}")
_HEURISTICS = (
    heuristic.is_sequential_string,
    heuristic.is_potential_uuid,
    heuristic.is_templated_secret,
    heuristic.is_prefixed_with_dollar_sign,
    heuristic.is_not_alphanumeric_string,
)


@dataclass(frozen=True)
class Redaction:
    """A line (1-based) replaced because it holds what looks like a secret."""

    line: int
    kind: str

    @property
    def reason(self) -> str:
        """How the skip list shows it."""
        return f"line {self.line} redacted: looks like a secret ({self.kind})"


@dataclass(frozen=True)
class _Rule:
    detector: RegexBasedDetector
    pattern: Any  # an RE2 program

    @property
    def kind(self) -> str:
        return str(self.detector.secret_type)


def re2_pattern(pattern: re.Pattern[str]) -> str:
    """A detect-secrets pattern in RE2's syntax: its flags inline, its lookarounds rewritten,
    repeats over RE2's 1,000 left open (the detector's own pattern confirms the match)."""
    text = pattern.pattern
    for python_form, re2_form in _RE2_FORMS:
        text = text.replace(python_form, re2_form)
    text = _NOT_BEFORE_CLASS.sub(lambda m: f"(?:[^{m[1]}]|$)", text)
    text = _LONG_REPEAT.sub(lambda m: m[0] if int(m[2]) <= 1000 else f"{{{m[1]},}}", text)
    flags = ("i" if pattern.flags & re.IGNORECASE else "") + (
        "s" if pattern.flags & re.DOTALL else ""
    )
    return f"(?{flags}:{text})" if flags else f"(?:{text})"


@cache
def _rules() -> tuple[tuple[_Rule, ...], Any]:
    """Every detector's patterns on RE2, and one alternation of all of them (compiled once)."""
    options = re2.Options()
    options.max_mem = 64 << 20  # room for the alternation's DFA: it stays linear
    found = [(d, p) for d in (c() for c in (*DETECTORS, *_GAPS)) for p in d.denylist]
    rules = tuple(_Rule(d, re2.compile(re2_pattern(p), options)) for d, p in found)
    alternation = "|".join(re2_pattern(p) for _, p in found)
    return rules, re2.compile(alternation, options)


def redact_secrets(text: str) -> tuple[str, list[Redaction]]:
    """The text with every line holding a secret (a whole private-key block) replaced."""
    rules, anything = _rules()
    if anything.search(text) is None:  # the common case: one linear pass, nothing copied
        return text, []
    lines = text.split("\n")
    redactions: list[Redaction] = []
    in_key = False  # inside a private-key block: every line to its END line goes
    for index, line in enumerate(lines):
        if in_key:
            kind: str | None = PrivateKeyDetector.secret_type
            in_key = _END_KEY.search(line) is None
        else:
            kind = _kind(line, rules, anything)
            if kind is None:
                continue
            opens_block = kind == PrivateKeyDetector.secret_type and "BEGIN" in line
            in_key = opens_block and _END_KEY.search(line) is None
        lines[index] = REDACTED
        redactions.append(Redaction(index + 1, kind or ""))
    return "\n".join(lines), redactions


def _kind(line: str, rules: tuple[_Rule, ...], anything: Any) -> str | None:
    """The secret type of the first detector that finds a secret on the line, or None."""
    if anything.search(line) is None:
        return None
    return next((rule.kind for rule in rules if any(_secrets(rule, line))), None)


def _secrets(rule: _Rule, line: str) -> Iterator[str]:
    """The values `rule` finds on `line` that detect-secrets' heuristics keep."""
    for match in rule.pattern.finditer(line):
        span = line[max(0, match.start() - 1) : match.end() + 1]
        if len(span) > _CONFIRMED_SPAN:
            yield match.group(0)  # too long to hand to a backtracking matcher: redact
            continue
        for secret in rule.detector.analyze_string(span):
            if not any(check(secret) for check in _HEURISTICS):
                yield secret


def redacted_skips(path: str, metadata: dict[str, Any]) -> list[SkippedItem]:
    """The redacted lines a document's metadata records, as entries of a skip list."""
    return redaction_skips(path, metadata.get(REDACTED_LINES) or [])
