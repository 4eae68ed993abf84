"""GitHub push webhooks: signature checks, and which sources a push makes out of date."""

import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Any

from ragspace.errors import ConflictError, SourceError, ValidationError
from ragspace.models import Source
from ragspace.sources.github_client import parse_location

SIGNATURE_PREFIX = "sha256="
_COMMIT = re.compile(r"^[0-9a-fA-F]{7,40}$")


def sign(secret: str, body: bytes) -> str:
    """The `X-Hub-Signature-256` value GitHub sends for this body."""
    return SIGNATURE_PREFIX + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def signature_valid(secret: str, body: bytes, header: str | None) -> bool:
    """True when `X-Hub-Signature-256` is the HMAC-SHA256 of the body with the secret."""
    if not secret or not header:
        return False
    # constant time: how much of a guess matches must not show in the response time
    return hmac.compare_digest(sign(secret, body).encode(), header.encode())


class DuplicateDeliveryError(ConflictError):
    """A webhook delivery (its id or its signed body) was handled already."""


@dataclass(frozen=True)
class Delivery:
    """One webhook delivery: GitHub's `X-GitHub-Delivery` id and the body's SHA-256."""

    id: str
    digest: str

    @classmethod
    def of(cls, delivery_id: str, body: bytes) -> "Delivery":
        """The delivery of this body (without an id, the body's digest stands for one)."""
        digest = hashlib.sha256(body).hexdigest()
        return cls(delivery_id or f"sha256:{digest}", digest)


@dataclass(frozen=True)
class PushEvent:
    """What a push says: which repository, which ref (refs/heads/X or refs/tags/X)."""

    full_name: str
    ref: str
    default_branch: str | None = None

    @classmethod
    def from_payload(cls, payload: Any) -> "PushEvent":
        """The push of a `push` event's JSON payload."""
        repository = payload.get("repository") if isinstance(payload, dict) else None
        if not isinstance(repository, dict):
            raise ValidationError("The push payload has no repository.")
        full_name, ref = repository.get("full_name"), payload.get("ref")
        if not isinstance(full_name, str) or not isinstance(ref, str):
            raise ValidationError("The push payload lacks repository.full_name or ref.")
        default = repository.get("default_branch")
        return cls(full_name, ref, default if isinstance(default, str) else None)


def push_matches(source: Source, push: PushEvent) -> bool:
    """Whether the push changes what this GitHub source follows.

    A source follows its ref (branch or tag), else the repository's default branch; a
    source pinned to a commit never changes, so no push matches it.
    """
    try:
        location = parse_location(source.location, source.github_options.ref)
    except SourceError:
        return False
    if location.full_name.lower() != push.full_name.lower():
        return False
    ref = location.ref or push.default_branch
    if ref is None or _pinned(ref, source):
        return False
    return push.ref in (f"refs/heads/{ref}", f"refs/tags/{ref}")


def _pinned(ref: str, source: Source) -> bool:
    """A ref that is (the start of) the commit it resolved to, or a full commit SHA."""
    if not _COMMIT.match(ref):
        return False
    resolved = str(source.sync_state.get("commit") or "")
    return len(ref) == 40 or (bool(resolved) and resolved.lower().startswith(ref.lower()))
