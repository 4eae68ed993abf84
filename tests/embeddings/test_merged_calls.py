"""Calls from several threads, run together: each caller gets its own rows, a failure stays
with the caller whose texts caused it, and the real model's vectors do not change."""

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import pytest

from ragspace.embedding.embedders import LocalEmbedder
from ragspace.embedding.merged_calls import MergedCalls, Rows

WAIT_SECONDS = 10.0  # a deadline for events that come in milliseconds


def _wait_for(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, "the event never came"
        time.sleep(0.005)


class HeldRun:
    """Rows are the texts as numbers; the first call waits until released, so that the
    callers arriving meanwhile queue up behind it."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.release = threading.Event()

    def __call__(self, texts: Sequence[str]) -> Rows:
        self.calls.append(list(texts))
        if len(self.calls) == 1:
            self.release.wait(WAIT_SECONDS)
        if "bad" in texts:
            raise ValueError("cannot embed 'bad'")
        return np.array([[float(len(t))] for t in texts], dtype=np.float32)


def _queue_behind_a_held_call(
    run: HeldRun, merged: MergedCalls, groups: list[list[str]], callers: ThreadPoolExecutor
) -> list[Future[Rows]]:
    first = callers.submit(merged, ["x"])
    _wait_for(lambda: len(run.calls) == 1)
    futures = [first]
    for number, texts in enumerate(groups, start=1):  # one at a time: a known queue order
        futures.append(callers.submit(merged, texts))
        _wait_for(lambda n=number: merged._waiting.qsize() == n)  # type: ignore[misc]
    run.release.set()
    return futures


def test_callers_waiting_together_are_run_in_one_call_and_get_their_own_rows() -> None:
    run = HeldRun()
    merged = MergedCalls(run, max_texts=100, name="test-merge")
    groups = [["aa", "bbb"], ["c"], ["dddd", "e", "ffffff"]]
    with ThreadPoolExecutor(max_workers=4) as callers:
        futures = _queue_behind_a_held_call(run, merged, groups, callers)
        results = [future.result(WAIT_SECONDS) for future in futures]
    assert run.calls == [["x"], ["aa", "bbb", "c", "dddd", "e", "ffffff"]]
    assert [r[:, 0].tolist() for r in results] == [[1.0], [2.0, 3.0], [1.0], [4.0, 1.0, 6.0]]


def test_a_merged_call_stops_taking_callers_at_its_size() -> None:
    run = HeldRun()
    merged = MergedCalls(run, max_texts=3, name="test-merge")
    with ThreadPoolExecutor(max_workers=4) as callers:
        futures = _queue_behind_a_held_call(run, merged, [["a", "b"], ["c"], ["d"]], callers)
        for future in futures:
            future.result(WAIT_SECONDS)
    assert run.calls == [["x"], ["a", "b", "c"], ["d"]]


def test_a_failing_text_fails_only_its_own_caller() -> None:
    run = HeldRun()
    merged = MergedCalls(run, max_texts=100, name="test-merge")
    with ThreadPoolExecutor(max_workers=4) as callers:
        futures = _queue_behind_a_held_call(run, merged, [["ok"], ["bad"], ["fine"]], callers)
        good, bad, fine = futures[1:]
        assert good.result(WAIT_SECONDS)[:, 0].tolist() == [2.0]
        assert fine.result(WAIT_SECONDS)[:, 0].tolist() == [4.0]
        with pytest.raises(ValueError, match="cannot embed 'bad'"):
            bad.result(WAIT_SECONDS)
    # together first, then each caller alone
    assert run.calls == [["x"], ["ok", "bad", "fine"], ["ok"], ["bad"], ["fine"]]


def test_the_local_model_gives_the_same_vectors_to_callers_embedded_together(
    local_model: LocalEmbedder,
) -> None:
    documents = [
        ["def wrap(text, width):", "    return textwrap.wrap(text, width)"],
        ["Installation", "pip install ragspace and run the app", "Configuration options"],
        ["class Checker:", "    name = 'format'", "    def visit_module(self, node):"],
    ] * 4
    alone = [local_model.embed(texts) for texts in documents]
    with ThreadPoolExecutor(max_workers=len(documents)) as callers:
        together = list(callers.map(local_model.embed, documents))
    for one, other in zip(alone, together, strict=True):
        assert one.shape == other.shape
        cosines = np.sum(one * other, axis=1)
        assert cosines.min() > 0.999  # int8 activations are quantised per batch
