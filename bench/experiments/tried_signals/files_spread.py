"""Files spread over the list: each further chunk of a code file already listed counts less,
so the next file's best chunk can pass a file's third. With `spread_power`, by how much
follows the question: a file that stands far above every other keeps its chunks (a question
about one file's details), files that compete are spread (a question that several files
answer). Docs pages alike, by `page_decay` and `page_spread_power`: a page far above every
other keeps its sections (they answer together), pages that compete share the list."""

from collections.abc import Sequence

from bench.experiments.tried_signals.options import TriedOptions
from ragspace.ranking.selection import Scored, hit_is_prose


def files_spread(ranked: Sequence[Scored], options: TriedOptions) -> list[Scored]:
    """The hits reordered so that each further chunk of a code file already listed counts
    `decay` times less (1: no change; see `question_decay`), and each further chunk of a
    docs page `page_decay` times less (1, the default: a page's sections are each an answer
    of their own, and one_per_section already spreads it over sections; below 1 for
    questions that several pages answer). The scores stay; only the order changes."""
    decay = question_decay(ranked, options.file_decay, options.spread_power, prose=False)
    page_decay = question_decay(ranked, options.page_decay, options.page_spread_power, prose=True)
    if decay >= 1.0 and page_decay >= 1.0:
        return list(ranked)
    listed: dict[int, int] = {}
    placed: list[tuple[float, int]] = []
    for position, (score, hit) in enumerate(ranked):  # best first: earlier chunks count
        seen = listed.get(hit.document_id, 0)
        listed[hit.document_id] = seen + 1
        placed.append((score * (page_decay if hit_is_prose(hit) else decay) ** seen, position))
    placed.sort(key=lambda item: (-item[0], item[1]))
    return [ranked[position] for _effective, position in placed]


def question_decay(ranked: Sequence[Scored], decay: float, power: float, prose: bool) -> float:
    """`decay`, or with `power` 1 - (1 - decay) x competition ** power, the competition being
    the second-best document's best score over the best one's, among the code files (the
    docs pages with `prose`)."""
    if decay >= 1.0 or not power:
        return decay
    best: dict[int, float] = {}
    for score, hit in ranked:
        if hit_is_prose(hit) == prose:
            best.setdefault(hit.document_id, score)
    first, second = [*sorted(best.values(), reverse=True), 0.0, 0.0][:2]
    competition = max(0.0, min(1.0, second / first)) if first > 0 else 0.0
    return 1.0 - (1.0 - decay) * competition**power
