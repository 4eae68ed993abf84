"""Answer grading by a chat model with a fixed rubric: correctness and citation faithfulness."""

import json
import logging
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from ragspace.answering.citations import passage_label
from ragspace.answering.llm import ChatModel
from ragspace.answering.prompts import (
    JUDGE_CORRECTNESS_SYSTEM,
    JUDGE_CORRECTNESS_USER,
    JUDGE_FAITHFULNESS_SYSTEM,
    JUDGE_FAITHFULNESS_USER,
    passage_block,
)
from ragspace.errors import LLMError
from ragspace.models import Answer, Message, Passage

log = logging.getLogger(__name__)

CORRECTNESS_SCORES = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}
SUPPORT_SCORES = {"supported": 1.0, "partial": 0.5, "unsupported": 0.0}
PASSAGE_CHARS = 1500
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_CITED = re.compile(r"\[(\s*\d+\s*(?:,\s*\d+\s*)*)\]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


class Claim(BaseModel):
    """One cited sentence of an answer and the judge's verdict on its support."""

    sentence: str
    cited: list[int]
    verdict: str | None = None  # None: the judge's reply could not be read

    @property
    def score(self) -> float | None:
        """1 supported, 0.5 partial, 0 unsupported."""
        return SUPPORT_SCORES.get(self.verdict or "")


class GradedAnswer(BaseModel):
    """The judge's verdicts on one generated answer."""

    question: str
    answer: str
    verdict: str | None = None  # correctness; None when unreadable or no reference
    reason: str = ""
    claims: list[Claim] = []
    # the quote check of each citation: verified, paraphrased or unsupported
    quote_checks: list[str] = []

    @property
    def correctness(self) -> float | None:
        """1 correct, 0.5 partial, 0 incorrect."""
        return CORRECTNESS_SCORES.get(self.verdict or "")


def parse_json_object(reply: str) -> dict[str, Any] | None:
    """The JSON object in a model reply (bare, fenced or amid prose), or None."""
    fenced = _FENCE.search(reply)
    text = fenced.group(1) if fenced else reply
    match = _OBJECT.search(text)
    if match is None:
        return None
    try:
        value = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def parse_verdict(reply: str, allowed: Sequence[str]) -> tuple[str | None, str]:
    """(verdict, reason) from the judge's reply; falls back to the first verdict word."""
    value = parse_json_object(reply)
    if value is not None:
        verdict = str(value.get("verdict", "")).strip().lower()
        if verdict in allowed:
            return verdict, str(value.get("reason", ""))
    words = re.findall(r"[a-z]+", reply.lower())
    found = next((w for w in words if w in allowed), None)
    return found, ""


def parse_claim_verdicts(reply: str, count: int) -> list[str | None]:
    """One verdict per claim 1..count; claims the reply does not judge get None."""
    verdicts: list[str | None] = [None] * count
    value = parse_json_object(reply)
    entries = value.get("claims") if value else None
    if not isinstance(entries, list):
        return verdicts
    for position, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        verdict = str(entry.get("verdict", "")).strip().lower()
        number = entry.get("claim", position + 1)
        index = int(number) - 1 if str(number).isdigit() else position
        if verdict in SUPPORT_SCORES and 0 <= index < count:
            verdicts[index] = verdict
    return verdicts


def cited_sentences(text: str) -> list[tuple[str, list[int]]]:
    """Sentences of an answer that cite passages, with the passage numbers they cite."""
    found = []
    for sentence in _SENTENCE_END.split(text):
        numbers = [int(n) for group in _CITED.findall(sentence) for n in group.split(",")]
        if numbers and sentence.strip():
            found.append((sentence.strip(), list(dict.fromkeys(numbers))))
    return found


class AnswerGrader:
    """Asks a chat model to grade answers; a failed call leaves that verdict empty."""

    def __init__(self, chat: ChatModel, timeout_seconds: float = 60.0) -> None:
        self._chat = chat
        self._timeout = timeout_seconds

    def grade(self, question: str, reference: str, answer: Answer) -> GradedAnswer:
        """Correctness against the reference (when given) and support of each cited sentence."""
        graded = GradedAnswer(
            question=question,
            answer=answer.text,
            quote_checks=[c.verification or "unsupported" for c in answer.citations],
        )
        if reference:
            verdict, reason = self._correctness(question, reference, answer.text)
            graded = graded.model_copy(update={"verdict": verdict, "reason": reason})
        claims = self._faithfulness(answer.text, answer.passages)
        return graded.model_copy(update={"claims": claims})

    def _correctness(self, question: str, reference: str, answer: str) -> tuple[str | None, str]:
        prompt = JUDGE_CORRECTNESS_USER.format(
            question=question, reference=reference, answer=answer
        )
        reply = self._ask(JUDGE_CORRECTNESS_SYSTEM, prompt)
        return parse_verdict(reply, list(CORRECTNESS_SCORES)) if reply else (None, "")

    def _faithfulness(self, text: str, passages: Sequence[Passage]) -> list[Claim]:
        by_number = {p.number: p for p in passages}
        claims = [
            Claim(sentence=s, cited=[n for n in cited if n in by_number])
            for s, cited in cited_sentences(text)
        ]
        claims = [c for c in claims if c.cited]
        if not claims:
            return []
        blocks = [
            f"Claim {i}: {c.sentence}\n"
            + "\n".join(
                passage_block(n, passage_label(by_number[n]), by_number[n].content[:PASSAGE_CHARS])
                for n in c.cited
            )
            for i, c in enumerate(claims, start=1)
        ]
        reply = self._ask(
            JUDGE_FAITHFULNESS_SYSTEM, JUDGE_FAITHFULNESS_USER.format(claims="\n\n".join(blocks))
        )
        verdicts = parse_claim_verdicts(reply, len(claims)) if reply else [None] * len(claims)
        return [c.model_copy(update={"verdict": v}) for c, v in zip(claims, verdicts, strict=True)]

    def _ask(self, system: str, user: str) -> str:
        messages: list[Message] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        try:
            return self._chat.complete(messages, timeout=self._timeout)
        except LLMError as exc:
            log.warning("The judge model failed; this verdict stays empty: %s", exc)
            return ""
