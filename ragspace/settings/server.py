"""The web server: where it listens, the address people open, logging."""

from pydantic import AliasChoices, Field

from ragspace.settings.area import AreaSettings


class ServerSettings(AreaSettings):
    """The web server: where it listens, the address people open, logging."""

    host: str = Field(
        default="127.0.0.1",
        validation_alias=AliasChoices("RAGSPACE_HOST", "GRADIO_SERVER_NAME"),
        description="Interface the web app listens on.",
    )
    port: int = Field(
        default=7860,
        ge=1,
        le=65535,
        validation_alias=AliasChoices("RAGSPACE_PORT", "PORT", "GRADIO_SERVER_PORT"),
        description="Port the web app listens on.",
    )
    public_url: str = Field(
        default="",
        description="Address people open the app at (e.g. https://you-ragspace.hf.space); the"
        " `view_url` of CLI and MCP hits opens the cited lines there. Default: http://HOST:PORT.",
    )
    log_level: str = Field(
        default="INFO",
        description="Python logging level.",
    )

    @property
    def app_url(self) -> str:
        """Where the web app is opened: RAGSPACE_PUBLIC_URL, else its host and port."""
        if self.public_url:
            return self.public_url.rstrip("/")
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"
