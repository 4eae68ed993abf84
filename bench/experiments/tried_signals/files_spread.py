"""Files spread over the list: each further chunk of a code file already listed counts less,
so the next file's best chunk can pass a file's third. With `spread_power`, by how much
follows the question: a file that stands far above every other keeps its chunks (a question
about one file's details), files that compete are spread (a question that several files
answer). The app spreads docs pages alike (signals/pages_spread.py); this spreads both."""

from collections.abc import Sequence

from bench.experiments.tried_signals.options import TriedOptions
from ragspace.ranking.selection import Scored
from ragspace.ranking.signals.pages_spread import competition_decay, spread


def files_spread(ranked: Sequence[Scored], options: TriedOptions) -> list[Scored]:
    """The hits reordered by the code files' competition (`file_decay`, `spread_power`) and
    the docs pages' (pages_spread). The scores stay; only the order changes."""
    return spread(
        ranked,
        page_decay=competition_decay(
            ranked, options.page_decay, options.page_spread_power, prose=True
        ),
        file_decay=competition_decay(ranked, options.file_decay, options.spread_power, prose=False),
    )
