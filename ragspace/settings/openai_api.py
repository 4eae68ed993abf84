"""The OpenAI (or compatible) API: key, address, timeouts and the chat model."""

from pydantic import AliasChoices, Field, SecretStr

from ragspace.settings.area import AreaSettings


class OpenAISettings(AreaSettings):
    """The OpenAI (or compatible) API: key, address, timeouts and the chat model."""

    openai_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("OPENAI_API_KEY"),
        description="OpenAI (or compatible) API key. Unset: local embedder, no LLM.",
    )
    openai_base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("OPENAI_BASE_URL"),
        description="Base URL of an OpenAI-compatible API; unset means api.openai.com.",
    )
    openai_timeout_seconds: float = Field(
        default=60.0,
        gt=0,
        validation_alias=AliasChoices("OPENAI_TIMEOUT_SECONDS"),
        description="Per-request timeout for OpenAI calls.",
    )
    openai_max_retries: int = Field(
        default=2,
        ge=0,
        validation_alias=AliasChoices("OPENAI_MAX_RETRIES"),
        description="Retries after a 429, 5xx or timeout (Retry-After is honoured).",
    )
    openai_chat_model: str = Field(
        default="gpt-4o-mini",
        validation_alias=AliasChoices("OPENAI_CHAT_MODEL"),
        description="Chat model for answers, reranking and query rewriting.",
    )

    @property
    def configured(self) -> bool:
        """True when an API key is set (and not empty)."""
        return self.openai_api_key is not None and bool(self.openai_api_key.get_secret_value())
