"""The caps and manners every crawl of a documentation site keeps to."""

from dataclasses import dataclass


@dataclass(frozen=True)
class WebConfig:
    """Caps and manners for every crawl."""

    timeout_seconds: float = 30.0
    max_pages: int = 500
    concurrency: int = 4
    max_page_bytes: int = 5 * 1024 * 1024
    user_agent: str = "RAGSpaceBot/0.1"
    chunk_chars: int = 1000
    max_seconds: float = 600.0
    max_redirects: int = 5
    allow_private_urls: bool = False
    # the text of all pages one crawl reads, as for the files of one upload
    max_text_bytes: int = 64 * 1024 * 1024
