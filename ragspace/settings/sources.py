"""Fetching GitHub repositories and documentation sites."""

from pydantic import AliasChoices, Field, SecretStr

from ragspace.settings.area import AreaSettings


class SourceSettings(AreaSettings):
    """Fetching GitHub repositories and documentation sites."""

    github_token: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("GITHUB_TOKEN"),
        description="GitHub token for private repositories and higher rate limits.",
    )
    github_api_url: str = Field(
        default="https://api.github.com",
        validation_alias=AliasChoices("GITHUB_API_URL"),
        description="GitHub REST API base URL (GitHub Enterprise: https://host/api/v3).",
    )
    github_max_files: int = Field(
        default=5000,
        ge=1,
        description="Most files indexed from one repository after filters.",
    )
    github_max_file_bytes: int = Field(
        default=1024 * 1024,
        ge=1,
        description="Repository files larger than this are skipped.",
    )
    github_max_archive_bytes: int = Field(
        default=500 * 1024 * 1024,
        ge=1,
        description="Largest repository tarball downloaded.",
    )
    http_timeout_seconds: float = Field(
        default=30.0,
        gt=0,
        description="Timeout of every GitHub and web request; a web page, robots.txt or "
        "sitemap must also arrive whole within it.",
    )
    web_max_pages: int = Field(
        default=500,
        ge=1,
        description="Upper bound on pages fetched from one documentation site.",
    )
    web_max_seconds: float = Field(
        default=600.0,
        gt=0,
        description="Time budget of one crawl; pages not fetched by then are skipped.",
    )
    allow_private_urls: bool = Field(
        default=False,
        description="Let web sources fetch loopback, private and link-local addresses "
        "(SSRF guard off). Only for a server that may read internal sites.",
    )
    web_concurrency: int = Field(
        default=4,
        ge=1,
        le=16,
        description="Parallel requests to one documentation site (be polite).",
    )
