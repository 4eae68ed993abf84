"""Process-wide logging for the app, the CLI and workers."""

import logging


def configure_logging(level: str) -> None:
    """Log to stderr with timestamps; quieten chatty HTTP libraries."""
    logging.basicConfig(
        level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    for noisy in ("httpx", "httpcore", "httpx2", "openai"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
