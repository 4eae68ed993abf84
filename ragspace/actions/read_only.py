"""Read-only mode: the one place every front end's change is refused when it is on."""

import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from ragspace.errors import ReadOnlyError

P = ParamSpec("P")
R = TypeVar("R")


class MayChange(Protocol):
    """An actions object that knows whether this instance is read-only."""

    read_only: bool


S = TypeVar("S", bound=MayChange)


def changes(
    action: str,
) -> Callable[[Callable[Concatenate[S, P], R]], Callable[Concatenate[S, P], R]]:
    """Mark an action that changes data (or fetches sources): refused when read-only.

    Every front end (UI, HTTP API, MCP, CLI) goes through the actions, so this is the
    one place where read-only mode is enforced; hidden buttons are only a courtesy.
    """

    def decorate(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
        @functools.wraps(method)
        def guarded(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
            if self.read_only:
                raise ReadOnlyError(
                    f"This RAGSpace is read-only: you can search and chat, but not {action}."
                )
            return method(self, *args, **kwargs)

        return guarded

    return decorate
