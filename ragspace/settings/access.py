"""Who may do what: logins, read-only mode, the MCP endpoint and webhooks."""

from pydantic import Field, SecretStr

from ragspace.settings.area import AreaSettings


class AccessSettings(AreaSettings):
    """Who may do what: logins, read-only mode, the MCP endpoint and webhooks."""

    auth: SecretStr | None = Field(
        default=None,
        description="Login for the web app, its API and MCP: user:password pairs, comma-separated.",
    )
    read_only: bool = Field(
        default=False,
        description="Refuse every change (DocSets, sources, re-embedding); search and chat stay.",
    )
    mcp_server: bool = Field(
        default=True,
        description="Serve the MCP tools (streamable HTTP) at /gradio_api/mcp/.",
    )
    github_webhook_secret: SecretStr | None = Field(
        default=None,
        description="Secret of a GitHub push webhook; when set, POST /webhooks/github accepts "
        "pushes signed with it and re-syncs the matching GitHub sources.",
    )
