"""An answer written by a chat model, checked before it is shown as final.

Real models, small local ones above all, drop citations, cite passages they were not given,
quote words that are not in the passage, answer with nothing or run on (issue 69). Each case
ends in a useful answer: an invented `[n]` is removed, a quote is labelled verified,
paraphrased or unsupported, a reply that cites nothing keeps the extractive answer beside
it, an empty reply or a failed call becomes the extractive answer, and a reply is cut at
MAX_ANSWER_CHARS.
"""

from collections.abc import Callable, Iterator, Sequence

from ragspace.answering.citations import verify_citations
from ragspace.answering.llm import ChatModel
from ragspace.answering.quotes import split_quotes, verify_quotes
from ragspace.errors import LLMError
from ragspace.models import Answer, AnswerUpdate, Message, Passage

MAX_ANSWER_CHARS = 8_000  # a reply longer than this is cut (and said to be)
Fallback = Callable[[str, list[Passage]], Answer]  # the extractive answer


def generated_answer(
    chat: ChatModel,
    messages: Sequence[Message],
    question: str,
    passages: list[Passage],
    fallback: Fallback,
) -> Iterator[AnswerUpdate]:
    """The model's answer as it streams, then the checked final one."""
    text, cut = "", False
    try:
        for piece in chat.stream(messages):
            text += piece
            if len(text) > MAX_ANSWER_CHARS:
                text, cut = text[:MAX_ANSWER_CHARS], True
                break
            # the quotes are checked, not shown: the reader sees the answer without them
            yield AnswerUpdate(text=split_quotes(text)[0], done=False)
    except LLMError as exc:
        yield _final(fallback(question, passages).noted(f"{exc} {INSTEAD}"))
        return
    claims, quotes = split_quotes(text)
    cleaned, citations = verify_citations(claims, passages, question)
    if not cleaned.strip():
        yield _final(fallback(question, passages).noted(EMPTY))
        return
    citations = verify_quotes(citations, passages, quotes)
    answer = Answer(text=cleaned, citations=citations, passages=passages)
    if cut:
        answer = answer.noted(CUT)
    if not citations:
        answer = _beside_extractive(answer, fallback(question, passages))
    yield _final(answer)


INSTEAD = "Showing the most relevant passages instead."
EMPTY = f"The chat model returned an empty answer. {INSTEAD}"
CUT = f"The chat model's answer ran past {MAX_ANSWER_CHARS:,} characters and was cut there."
UNCITED = "The chat model cited no passage; the passages that match best:"


def _beside_extractive(answer: Answer, extractive: Answer) -> Answer:
    """A reply that cites nothing, with the extractive answer under it: every claim a reader
    sees cited is cited by the passages themselves."""
    text = f"{answer.text}\n\n_{UNCITED}_\n\n{extractive.text}"
    return answer.model_copy(
        update={
            "text": text,
            "citations": extractive.citations,
            "notes": [*answer.notes, UNCITED],
        }
    )


def _final(answer: Answer) -> AnswerUpdate:
    return AnswerUpdate(text=answer.text, done=True, answer=answer)
