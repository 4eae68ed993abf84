"""Caps on what one request may send or keep: uploads, archives and sessions."""

from pydantic import Field

from ragspace.settings.area import AreaSettings


class LimitSettings(AreaSettings):
    """Caps on what one request may send or keep: uploads, archives and sessions."""

    max_upload_bytes: int = Field(
        default=20 * 1024 * 1024,
        ge=1,
        description="Largest uploaded file accepted, in bytes.",
    )
    zip_max_members: int = Field(
        default=2000,
        ge=1,
        description="Most files read from one uploaded .zip archive.",
    )
    zip_max_total_bytes: int = Field(
        default=200 * 1024 * 1024,
        ge=1,
        description="Largest total uncompressed size of one .zip archive (zip-bomb guard).",
    )
    upload_text_budget_bytes: int = Field(
        default=64 * 1024 * 1024,
        ge=1,
        description="Most bytes all files of one upload (files, folder, archives "
        "decompressed) or the text of all pages of one web crawl may read; files and "
        "pages past it are refused unread.",
    )
    session_capacity: int = Field(
        default=200,
        ge=1,
        description=(
            "Most browser and API sessions whose state the app keeps in memory (about 0.3 MB "
            "each); beyond it the least recently used is forgotten."
        ),
    )
