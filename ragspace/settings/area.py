"""The base of every area's settings: each is read from the environment and `.env`."""

from pathlib import Path
from typing import Any

from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent


class AreaSettings(BaseSettings):
    """One area's settings. A field's variable is `RAGSPACE_` + its name in capitals, unless
    it declares another (`validation_alias`: a name other tools set too, like OPENAI_API_KEY).
    """

    # an empty variable means "unset" (the default), never "" (RAGSPACE_DATA_DIR= would
    # otherwise be Path("") and put the database in the working directory)
    model_config = SettingsConfigDict(
        env_prefix="RAGSPACE_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        env_ignore_empty=True,
        frozen=True,
    )


def default_of(area: type[AreaSettings], name: str) -> Any:
    """The default of one area's field: what a component's own options start from, so that
    each default is written once, in its setting (`WebConfig.max_pages` is
    `default_of(SourceSettings, "web_max_pages")`)."""
    return area.model_fields[name].get_default(call_default_factory=True)
