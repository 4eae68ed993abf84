"""Checks of what people type (names, questions, locations, intervals), shared by the actions."""

from datetime import timedelta

from ragspace.errors import ValidationError
from ragspace.sources.url_credentials import without_credentials

MAX_NAME_LENGTH = 100
MAX_QUESTION_CHARS = 4000
# GitHub allows 60 unauthenticated requests an hour; a sync takes three or four
MIN_RESYNC_INTERVAL = timedelta(minutes=5)
MAX_RESYNC_INTERVAL = timedelta(days=365)


def valid_name(name: str) -> str:
    """A DocSet name with its whitespace collapsed; empty or too long is refused."""
    cleaned = " ".join(name.split())
    if not cleaned:
        raise ValidationError("A DocSet name cannot be empty.")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise ValidationError(f"A DocSet name has at most {MAX_NAME_LENGTH} characters.")
    return cleaned


def valid_interval(every: timedelta | None) -> timedelta | None:
    """A re-sync interval within the allowed range (None: not scheduled)."""
    if every is None:
        return None
    if every < MIN_RESYNC_INTERVAL:
        raise ValidationError(
            f"A re-sync interval is at least {MIN_RESYNC_INTERVAL.total_seconds() / 60:.0f} "
            f"minutes, not {every}."
        )
    if every > MAX_RESYNC_INTERVAL:
        raise ValidationError(
            f"A re-sync interval is at most {MAX_RESYNC_INTERVAL.days} days, not {every}."
        )
    return every


def valid_location(location: str) -> str:
    """A source location without credentials (never stored, never shown); empty is refused."""
    cleaned = without_credentials(location.strip())
    if not cleaned:
        raise ValidationError("Enter a GitHub repository, file URL or website address.")
    return cleaned


def valid_query(query: str) -> str:
    """A stripped question or query; empty or too long is refused."""
    cleaned = query.strip()
    if not cleaned:
        raise ValidationError("Type a question first.")
    if len(cleaned) > MAX_QUESTION_CHARS:
        raise ValidationError(f"Questions have at most {MAX_QUESTION_CHARS} characters.")
    return cleaned
