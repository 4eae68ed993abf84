"""The questions a chat page sent, answered one after another: none is lost while an answer
is still being written.

Gradio ignores a second click of a button whose event is still running (`trigger_mode`
"once"), and an answer that clears the question box at every step erased a question typed
meanwhile: a question sent during an answer vanished. Sending now only queues the question
(a quick event of its own); one answering loop per page takes the questions in order.
"""

import threading
from collections import deque


class QuestionQueue:
    """Waiting questions per browser session, and which sessions have an answer running."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str, deque[str]] = {}
        self._answering: set[str] = set()

    def put(self, session: str, question: str) -> None:
        """Queue a question of the session."""
        with self._lock:
            self._waiting.setdefault(session, deque()).append(question)

    def waiting(self, session: str) -> list[str]:
        """The session's questions not yet being answered, oldest first."""
        with self._lock:
            return list(self._waiting.get(session, ()))

    def busy(self, session: str) -> bool:
        """True while an answer of the session is being written."""
        with self._lock:
            return session in self._answering

    def claim(self, session: str) -> bool:
        """Become the session's answering loop; False when one is running already."""
        with self._lock:
            if session in self._answering:
                return False
            self._answering.add(session)
            return True

    def next_question(self, session: str) -> str | None:
        """The loop's next question; None ends the loop (in the same step, so a question
        queued just after is answered by a new loop, not left waiting)."""
        with self._lock:
            waiting = self._waiting.get(session)
            if waiting:
                return waiting.popleft()
            self._waiting.pop(session, None)
            self._answering.discard(session)
            return None

    def release(self, session: str) -> None:
        """End the session's loop; questions still waiting go too (the loop only stops
        before they are answered when its page is gone)."""
        with self._lock:
            self._answering.discard(session)
            self._waiting.pop(session, None)

    def drop(self, session: str) -> None:
        """Forget the session's waiting questions (the conversation was cleared)."""
        with self._lock:
            self._waiting.pop(session, None)
