"""A compound question's parts compete on their own: each part is searched too (its own
candidates, an Offer each), and a chunk also scores `sub_question_weight` times its score
for a part, on the question's scale, so a passage answering one part alone can compete
with those matching the whole."""

import re
from collections.abc import Callable, Sequence

from bench.experiments.tried_signals.options import TriedOptions
from ragspace.models import Hit
from ragspace.ranking.offer import Offer
from ragspace.text.terms import terms

# where a question joins two questions: "..., and how does Y", "X versus Y", "...? Then"
_JOINS = re.compile(
    r",?\s+and\s+(?=(?:what|how|why|which|where|when|who|does|do|is|are)\b)"
    r"|\s+(?:versus|vs\.?)\s+|\?\s+(?=\w)|;\s+",
    re.IGNORECASE,
)
MAX_SUB_QUESTIONS = 2
MIN_SUB_QUESTION_TERMS = 3


def sub_question_scores(
    scores: dict[int, float],
    hits: dict[int, Hit],
    parts: Sequence[Offer],
    options: TriedOptions,
    score: Callable[[Offer], dict[int, float]],
) -> None:
    """Each part's candidates (scored by `score`) lift `scores` to their weighted part
    score where that is higher, and join `hits`, in place."""
    top = max(scores.values(), default=0.0)
    for part in parts if options.sub_question_weight else ():
        part_scores = score(part)
        part_top = max(part_scores.values(), default=0.0)
        if part_top <= 0 or top <= 0:
            continue
        for candidate in part.candidates:
            chunk = candidate.hit.chunk_id
            lifted = options.sub_question_weight * part_scores[chunk] * top / part_top
            scores[chunk] = max(scores.get(chunk, 0.0), lifted)
            hits.setdefault(chunk, candidate.hit)


def sub_questions(text: str) -> list[str]:
    """The questions a compound question is made of, split where it joins them (at most
    MAX_SUB_QUESTIONS, each with at least MIN_SUB_QUESTION_TERMS telling words); none for a
    simple question."""
    parts = [p.strip(" ,;?") for p in _JOINS.split(text)]
    parts = [p for p in parts if len(terms(p)) >= MIN_SUB_QUESTION_TERMS]
    return parts[:MAX_SUB_QUESTIONS] if len(parts) > 1 else []
