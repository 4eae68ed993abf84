"""A follow-up question searched with the conversation's subject, without a model."""

import pytest

from ragspace.answering.follow_up import standalone
from ragspace.models import Message

ABOUT_PREPARED: list[Message] = [
    {"role": "user", "content": "What is PreparedRequest?"},
    {"role": "assistant", "content": "The fully mutable request object [1]."},
]


@pytest.mark.parametrize(
    ("follow_up", "searched"),
    [
        ("And where is it defined?", "Where is PreparedRequest defined?"),
        ("What calls it?", "What calls PreparedRequest?"),
        ("What are its attributes?", "What are PreparedRequest's attributes?"),
        ("And the tests?", "And the tests? (PreparedRequest)"),
        # a question with a subject of its own is searched as asked
        ("Where is Session.send defined?", "Where is Session.send defined?"),
        (
            "Is it possible to send a request with a body of zero bytes?",
            "Is it possible to send a request with a body of zero bytes?",
        ),
    ],
)
def test_a_follow_up_gets_the_subject_of_the_question_before(follow_up: str, searched: str) -> None:
    assert standalone(follow_up, ABOUT_PREPARED) == searched


def test_a_subject_is_taken_from_the_latest_question_that_names_one() -> None:
    history: list[Message] = [
        {"role": "user", "content": "How does `merge_setting` work?"},
        {"role": "assistant", "content": "It merges [1]."},
        {"role": "user", "content": "And why?"},
        {"role": "assistant", "content": "Because [2]."},
    ]
    assert standalone("Where is it called?", history) == "Where is merge_setting called?"


def test_without_names_the_earlier_questions_words_are_the_subject() -> None:
    history: list[Message] = [{"role": "user", "content": "How are retries configured?"}]
    assert standalone("And the default?", history) == "And the default? (retries configured)"


def test_a_first_question_is_searched_as_asked() -> None:
    assert standalone("What does it return?", []) == "What does it return?"
