"""Answers with a chat model faked at the HTTP boundary: rerank, stream, cite, fall back."""

import time
from pathlib import Path
from typing import Any

import pytest

from ragspace.actions import Actions
from ragspace.answering.answer import NOTHING_FOUND
from ragspace.answering.llm import OpenAIChatModel
from ragspace.answering.prompts import ANSWER_SYSTEM, RERANK_SYSTEM, REWRITE_SYSTEM
from ragspace.answering.rerank import Reranker, parse_ranking
from ragspace.errors import LLMError
from ragspace.models import SearchQuery
from tests.fakes.chat_server import FakeChat, chat_model_of, stream_pieces

DATA = Path(__file__).parent.parent / "data"


def _route(
    rerank: str = '{"ranking": [1]}', answer: str = "Answer [1].", rewrite: str = "rewritten"
) -> Any:
    def reply(request: dict[str, Any]) -> str:
        system = request["messages"][0]["content"]
        if system == RERANK_SYSTEM:
            return rerank
        if system == REWRITE_SYSTEM:
            return rewrite
        return answer

    return reply


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"ranking": [3, 1, 2]}', [2, 0, 1]),
        ('```json\n{"ranking": [2, 3, 1]}\n```', [1, 2, 0]),
        ("Sure! Here is the order: [3, 1]", [2, 0, 1]),
        ('{"ranking": [2, 2, 9, 0, "1"]}', [1, 0, 2]),
        ("[3]", [2, 0, 1]),
    ],
)
def test_rankings_are_parsed_robustly(reply: str, expected: list[int]) -> None:
    assert parse_ranking(reply, 3) == expected


def test_unusable_ranking_is_rejected() -> None:
    with pytest.raises(ValueError, match="no passage number"):
        parse_ranking("I would rather not say.", 3)


def _hits(service: Actions) -> list[Any]:
    hits = service.search.hits(
        SearchQuery(question="backups and monitoring", docsets=("handbook",), limit=3, floor=False)
    )
    assert len(hits) == 3
    return hits


def test_rerank_applies_the_models_order(chat_service: Actions, fake_chat: FakeChat) -> None:
    hits = _hits(chat_service)
    fake_chat.reply = lambda _: '```json\n{"ranking": [3, 1, 2]}\n```'
    reranked = Reranker(chat_model_of(fake_chat), timeout_seconds=5).rerank("q", hits)
    assert [h.chunk_id for h in reranked] == [hits[2].chunk_id, hits[0].chunk_id, hits[1].chunk_id]
    assert fake_chat.requests[-1]["messages"][0]["content"] == RERANK_SYSTEM


@pytest.mark.parametrize("failure", ["malformed", "timeout", "server_error"])
def test_rerank_falls_back_to_fused_order(
    chat_service: Actions, fake_chat: FakeChat, failure: str
) -> None:
    hits = _hits(chat_service)
    if failure == "malformed":
        fake_chat.reply = lambda _: "no idea"
    elif failure == "timeout":
        fake_chat.delay = 3.0
    else:
        fake_chat.status = 500
    started = time.monotonic()
    reranked = Reranker(chat_model_of(fake_chat), timeout_seconds=1.0).rerank("q", hits)
    assert [h.chunk_id for h in reranked] == [h.chunk_id for h in hits]
    assert time.monotonic() - started < 2.5, "the time budget must bound the wait"


