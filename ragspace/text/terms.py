"""The words of a text that say something, by stem: what questions, lines and quotes share."""

import itertools
import re
import threading
from functools import lru_cache

import snowballstemmer
from snowballstemmer.basestemmer import BaseStemmer

# A snowball stemmer keeps the word it works on in itself: one per thread, or concurrent
# requests corrupt each other's words (IndexError inside the stemmer, seen under load).
_STEMMERS = threading.local()
_WORD = re.compile(r"[A-Za-z0-9]+")  # snake_case identifiers split into their words
_STOPWORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "are",
        "how",
        "what",
        "does",
        "with",
        "this",
        "that",
        "from",
        "into",
        "can",
        "not",
        "you",
        "your",
        "which",
        "when",
        "where",
        "why",
        "who",
        "use",
        "used",
        "using",
        "its",
        "was",
        "were",
        "has",
        "have",
        "had",
        "will",
        "would",
        "should",
        "could",
        "there",
        "their",
        "them",
        "then",
        "than",
        "also",
        "any",
        "all",
        "but",
        "only",
        "about",
        "does",
        "did",
        "get",
        "set",
        "many",  # "how many", "how much": they ask for a number, they name nothing
        "much",
    ]
)


def _stemmer() -> BaseStemmer:
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = snowballstemmer.stemmer("english")
    return stemmer


# Stemming is pure Python and was most of a search's time (every hit's lines are stemmed to
# find its best lines); words repeat across passages, so each is stemmed once. Bounded:
# at ~200 bytes an entry, 50,000 words are ~10 MB.
@lru_cache(maxsize=50_000)
def _stem(word: str) -> str:
    return str(_stemmer().stemWord(word))


def _telling_words(text: str) -> list[str]:
    """The words of a text that say something, in order: lower case, stop words and words
    under three letters left out."""
    words = (w.lower() for w in _WORD.findall(text))
    return [w for w in words if len(w) >= 3 and w not in _STOPWORDS]


def terms(text: str) -> set[str]:
    """The stems of the words of a text that say something ("backups" and "backup" are one
    term)."""
    return {_stem(w) for w in set(_telling_words(text))}


def term_pairs(text: str) -> set[tuple[str, str]]:
    """Pairs of terms that follow each other in a text, stop words skipped: "a ref that is
    not indexed" holds ("ref", "index"), "ask ... an optional ref" does not hold ("ask", "ref")."""
    return set(itertools.pairwise(_stem(w) for w in _telling_words(text)))


def covers(text: str, question: str) -> bool:
    """Every term of the question occurs in the text (False for a question without terms)."""
    wanted = terms(question)
    return bool(wanted) and wanted <= terms(text)


def matched_words(text: str, wanted: set[str] | frozenset[str]) -> list[str]:
    """The words of a text whose stems are among `wanted`, each stem once, in text order."""
    found: dict[str, str] = {}
    for word in _telling_words(text):
        stem = _stem(word)
        if stem in wanted and stem not in found:
            found[stem] = word
    return list(found.values())
