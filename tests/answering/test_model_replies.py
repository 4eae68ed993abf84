"""What a real chat model sends back, replayed by the fake server: every malformed reply
ends in a useful answer with no invented citation, never an error (issue 69).

The replies in tests/data/local_model_replies.json were written by a small local model
(llama.cpp's server, `bench/answer_quality.py` recording them); the cases below replay them
and the shapes they fall into."""

import json
from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.answering.generated import CUT, EMPTY, MAX_ANSWER_CHARS, UNCITED
from ragspace.models import Answer, SearchQuery
from tests.answering.test_answers import _route
from tests.fakes.chat_server import FakeChat

DATA = Path(__file__).parent.parent / "data"
QUESTION = "Which endpoint does the load balancer check?"


def _answer(service: Actions, fake: FakeChat, reply: str, rerank: str = "[1]") -> Answer:
    fake.reply = _route(rerank=rerank, answer=reply, rewrite=QUESTION)
    return service.answers.answer(SearchQuery(question=QUESTION, docsets=("handbook",)))


def _no_invented_citation(answer: Answer) -> None:
    numbers = {p.number for p in answer.passages}
    assert all(c.number in numbers for c in answer.citations)
    cited = {int(n) for n in __import__("re").findall(r"\[(\d+)\]", answer.text)}
    assert cited <= numbers, answer.text


def test_an_empty_reply_becomes_the_extractive_answer(
    chat_service: Actions, fake_chat: FakeChat
) -> None:
    answer = _answer(chat_service, fake_chat, "   \n")
    assert answer.text.startswith(f"_{EMPTY}_")
    assert answer.citations and any(c.verification == "verified" for c in answer.citations)
    _no_invented_citation(answer)


def test_a_reply_citing_only_passages_it_was_not_given_keeps_the_extractive_answer(
    chat_service: Actions, fake_chat: FakeChat
) -> None:
    answer = _answer(chat_service, fake_chat, "The load balancer checks /healthz [7][12].")
    head, _, rest = answer.text.partition(f"_{UNCITED}_")
    assert head.strip() == "The load balancer checks /healthz."
    assert "[1]" in rest and answer.citations
    _no_invented_citation(answer)


def test_a_runaway_reply_is_cut_and_says_so(chat_service: Actions, fake_chat: FakeChat) -> None:
    answer = _answer(chat_service, fake_chat, "Check /healthz [1]. " * 1000)
    assert answer.text.startswith(f"_{CUT}_")
    assert len(answer.text) < MAX_ANSWER_CHARS + 200
    _no_invented_citation(answer)


def test_a_quote_not_in_the_passage_is_labelled_unsupported(
    chat_service: Actions, fake_chat: FakeChat
) -> None:
    reply = 'It checks /healthz [1].\n\nQuotes:\n[1] "the balancer pings /status every second"'
    answer = _answer(chat_service, fake_chat, reply)
    [citation] = answer.citations
    assert citation.verification == "unsupported"
    assert answer.text == "It checks /healthz [1]."


def test_half_a_json_ranking_keeps_the_passages_it_names_first(
    chat_service: Actions, fake_chat: FakeChat
) -> None:
    answer = _answer(chat_service, fake_chat, "It checks /healthz [1].", rerank='{"ranking": [2,')
    assert answer.citations and answer.text == "It checks /healthz [1]."


def _recorded() -> list[dict[str, str]]:
    path = DATA / "local_model_replies.json"
    cases: list[dict[str, str]] = json.loads(path.read_text())["replies"]
    return cases


@pytest.mark.parametrize("case", _recorded(), ids=lambda case: case["id"])
def test_recorded_replies_of_a_local_model_end_in_a_useful_answer(
    chat_service: Actions, fake_chat: FakeChat, case: dict[str, str]
) -> None:
    rerank = case.get("rerank", '{"ranking": [1, 2]}')
    answer = _answer(chat_service, fake_chat, case["reply"], rerank)
    _no_invented_citation(answer)
    assert answer.text.strip() and answer.passages
    assert answer.citations, "every answer a reader gets cites a passage"
    for citation in answer.citations:
        assert citation.verification in {"verified", "paraphrased", "unsupported", None}


def test_the_mode_line_names_the_model_and_host_that_answer(
    chat_service: Actions, fake_chat: FakeChat
) -> None:
    port = fake_chat.base_url.rsplit(":", 1)[-1].split("/", 1)[0]
    assert chat_service.mode.chat_model.endswith(f" at 127.0.0.1:{port}")
