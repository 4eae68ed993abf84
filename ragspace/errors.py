"""The error tree. Messages are written for the end user and name the offending value."""


class RagspaceError(Exception):
    """Base class of every error RAGSpace raises on purpose."""


class ConfigError(RagspaceError):
    """The configuration is missing or invalid."""


class NotFoundError(RagspaceError):
    """A DocSet, source or document does not exist."""


class ConflictError(RagspaceError):
    """The change would clash with existing data (e.g. a duplicate DocSet name)."""


class ValidationError(RagspaceError):
    """User input is not acceptable (empty name, unsupported file, ...)."""


class SourceError(RagspaceError):
    """A source could not be fetched or read."""


class NoTextError(SourceError):
    """A file holds no text to index (an image-only PDF, text in a broken encoding).

    `reason` says why in a few stable words, without the path or details: in a repository or
    folder such a file is a skip with that reason, not an error (test fixtures are often like
    this on purpose), and skips are counted by reason."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class EmbeddingError(RagspaceError):
    """The embedding model failed or is misconfigured."""


class TransientError(RagspaceError):
    """A failure that may pass when retried later (rate limit, server error, timeout)."""


class TransientEmbeddingError(EmbeddingError, TransientError):
    """The embedding API is rate-limiting, failing or unreachable for now."""


class EmbeddingModelMismatchError(RagspaceError):
    """A DocSet was embedded with another model than the configured one."""


class VectorsPendingError(RagspaceError):
    """Vector search found nothing because the DocSets' chunks are not embedded yet."""


class LLMError(RagspaceError):
    """The chat model failed."""


class DatabaseError(RagspaceError):
    """The database could not be started, reached or migrated."""


class DatabaseUnavailableError(DatabaseError):
    """The database cannot be reached right now; RAGSpace keeps retrying in the background."""

    def __init__(self, detail: str = "") -> None:
        message = "The database is unavailable right now; RAGSpace is retrying. Try again shortly."
        super().__init__(f"{message} ({detail})" if detail else message)


class ReadOnlyError(RagspaceError):
    """The app runs read-only (RAGSPACE_READ_ONLY) and refuses every change."""


class AuthenticationError(RagspaceError):
    """A caller did not present valid credentials (RAGSPACE_AUTH)."""


def redact(text: str, *secrets: str | None) -> str:
    """The text with every secret value replaced (servers sometimes echo a key back)."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return text


def unknown_docset(name: str, names: list[str], shown: int = 30) -> str:
    """`DocSet 'x' does not exist.` with the closest name and the names there are: what an
    assistant that guessed a name needs to try again."""
    from difflib import get_close_matches

    close = get_close_matches(name, names, n=1, cutoff=0.6)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    listed = ", ".join(map(repr, names[:shown])) + (" …" if len(names) > shown else "")
    return f"DocSet {name!r} does not exist.{hint} The DocSets are: {listed or 'none yet'}."
