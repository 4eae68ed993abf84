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
    login_free_failures: int = Field(
        default=5,
        ge=0,
        description="Failed logins (web form, X-Ragspace-Auth, bearer) a client may make "
        "before each further attempt must wait.",
    )
    login_delay_seconds: float = Field(
        default=1.0,
        gt=0,
        description="The wait after the free failed logins; each further failure doubles it.",
    )
    login_max_delay_seconds: float = Field(
        default=900.0,
        gt=0,
        description="The longest wait between failed logins of a client or an account.",
    )
