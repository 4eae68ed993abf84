"""The caps and manners every crawl of a documentation site keeps to."""

from dataclasses import dataclass

from ragspace.settings import Settings
from ragspace.settings.area import default_of
from ragspace.settings.chunking import ChunkingSettings
from ragspace.settings.limits import LimitSettings
from ragspace.settings.sources import SourceSettings


@dataclass(frozen=True)
class WebConfig:
    """Caps and manners for every crawl; the configurable ones default to their settings."""

    timeout_seconds: float = default_of(SourceSettings, "http_timeout_seconds")
    max_pages: int = default_of(SourceSettings, "web_max_pages")
    concurrency: int = default_of(SourceSettings, "web_concurrency")
    max_page_bytes: int = 5 * 1024 * 1024
    user_agent: str = "RAGSpaceBot/0.1"
    chunk_chars: int = default_of(ChunkingSettings, "prose_chunk_size")
    max_seconds: float = default_of(SourceSettings, "web_max_seconds")
    max_redirects: int = 5
    allow_private_urls: bool = default_of(SourceSettings, "allow_private_urls")
    # the text of all pages one crawl reads, as for the files of one upload
    max_text_bytes: int = default_of(LimitSettings, "upload_text_budget_bytes")

    @classmethod
    def from_settings(cls, settings: Settings) -> "WebConfig":
        """The crawl's caps as configured (one text budget, whatever the door)."""
        sources = settings.sources
        return cls(
            timeout_seconds=sources.http_timeout_seconds,
            max_pages=sources.web_max_pages,
            concurrency=sources.web_concurrency,
            chunk_chars=settings.chunking.prose_chunk_size,
            max_seconds=sources.web_max_seconds,
            allow_private_urls=sources.allow_private_urls,
            max_text_bytes=settings.limits.upload_text_budget_bytes,
        )
