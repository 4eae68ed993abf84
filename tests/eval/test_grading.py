"""Answer grading: the judge (a chat model faked at the HTTP boundary) and its parsing."""

from typing import Any

import pytest

from ragspace.actions import Actions
from ragspace.answering.prompts import (
    ANSWER_SYSTEM,
    JUDGE_CORRECTNESS_SYSTEM,
    JUDGE_FAITHFULNESS_SYSTEM,
    RERANK_SYSTEM,
)
from ragspace.embedding.embedders import Embedder
from ragspace.eval.datasets import parse_question_set
from ragspace.eval.grading import cited_sentences, parse_claim_verdicts, parse_verdict
from ragspace.eval.runner import ALL_MODES, RERANK, EvalOptions, grading_text
from ragspace.ingestion.worker import Ingestor
from ragspace.runtime import build_actions
from ragspace.settings import Settings
from ragspace.store import Store
from tests.eval.test_eval_runner import handbook_docset
from tests.fakes.chat_server import FakeChat, chat_model_of

QUESTIONS = "\n".join(
    [
        '{"question": "How do I install the tool on Windows?", "answer": "Run the MSI installer.",'
        ' "relevant": ["install.md#L7-L10"]}',
        '{"question": "When are invoices emailed?", "answer": "On the first day of the month.",'
        ' "relevant": ["billing.md"]}',
    ]
)
ANSWER = (
    "You run the MSI installer [1]. Then you reboot [1]. That is all.\n\n"
    'Quotes:\n[1] "Download the MSI installer and run it."'
)
FAITHFULNESS = (
    '{"claims": [{"claim": 1, "verdict": "supported"}, {"claim": 2, "verdict": "unsupported"}]}'
)


@pytest.fixture
def chat_service(
    settings: Settings,
    store: Store,
    embedder: Embedder,
    ingestor: Ingestor,
    fake_chat: FakeChat,
) -> Actions:
    service = build_actions(settings, store, embedder, chat=chat_model_of(fake_chat))
    handbook_docset(service, ingestor)
    return service


def _judge(request: dict[str, Any]) -> str:
    system, user = (m["content"] for m in request["messages"][:2])
    if system == RERANK_SYSTEM:
        return '{"ranking": [1, 2]}'
    if system == ANSWER_SYSTEM:
        return ANSWER
    if system == JUDGE_CORRECTNESS_SYSTEM:
        if "Windows" in user:
            return '```json\n{"verdict": "correct", "reason": "Same facts."}\n```'
        return "Having read both, my verdict is: partial."
    if system == JUDGE_FAITHFULNESS_SYSTEM:
        return FAITHFULNESS
    raise AssertionError(f"unexpected prompt {system[:60]!r}")


def test_judge_verdicts_are_parsed_and_aggregated(
    chat_service: Actions, fake_chat: FakeChat
) -> None:
    """Correctness (1 + 0.5) / 2; faithfulness 2 supported of 4 cited sentences; rerank runs."""
    fake_chat.reply = _judge
    questions = parse_question_set(QUESTIONS, "handbook")
    report = chat_service.evaluation.run("handbook", questions, EvalOptions(k=5))
    assert [m.mode for m in report.modes] == list(ALL_MODES)
    assert report.notes == []
    grading = report.grading
    assert grading is not None
    assert (grading.answers, grading.correctness, grading.correctness_judged) == (2, 0.75, 2)
    assert (grading.faithfulness, grading.claims_judged) == (0.5, 4)
    assert grading.answers_without_citations == 0
    # the quote is in install.md, passage [1] of the Windows question only
    assert [g.quote_checks for g in grading.graded] == [["verified"], ["unsupported"]]
    assert grading.quote_checks == {"verified": 0.5, "paraphrased": 0.0, "unsupported": 0.5}
    assert "Quotes: verified 50%, paraphrased 0%, unsupported 50%." in grading_text(grading)
    first = grading.graded[0]
    assert (first.verdict, first.reason) == ("correct", "Same facts.")
    assert [c.sentence for c in first.claims] == [
        "You run the MSI installer [1].",
        "Then you reboot [1].",
    ]
    assert [c.verdict for c in first.claims] == ["supported", "unsupported"]
    prompts = [r["messages"] for r in fake_chat.requests]
    judged = [m[1]["content"] for m in prompts if m[0]["content"] == JUDGE_CORRECTNESS_SYSTEM]
    assert "Reference answer:\nRun the MSI installer." in judged[0]
    checked = [m[1]["content"] for m in prompts if m[0]["content"] == JUDGE_FAITHFULNESS_SYSTEM]
    assert checked[0].startswith(
        'Claim 1: You run the MSI installer [1].\n<passage number="1" source="install.md (lines'
    )
    reranks = [m for m in prompts if m[0]["content"] == RERANK_SYSTEM]
    assert len(reranks) >= len(questions.queries)  # each question in the rerank mode
    assert report.modes[-1].mode == RERANK and report.modes[-1].file["hit@5"] == 1.0


