"""Listwise reranking by the chat model, falling back to the fused order on any failure."""

import json
import logging
import re
from collections.abc import Sequence

from ragspace.answering.llm import ChatModel
from ragspace.answering.prompts import RERANK_SYSTEM, RERANK_USER, passage_block
from ragspace.models import Hit, Message

log = logging.getLogger(__name__)

PASSAGE_CHARS = 700
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_JSON_VALUE = re.compile(r"(\{.*\}|\[.*\])", re.DOTALL)


def parse_ranking(reply: str, count: int) -> list[int]:
    """0-based order from a reply naming passages 1..count; bad or missing ones are repaired."""
    numbers = _numbers_in(reply)
    order: list[int] = []
    for number in numbers:
        if 1 <= number <= count and number - 1 not in order:
            order.append(number - 1)
    if not order:
        raise ValueError(f"no passage number in the reranker's reply: {reply[:200]!r}")
    return order + [i for i in range(count) if i not in order]


def _numbers_in(reply: str) -> list[int]:
    fenced = _FENCE.search(reply)
    text = fenced.group(1) if fenced else reply
    match = _JSON_VALUE.search(text)
    if match:
        try:
            value = json.loads(match.group(1))
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            value = value.get("ranking", next(iter(value.values()), None))
        if isinstance(value, list):
            return [int(v) for v in value if isinstance(v, int | float | str) and str(v).isdigit()]
    return [int(n) for n in re.findall(r"\d+", text)]


class Reranker:
    """Asks the chat model to order passages; never fails the caller."""

    def __init__(self, chat: ChatModel, timeout_seconds: float) -> None:
        self._chat = chat
        self._timeout = timeout_seconds

    def rerank(self, question: str, hits: Sequence[Hit]) -> list[Hit]:
        """Hits in the model's order, or unchanged if the model fails or answers nonsense."""
        if len(hits) < 2:
            return list(hits)
        passages = "\n\n".join(
            passage_block(
                number,
                f"{hit.path} (lines {hit.start_line}-{hit.end_line})",
                hit.content[:PASSAGE_CHARS],
            )
            for number, hit in enumerate(hits, start=1)
        )
        messages: list[Message] = [
            {"role": "system", "content": RERANK_SYSTEM},
            {"role": "user", "content": RERANK_USER.format(question=question, passages=passages)},
        ]
        try:
            reply = self._chat.complete(messages, timeout=self._timeout)
            order = parse_ranking(reply, len(hits))
        except Exception as exc:  # a reranker failure must never fail the search
            log.warning("Reranking failed, keeping the fused order: %s", exc)
            return list(hits)
        return [hits[i] for i in order]
