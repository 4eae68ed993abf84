"""Chat models: the protocol the answer, rerank and rewrite steps use, and OpenAI's."""

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from ragspace.errors import LLMError
from ragspace.models import Message


class ChatModel(Protocol):
    """A chat model that can answer at once or stream its answer."""

    def complete(self, messages: Sequence[Message], timeout: float | None = None) -> str:
        """The whole reply."""
        ...

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        """The reply, piece by piece as the model produces it."""
        ...


class OpenAIChatModel:
    """OpenAI (or compatible) chat completions, deterministic (temperature 0)."""

    def __init__(
        self,
        api_key: str,
        model: str,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
    ) -> None:
        import openai

        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries
        )
        self.model = model

    @property
    def base_url(self) -> str:
        """The API's address."""
        return str(self._client.base_url)

    def complete(self, messages: Sequence[Message], timeout: float | None = None) -> str:
        """See `ChatModel.complete`; a timeout also disables retries (it is a budget)."""
        import openai

        client = (
            self._client
            if timeout is None
            else self._client.with_options(timeout=timeout, max_retries=0)
        )
        try:
            response = client.chat.completions.create(
                model=self.model, messages=_sdk_messages(messages), temperature=0
            )
        except (openai.APIResponseValidationError, ValueError, AttributeError, TypeError) as exc:
            # bad JSON (ValueError), or the SDK's own parsing tripping over non-JSON text
            raise self._malformed(type(exc).__name__) from None
        except openai.APIError as exc:
            raise _llm_error(exc, self.model) from None
        try:  # a proxy or a wrong OPENAI_BASE_URL can answer 200 with HTML or other JSON
            choices = response.choices
            if choices is None or not isinstance(choices, list):
                raise AttributeError("choices")
            if not choices:
                raise LLMError(f"The chat model {self.model!r} returned no answer.")
            return str(choices[0].message.content or "")
        except (AttributeError, TypeError, IndexError):
            raise self._malformed("not a chat completion") from None

    def _malformed(self, what: str) -> LLMError:
        return LLMError(
            f"The chat API at {self._client.base_url} sent a malformed reply ({what}) for "
            f"model {self.model!r}; check OPENAI_BASE_URL and any proxy in between."
        )

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        """See `ChatModel.stream`."""
        import openai

        try:
            events = self._client.chat.completions.create(
                model=self.model, messages=_sdk_messages(messages), temperature=0, stream=True
            )
            for event in events:
                if event.choices and event.choices[0].delta.content:
                    yield event.choices[0].delta.content
        except (openai.APIResponseValidationError, ValueError, AttributeError, TypeError) as exc:
            raise self._malformed(type(exc).__name__) from None
        except openai.APIError as exc:
            raise _llm_error(exc, self.model) from None


def _sdk_messages(messages: Sequence[Message]) -> Any:
    return [{"role": m["role"], "content": m["content"]} for m in messages]


def _llm_error(exc: Exception, model: str) -> LLMError:
    status = getattr(exc, "status_code", None)
    if status is not None:
        return LLMError(f"The chat model {model!r} failed: the API answered {status}.")
    return LLMError(f"The chat model {model!r} could not be reached ({type(exc).__name__}).")
