"""A follow-up question made standalone without a language model.

"And where is it defined?" after "What is PreparedRequest?" is searched as "And where is
PreparedRequest defined?": the pronoun is replaced by the subject of the conversation, the
names the user asked about last (issue 69). A question that names its own subject, or that
has no earlier question to lean on, is searched as asked. With a chat model the model
rewrites instead (AnswerPipeline._standalone).
"""

import re
from collections.abc import Sequence

from ragspace.models import Message
from ragspace.text.terms import terms

# names a question is about: `quoted`, CamelCase, snake_case or dotted
_QUOTED = re.compile(r"`([^`\n]{1,80})`")
_CODE_NAME = re.compile(
    r"\b(?:[A-Za-z_]\w*(?:\.|::))+[A-Za-z_]\w*\b|\b[A-Za-z]*[a-z][A-Z]\w*\b|"
    r"\b[A-Z]\w*[A-Z]\w*\b|\b\w+_\w+\b"
)
_WORD = re.compile(r"[A-Za-z][\w.-]*")
_PRONOUN = re.compile(r"\b(it|its|this|that one|these|those|they|them|their)\b", re.IGNORECASE)
_POSSESSIVE = {"its", "their"}
_LEANS_ON = re.compile(r"^\s*(and|also|what about|how about|then|so)\b", re.IGNORECASE)
MAX_SUBJECT_WORDS = 6
FEW_TERMS = 3  # a question with more words of its own than this has a subject of its own


def subject(question: str) -> str:
    """The names a question is about (`quoted` or code names), '' when it gives none."""
    return " ".join(code_names(question))


def code_names(question: str) -> list[str]:
    """The names a question gives: `quoted` ones, else CamelCase, snake_case or dotted."""
    names = _QUOTED.findall(question) or _CODE_NAME.findall(question)
    return list(dict.fromkeys(n.strip().removesuffix("()") for n in names if n.strip()))


def content_words(question: str) -> str:
    """A question's words that say something (no stop words), as written."""
    return " ".join(w for w in _WORD.findall(question) if terms(w))


def standalone(question: str, history: Sequence[Message]) -> str:
    """The question with the conversation's subject put where it leans on an earlier turn
    (a pronoun, or "and ..." with no subject of its own); as asked otherwise."""
    if not history or subject(question) or len(terms(question)) > FEW_TERMS:
        return question
    earlier = _earlier_subject(history)
    if not earlier:
        return question
    pronoun = _PRONOUN.search(question)
    if pronoun is not None:
        said = f"{earlier}'s" if pronoun.group(1).lower() in _POSSESSIVE else earlier
        rewritten = question[: pronoun.start()] + said + question[pronoun.end() :]
        rewritten = _LEANS_ON.sub("", rewritten).lstrip(" ,")  # "And where is X defined?"
        return rewritten[:1].upper() + rewritten[1:]
    if _LEANS_ON.match(question) or len(terms(question)) <= 2:
        return f"{question.rstrip()} ({earlier})"
    return question


def _earlier_subject(history: Sequence[Message]) -> str:
    """The names of the latest earlier user question that gives some, else the words of
    the latest one."""
    asked = [m["content"] for m in history if m["role"] == "user"]
    for content in reversed(asked):
        found = subject(content)
        if found:
            return " ".join(found.split()[:MAX_SUBJECT_WORDS])
    words = content_words(asked[-1]).split() if asked else []
    return " ".join(words[:MAX_SUBJECT_WORDS])
