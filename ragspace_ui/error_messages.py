"""The one place where errors of the actions become readable messages for the user.

Two ways to show them. `user_errors` raises `gr.Error` (a toast): Gradio then also marks every
output of the event as failed, so it suits handlers whose outputs may be blanked (chat).
`inline_errors` keeps every output as it was and writes the message into one of them, a
Markdown next to the control that was used: the form keeps what the user typed.
"""

import functools
import inspect
import logging
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, TypeVar

import gradio as gr

from ragspace.errors import RagspaceError
from ragspace_ui.escape import md

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

UNEXPECTED = "Something went wrong on the server. The details are in the server log."
ERROR_CLASS = "inline-error"  # styled by the app's CSS; tests find messages by it


def message_of(exc: Exception) -> str:
    """What the user reads for an exception: its own words, or a pointer to the log."""
    if isinstance(exc, gr.Error):
        return str(exc.message)
    if isinstance(exc, RagspaceError):
        return str(exc)
    log.exception("Unexpected error in a UI handler")
    return UNEXPECTED


def error_markdown(message: str) -> str:
    """An inline error message; the text is escaped (it often names a file or DocSet)."""
    return f'<span class="{ERROR_CLASS}">⚠️ {md(message)}</span>'


def _translate(exc: Exception) -> gr.Error:
    if isinstance(exc, gr.Error):
        return exc
    return gr.Error(message_of(exc))


def user_errors(handler: Callable[P, R]) -> Callable[P, R]:
    """Wrap a handler (plain or generator) so users see messages, never stack traces."""
    if inspect.isgeneratorfunction(handler):

        @functools.wraps(handler)
        def generator_wrapper(*args: P.args, **kwargs: P.kwargs) -> Iterator[Any]:
            try:
                yield from handler(*args, **kwargs)
            except Exception as exc:
                raise _translate(exc) from None

        return generator_wrapper  # type: ignore[return-value]

    @functools.wraps(handler)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return handler(*args, **kwargs)
        except Exception as exc:
            raise _translate(exc) from None

    return wrapper


def unchanged_outputs(
    outputs: int, message_at: int, message: str, reset: dict[int, Any] | None = None
) -> Any:
    """The value of an event whose handler failed: no output changes but the message.

    `reset` sets the outputs that must not outlive a failure (e.g. a stale preview's
    confirm button) to the values given.
    """
    values: list[Any] = [gr.update() for _ in range(outputs)]
    for index, value in (reset or {}).items():
        values[index] = value
    values[message_at] = error_markdown(message)
    return values[0] if outputs == 1 else tuple(values)


def inline_errors(
    outputs: int, message_at: int = 0, reset: dict[int, Any] | None = None
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Show a failure as a message in output `message_at` (of `outputs`), the rest unchanged.

    A streaming (generator) handler keeps what it last showed and then shows the message.
    """

    def decorate(handler: Callable[P, R]) -> Callable[P, R]:
        if inspect.isgeneratorfunction(handler):

            @functools.wraps(handler)
            def generator_wrapper(*args: P.args, **kwargs: P.kwargs) -> Iterator[Any]:
                try:
                    yield from handler(*args, **kwargs)
                except Exception as exc:
                    yield unchanged_outputs(outputs, message_at, message_of(exc), reset)

            return generator_wrapper  # type: ignore[return-value]

        @functools.wraps(handler)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return handler(*args, **kwargs)
            except Exception as exc:
                return unchanged_outputs(  # type: ignore[no-any-return]
                    outputs, message_at, message_of(exc), reset
                )

        return wrapper

    return decorate
