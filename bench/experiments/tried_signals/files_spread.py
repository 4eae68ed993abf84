"""Files spread over the list: each further chunk of a code file already listed counts less,
so the next file's best chunk can pass a file's third."""

from collections.abc import Sequence

from bench.experiments.tried_signals.options import TriedOptions
from ragspace.ranking.selection import Scored, hit_is_prose


def files_spread(ranked: Sequence[Scored], options: TriedOptions) -> list[Scored]:
    """The hits reordered so that each further chunk of a code file already listed counts
    `file_decay` times less (1: no change). Prose is left alone: one_per_section already
    spreads it over sections, and a page's sections are each an answer of their own. The
    scores stay; only the order changes."""
    decay = options.file_decay
    if decay >= 1.0:
        return list(ranked)
    listed: dict[int, int] = {}
    placed: list[tuple[float, int]] = []
    for position, (score, hit) in enumerate(ranked):  # best first: earlier chunks count
        if hit_is_prose(hit):
            placed.append((score, position))
            continue
        seen = listed.get(hit.document_id, 0)
        listed[hit.document_id] = seen + 1
        placed.append((score * decay**seen, position))
    placed.sort(key=lambda item: (-item[0], item[1]))
    return [ranked[position] for _effective, position in placed]
