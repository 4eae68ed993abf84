"""Documents spread over the list when they compete: each further section of a docs page
already listed counts less, by how closely the next page follows the best one; likewise
each further chunk of a code file, where the ranking spreads files and the question names no
code symbol.

A page far above every other keeps its sections together: they answer together (most of
claude-docs' questions have two gold sections, of one page). Pages that nearly tie share
the list: docs-dev's "dependency injection with yield" gets `advanced-dependencies.md`
beside three sections of `dependencies-with-yield.md`, not a fourth. The decay is
1 - (1 - `page_decay`) x (the second page's best score / the best page's) to
`page_spread_power`. The scores stay; only the order changes.

Code files alike (`file_decay`, `file_spread_power`: on in the keyword-only ranking,
search/keyword_ranking.py), for a question that names no symbol: "thread pool and work queue
for async operations" asks where a topic lives, and several files answer it, where one
file's chunks filled libuv's list; a question naming `Soundex` asks about that code, and the
file defining it keeps its chunks together (the codebase set's questions about one file's
details: spread as well, they lose chunk R@10 0.921 -> 0.909; bench/experiments/
keyword_files_spread.py)."""

from collections.abc import Sequence

from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions
from ragspace.ranking.selection import Scored, hit_is_prose


def documents_spread(
    offer: Offer, ranked: Sequence[Scored], options: RankingOptions
) -> list[Scored]:
    """The hits reordered by the pages' competition and, for a question naming no code
    symbol, the code files' (see the module's docstring)."""
    pages = competition_decay(ranked, options.page_decay, options.page_spread_power, prose=True)
    files = 1.0
    if options.file_decay < 1.0 and not offer.profile.symbols:
        files = competition_decay(ranked, options.file_decay, options.file_spread_power, False)
    return spread(ranked, page_decay=pages, file_decay=files)


def spread(ranked: Sequence[Scored], page_decay: float, file_decay: float = 1.0) -> list[Scored]:
    """The hits (best first) reordered so that each further chunk of a docs page already
    listed counts `page_decay` times less, of a code file `file_decay` times less (1: no
    change). Ties keep their order."""
    if page_decay >= 1.0 and file_decay >= 1.0:
        return list(ranked)
    listed: dict[int, int] = {}
    placed: list[tuple[float, int]] = []
    for position, (score, hit) in enumerate(ranked):  # best first: earlier chunks count
        seen = listed.get(hit.document_id, 0)
        listed[hit.document_id] = seen + 1
        placed.append((score * (page_decay if hit_is_prose(hit) else file_decay) ** seen, position))
    placed.sort(key=lambda item: (-item[0], item[1]))
    return [ranked[position] for _effective, position in placed]


def competition_decay(ranked: Sequence[Scored], decay: float, power: float, prose: bool) -> float:
    """`decay`, or with `power` 1 - (1 - decay) x competition ** power, the competition being
    the second-best document's best score over the best one's, among the docs pages (the
    code files without `prose`)."""
    if decay >= 1.0 or not power:
        return decay
    best: dict[int, float] = {}
    for score, hit in ranked:
        if hit_is_prose(hit) == prose:
            best.setdefault(hit.document_id, score)
    first, second = [*sorted(best.values(), reverse=True), 0.0, 0.0][:2]
    competition = max(0.0, min(1.0, second / first)) if first > 0 else 0.0
    return float(1.0 - (1.0 - decay) * competition**power)
