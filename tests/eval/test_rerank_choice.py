"""Reranking per DocSet: measured by the DocSet's evaluation, saved with it, used by answers.

The chat model is the fake OpenAI server; its reranking replies are an oracle (the gold
passage first) or the fused order reversed, so whether reranking helps is known.
"""

import json
import re
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from ragspace.actions import Actions
from ragspace.answering.prompts import RERANK_SYSTEM
from ragspace.eval.rerank_choice import rerank_delta
from ragspace.ingestion.worker import Ingestor
from ragspace.models import SearchQuery
from ragspace.sources.files import UploadedFile
from ragspace_ui.evaluate_panel import (
    apply_rerank_choice,
    rerank_action,
    rerank_delta_text,
    run_evaluation,
)
from tests.fakes.chat_server import FakeChat

# a vague question whose gold section (Requirements, lines 6-10) fusion ranks fifth
QUESTIONS = (
    '{"question": "What does the service need to run?",'
    ' "relevant": ["deployment-guide.md#L6-L10"]}\n'
    '{"question": "How long are daily backup copies kept?",'
    ' "relevant": ["deployment-guide.md#L31-L35"]}\n'
)
GOLD_START = {"What does the service": 6, "How long": 31}
PASSAGE = re.compile(r'<passage number="(\d+)" source="[^"]* \(lines (\d+)-(\d+)\)">')


def _rerank_reply(order: Callable[[str, list[tuple[int, int, int]]], list[int]]) -> Any:
    """A fake chat reply: rerank requests get `order(question, passages)`, others "OK"."""

    def reply(request: dict[str, Any]) -> str:
        system, user = (m["content"] for m in request["messages"][:2])
        if system != RERANK_SYSTEM:
            return "OK"
        passages = [(int(n), int(a), int(b)) for n, a, b in PASSAGE.findall(user)]
        return json.dumps({"ranking": order(user, passages)})

    return reply


def _oracle(user: str, passages: list[tuple[int, int, int]]) -> list[int]:
    """The passage holding the gold lines first, the rest in the fused order."""
    start = next(line for prefix, line in GOLD_START.items() if prefix in user)
    gold = [n for n, a, b in passages if a <= start <= b]
    return gold + [n for n, _, _ in passages if n not in gold]


def _reversed(_user: str, passages: list[tuple[int, int, int]]) -> list[int]:
    return [n for n, _, _ in reversed(passages)]


@pytest.fixture
def upload(tmp_path: Path) -> str:
    path = tmp_path / "handbook-questions.jsonl"
    path.write_text(QUESTIONS, encoding="utf-8")
    return str(path)


def _rerank_requests(fake_chat: FakeChat) -> int:
    return sum(r["messages"][0]["content"] == RERANK_SYSTEM for r in fake_chat.requests)


def test_reranking_that_helps_is_shown_and_kept_with_its_scores(
    chat_service: Actions, fake_chat: FakeChat, upload: str
) -> None:
    fake_chat.reply = _rerank_reply(_oracle)
    _, report = run_evaluation(chat_service, "handbook", upload, False)
    delta = rerank_delta(report)
    assert delta is not None and delta.questions == 2
    assert delta.fused.chunk["mrr@10"] < 1.0  # the premise: fusion misses one first place
    assert delta.reranked.chunk["mrr@10"] == 1.0 and delta.helps
    text = rerank_delta_text(delta, chat_service.docsets.get("handbook"))
    assert "**Reranking helps here**" in text
    assert f"| MRR@10 | {delta.fused.chunk['mrr@10']:.3f} | 1.000 | +" in text
    assert "are reranked by the chat model now" in text
    assert rerank_action(delta) == "Rerank answers over handbook"

    saved = apply_rerank_choice(chat_service, report)
    docset = chat_service.docsets.get("handbook")
    assert docset.rerank
    evaluated = re.match(
        r"evaluated (\d{4}-\d\d-\d\d) on 2 questions: Recall@5 ", docset.rerank_evidence or ""
    )
    assert evaluated is not None, docset.rerank_evidence
    assert docset.rerank_evidence == delta.evidence(date.fromisoformat(evaluated[1]))
    assert (
        saved.endswith("**Saved**, with these scores.")
        and "reranked by the chat model now" in saved
    )
    asked = _rerank_requests(fake_chat)
    chat_service.answers.answer(
        SearchQuery(question="How long are daily backup copies kept?", docsets=("handbook",))
    )
    assert _rerank_requests(fake_chat) == asked + 1


def test_reranking_that_hurts_is_turned_off_for_that_docset_only(
    chat_service: Actions, fake_chat: FakeChat, ingestor: Ingestor, upload: str
) -> None:
    fake_chat.reply = _rerank_reply(_reversed)
    _, report = run_evaluation(chat_service, "handbook", upload, False)
    delta = rerank_delta(report)
    assert delta is not None and not delta.helps
    assert "**Reranking does not help here**" in rerank_delta_text(
        delta, chat_service.docsets.get("handbook")
    )
    assert rerank_action(delta) == "Keep the fused order for handbook"
    assert "are kept in the fused order now" in apply_rerank_choice(chat_service, report)
    assert not chat_service.docsets.get("handbook").rerank

    chat_service.docsets.create("notes")  # never evaluated: reranked, the default
    notes = [
        UploadedFile("backups.md", b"# Backups\n\nDaily backups are kept for two weeks.\n"),
        UploadedFile("restores.md", b"# Restores\n\nRestores are tested every month.\n"),
    ]
    chat_service.sources.add_files("notes", notes)
    ingestor.process_all()
    cases = ((["handbook"], False), (["handbook", "notes"], False), (["notes"], True))
    for docsets, reranked in cases:
        asked = _rerank_requests(fake_chat)
        chat_service.answers.answer(
            SearchQuery(question="How long are daily backup copies kept?", docsets=tuple(docsets))
        )
        assert _rerank_requests(fake_chat) == asked + reranked, docsets