def test_unreadable_or_failed_judging_leaves_verdicts_empty(
    chat_service: Actions, fake_chat: FakeChat
) -> None:
    """Nonsense from the judge counts as not judged, never as a score."""

    def nonsense(request: dict[str, Any]) -> str:
        system = request["messages"][0]["content"]
        return ANSWER if system == ANSWER_SYSTEM else "I cannot grade this."

    fake_chat.reply = nonsense
    questions = parse_question_set(QUESTIONS, "handbook")
    report = chat_service.evaluation.run("handbook", questions, EvalOptions(modes=("hybrid",)))
    assert report.grading is not None
    assert report.grading.correctness is None and report.grading.correctness_judged == 0
    assert report.grading.faithfulness is None and report.grading.claims_judged == 0
    assert report.grading.graded[0].claims[0].verdict is None


def test_without_a_key_grading_is_skipped_with_a_note(service: Actions, ingestor: Ingestor) -> None:
    """No chat model: no rerank mode, no grading, and the report says why."""
    handbook_docset(service, ingestor)
    report = service.evaluation.run("handbook", parse_question_set(QUESTIONS, "handbook"))
    assert report.grading is None
    assert RERANK not in [m.mode for m in report.modes]
    assert report.notes == [
        f"{RERANK} skipped: no chat model is configured (set OPENAI_API_KEY).",
        "Answer grading skipped: no chat model is configured (set OPENAI_API_KEY).",
    ]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"verdict": "correct", "reason": "ok"}', ("correct", "ok")),
        ('```json\n{"verdict": "Partial", "reason": "half"}\n```', ("partial", "half")),
        (
            'Sure. {"verdict": "incorrect", "reason": "wrong"} Hope this helps',
            ("incorrect", "wrong"),
        ),
        ("Verdict: correct", ("correct", "")),
        ('{"verdict": "maybe"}', (None, "")),
        ("", (None, "")),
    ],
)
def test_correctness_verdicts_are_parsed_robustly(
    reply: str, expected: tuple[str | None, str]
) -> None:
    assert parse_verdict(reply, ["correct", "partial", "incorrect"]) == expected


def test_claim_verdicts_by_number_or_position() -> None:
    """Numbered entries land on their claim; unknown verdicts and numbers are ignored."""
    reply = (
        '```json\n{"claims": [{"claim": 3, "verdict": "partial"}, {"verdict": "supported"},'
        ' {"claim": 9, "verdict": "supported"}, {"claim": 2, "verdict": "perhaps"}]}\n```'
    )
    assert parse_claim_verdicts(reply, 3) == [None, "supported", "partial"]
    assert parse_claim_verdicts("no JSON at all", 2) == [None, None]


def test_cited_sentences_are_split_with_their_passage_numbers() -> None:
    text = "Install it [1][2]. Nothing cited here.\nRestart [2, 3]! Done."
    assert cited_sentences(text) == [("Install it [1][2].", [1, 2]), ("Restart [2, 3]!", [2, 3])]