def test_answer_streams_and_drops_hallucinated_citations(
    chat_service: Actions, fake_chat: FakeChat
) -> None:
    raw = "Expose /healthz to the load balancer [1]. Restore backups monthly [9]."
    fake_chat.reply = _route(answer=raw)
    updates = list(
        chat_service.answers.ask(
            SearchQuery(
                question="Which endpoint does the load balancer check?", docsets=("handbook",)
            )
        )
    )
    partial = [u.text for u in updates if not u.done]
    assert partial == [
        raw[: len("".join(stream_pieces(raw)[: i + 1]))] for i in range(len(partial))
    ]
    assert len(partial) == len(stream_pieces(raw))
    final = updates[-1]
    assert final.done and final.answer is not None
    assert final.text == "Expose /healthz to the load balancer [1]. Restore backups monthly."
    assert [c.number for c in final.answer.citations] == [1]
    citation = final.answer.citations[0]
    assert citation.path == "deployment-guide.md"
    lines = (DATA / "deployment-guide.md").read_text().split("\n")
    assert "/healthz" in "\n".join(lines[citation.start_line - 1 : citation.end_line])


def test_prompt_delimits_passages_as_data(chat_service: Actions, fake_chat: FakeChat) -> None:
    fake_chat.reply = _route(answer="ok [1]")
    chat_service.answers.answer(SearchQuery(question="What is a DocSet?", docsets=("handbook",)))
    answer_request = next(
        r for r in fake_chat.requests if r["messages"][0]["content"] == ANSWER_SYSTEM
    )
    user = answer_request["messages"][-1]["content"]
    assert user.count("<passage number=") == user.count("</passage>") >= 1
    assert '<passage number="1" source="glossary.rst (lines' in user
    assert "sk-chat-secret" not in fake_chat.prompt_of()


def test_follow_up_is_rewritten_before_search(chat_service: Actions, fake_chat: FakeChat) -> None:
    fake_chat.reply = _route(rewrite="how often to test restoring backups", answer="Monthly [1].")
    history = [
        {"role": "user", "content": "Tell me about backups."},
        {"role": "assistant", "content": "Nightly pg_dump backups are kept [1]."},
    ]
    answer = chat_service.answers.answer(
        SearchQuery(
            question="How often should we test them?", docsets=("handbook",), history=tuple(history)
        )
    )
    systems = [r["messages"][0]["content"] for r in fake_chat.requests]
    assert systems[0] == REWRITE_SYSTEM
    assert "Tell me about backups." in fake_chat.prompt_of(0)
    assert answer.citations[0].path == "deployment-guide.md"
    assert "restore" in answer.passages[0].content.lower()


def test_nothing_relevant_is_said_plainly(chat_service: Actions, fake_chat: FakeChat) -> None:
    chat_service.docsets.create("empty")
    answer = chat_service.answers.answer(
        SearchQuery(question="Which endpoint does the load balancer check?", docsets=("empty",))
    )
    assert answer.text.startswith("Nothing to search in 'empty'") and answer.text != NOTHING_FOUND
    assert answer.citations == []
    assert fake_chat.requests == []


def test_chat_model_failure_shows_passages_instead(
    chat_service: Actions, fake_chat: FakeChat
) -> None:
    fake_chat.status = 500
    answer = chat_service.answers.answer(
        SearchQuery(question="Which endpoint does the load balancer check?", docsets=("handbook",))
    )
    assert "answered 500" in answer.text
    assert answer.citations and answer.citations[0].path == "deployment-guide.md"
    assert "sk-chat-secret" not in answer.text


@pytest.mark.parametrize(
    ("raw", "content_type"),
    [
        (b"<html>502 Bad Gateway</html>", "text/html"),
        (b'{"choices": [{"index": 0, "message": ', "application/json"),
        (b'{"status": "ok"}', "application/json"),
    ],
)
def test_a_malformed_chat_reply_is_a_clear_error_naming_the_service(
    fake_chat: FakeChat, raw: bytes, content_type: str
) -> None:
    fake_chat.raw = (raw, content_type)
    model = OpenAIChatModel("sk-chat-secret", "gpt-test", fake_chat.base_url, max_retries=2)
    with pytest.raises(LLMError) as caught:
        model.complete([{"role": "user", "content": "hi"}])
    assert "chat API" in str(caught.value) and "malformed reply" in str(caught.value)
    assert fake_chat.base_url in str(caught.value)
    assert len(fake_chat.requests) == 1  # not retried
