"""Content hashes: equal hashes mean equal text, so nothing needs fetching or embedding again."""

import hashlib


def content_hash(text: str) -> str:
    """sha256 (hex) of the text's UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
