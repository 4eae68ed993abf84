"""Calls from several threads, run together on one thread.

The local model embeds a document's chunks per call, and a small file has a few chunks: the
model then works on short, badly matched batches. When several ingestion threads wait at
once, one call over all their texts lets the embedder sort every waiting text by length
(pylint's small files, bench/workers_scale.py: see docs/benchmarks.md, Scale). A call that
fails for a group is run again for each caller alone, so one bad document fails only itself.
"""

import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

Rows = npt.NDArray[np.float32]


@dataclass
class _Call:
    texts: Sequence[str]
    result: "Future[Rows]" = field(default_factory=Future)


class MergedCalls:
    """`run(texts)` on one long-lived thread, every waiting caller's texts in one call (up
    to about `max_texts`); each caller gets its own rows back, in order."""

    def __init__(self, run: Callable[[Sequence[str]], Rows], max_texts: int, name: str) -> None:
        self._run = run
        self._max_texts = max_texts
        self._waiting: queue.SimpleQueue[_Call] = queue.SimpleQueue()
        threading.Thread(target=self._serve, name=name, daemon=True).start()

    def __call__(self, texts: Sequence[str]) -> Rows:
        """The rows of `texts`, computed with whatever other callers wait at the same time."""
        call = _Call(texts)
        self._waiting.put(call)
        return call.result.result()

    def _serve(self) -> None:
        while True:
            self._run_together(self._take_waiting())

    def _take_waiting(self) -> list[_Call]:
        calls = [self._waiting.get()]
        count = len(calls[0].texts)
        while count < self._max_texts:
            try:
                calls.append(self._waiting.get_nowait())
            except queue.Empty:
                break
            count += len(calls[-1].texts)
        return calls

    def _run_together(self, calls: list[_Call]) -> None:
        try:
            rows = self._run([text for call in calls for text in call.texts])
        except BaseException as exc:
            if len(calls) == 1:
                calls[0].result.set_exception(exc)
                return
            for call in calls:  # each alone: only the caller whose texts fail gets the error
                self._run_together([call])
            return
        start = 0
        for call in calls:
            call.result.set_result(rows[start : start + len(call.texts)])
            start += len(call.texts)
