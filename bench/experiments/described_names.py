"""Two signals for questions that describe code instead of naming it (issue 35).

SWE-QA's questions paraphrase the code they ask about ("the theme retrieval method in the
LaTeX theme factory" for `ThemeFactory.get`), so the definitions boost, which needs the
name itself, rarely fires on sphinx and pylint. Two ideas, each on top of the shipped
ranking (`RankingOptions()`, its SIGNALS), over the pool's saved candidates:

- `described_weight`: a chunk whose parse declares a name of at least two words that the
  question uses all of (`ThemeFactory` -> theme, factory; stems, as QueryProfile.terms)
  gains this times the best score, times min(words, 4) / 4: a longer name used whole says
  more than a two-word one.
- `card_rank_k`: the file side (document cards) scored by its rank instead of its min-max
  scaled score, (k + 1) / (k + rank): on sphinx the card side ranks the right file 1-5 in
  several questions the fused ranking places 6-14; a rank-based score does not let one
  outlying card squeeze the others towards 0.

Each tuned jointly on top of the shipped ranking under leave-one-set-out with the guards,
as `quality_pool.py` chooses (`tuned_jointly`); prints each fold's held-out figures beside
the shipped ones.

Usage (from the repository root, after `quality_pool.py candidates`):
    python bench/experiments/described_names.py --work /work/pool
"""

import dataclasses
import sys
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import quality_pool as qp

from ragspace.models import Hit
from ragspace.ranking.candidates import Side
from ragspace.ranking.file_lift import lift_documents
from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions
from ragspace.ranking.query import name_parts
from ragspace.ranking.ranker import SIGNALS, ordered, scored, selected
from ragspace.ranking.signals.file_cards import card_weight
from ragspace.text.terms import terms


@dataclasses.dataclass(frozen=True)
class Options:
    """The shipped ranking plus the two signals (0 / None: off)."""

    described_weight: float = 0.0
    card_rank_k: int | None = None


@lru_cache(maxsize=100_000)
def name_words(name: str) -> frozenset[str]:
    """The stems of an identifier's words (`ThemeFactory` -> theme, factori)."""
    return frozenset(terms(" ".join(name_parts(name))))


def described(hit: Hit, question_terms: frozenset[str]) -> float:
    """0-1: the longest name the chunk declares whose every word the question uses."""
    best = 0.0
    for declared in hit.metadata.get("defines") or []:
        words = name_words(str(declared.get("name", "")))
        if len(words) >= 2 and words <= question_terms:
            best = max(best, min(len(words), 4) / 4)
    return best


@cache
def cards_by_rank(k: int) -> Any:
    """The file-cards signal with each card scored by its rank, (k + 1) / (k + rank)."""

    def lift(offer: Offer, scores: dict[int, float], options: RankingOptions) -> None:
        weight = card_weight(offer, options)
        if weight:
            per_document = {
                c.hit.document_id: (k + 1) / (k + c.evidence[Side.FILE].rank)
                for c in offer.candidates
                if Side.FILE in c.evidence
            }
            lift_documents(offer, scores, per_document, weight, options.lift_best_chunk)

    return lift


def ranked(question: qp.Question, options: Options) -> list[Hit]:
    """The shipped ranking's top K with the options' signals (the app's signals, the
    cards by rank in place of file_cards; the described names after the links' lift)."""
    shipped = RankingOptions()
    offer = question.offer
    signals = SIGNALS
    if options.card_rank_k is not None:
        signals = dataclasses.replace(signals, files=(cards_by_rank(options.card_rank_k),))
    links = question.links
    scores = scored(offer, shipped, lambda *_: links, signals)
    if options.described_weight and scores:
        unit = max(scores.values()) or 1.0
        wanted = offer.profile.terms
        for candidate in offer.candidates:
            share = described(candidate.hit, wanted)
            if share:
                scores[candidate.hit.chunk_id] += unit * options.described_weight * share
    hits = {c.hit.chunk_id: c.hit for c in offer.candidates}
    return selected(ordered(hits, scores), qp.K, per_section=True)


def family(depth: int) -> Any:
    def ranking(options: Options | RankingOptions) -> qp.Ranking:
        if isinstance(options, RankingOptions):
            return qp.AppRanking(options, depth)
        return qp.at_depth(lambda q: ranked(q, options), depth)

    return ranking


def main() -> None:
    parser = qp.experiment_parser(__doc__)
    args = parser.parse_args()
    depth, pool, floors = qp.experiment_pool(args)
    ranking = family(depth)
    shipped = {
        name: qp.scores(questions, ranking(RankingOptions())) for name, questions in pool.items()
    }
    grids: dict[str, dict[str, list[Any]]] = {
        "described names": {"described_weight": [0.0, 0.1, 0.25, 0.5, 1.0]},
        "cards by rank": {"card_rank_k": [None, 2, 5, 10, 20]},
    }
    for label, axes in grids.items():
        print(f"## {label}")
        tuned = qp.tuned_jointly(pool, ranking, axes, Options(), floors)
        qp.print_experiment(pool, tuned, shipped, "shipped")
        [(field, values)] = axes.items()
        for value in values[1:]:
            point = Options(**{field: value})
            print(qp.in_sample_line(str(point), pool, ranking(point)))


if __name__ == "__main__":
    main()
