"""The one place where service errors become readable `gr.Error` messages."""

import functools
import inspect
import logging
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, TypeVar

import gradio as gr

from ragspace.errors import RagspaceError

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

UNEXPECTED = "Something went wrong on the server. The details are in the server log."


def _translate(exc: Exception) -> gr.Error:
    if isinstance(exc, gr.Error):
        return exc
    if isinstance(exc, RagspaceError):
        return gr.Error(str(exc))
    log.exception("Unexpected error in a UI handler")
    return gr.Error(UNEXPECTED)


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
