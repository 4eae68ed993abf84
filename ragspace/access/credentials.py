"""Who may use the app: the user:password pairs of RAGSPACE_AUTH."""

import hmac
from dataclasses import dataclass

from pydantic import SecretStr

from ragspace.errors import ConfigError

AUTH_HEADER = "X-Ragspace-Auth"  # `user:password`; Authorization is taken by private Spaces


@dataclass(frozen=True)
class Credentials:
    """The accounts allowed in; compared in constant time, never printed."""

    pairs: tuple[tuple[str, str], ...]

    def __repr__(self) -> str:
        return f"Credentials(users={[user for user, _ in self.pairs]!r})"

    def verify(self, username: str, password: str) -> bool:
        """True when the pair is one of the configured accounts."""
        matched = False
        for user, secret in self.pairs:
            # every pair is compared, so the time taken does not reveal which user exists
            same_user = hmac.compare_digest(user.encode(), username.encode())
            same_secret = hmac.compare_digest(secret.encode(), password.encode())
            matched |= same_user and same_secret
        return matched

    def verify_header(self, value: str | None) -> bool:
        """True when an `X-Ragspace-Auth: user:password` header names a configured account."""
        if not value or ":" not in value:
            return False
        username, password = value.strip().split(":", 1)
        return self.verify(username, password)


def parse_auth(value: SecretStr | None) -> Credentials | None:
    """`alice:s3cret,bob:pw` -> Credentials; None when unset or blank (the app is open)."""
    if value is None or not value.get_secret_value().strip():
        return None
    pairs: list[tuple[str, str]] = []
    for number, entry in enumerate(value.get_secret_value().split(","), start=1):
        user, colon, password = entry.strip().partition(":")
        # the message names the entry's position, never its text: it may hold a password
        if not colon or not user.strip() or not password:
            raise ConfigError(
                f"RAGSPACE_AUTH entry {number} is not of the form user:password "
                "(pairs are separated by commas, e.g. alice:s3cret,bob:pw)."
            )
        if any(existing == user.strip() for existing, _ in pairs):
            raise ConfigError(f"RAGSPACE_AUTH names user {user.strip()!r} twice.")
        pairs.append((user.strip(), password))
    return Credentials(tuple(pairs))
