"""A file's name says what a code file holds (`blocking.rs`, `semaphore.rs`); a docs page's
name is a topic many questions touch (`overview.md`). With `names_of_code_only`, the file
names' lift (signals/file_names.py, which runs first) reaches code files alone."""

from bench.experiments.tried_signals.options import TriedOptions
from ragspace.ranking.offer import Offer
from ragspace.ranking.signals.file_names import name_match


def code_file_names(
    offer: Offer, scores: dict[int, float], options: TriedOptions, unit: float
) -> None:
    """Takes the name lift back from every prose chunk, in place."""
    if not options.names_of_code_only or not options.name_boost:
        return
    for candidate in offer.candidates:
        hit = candidate.hit
        if hit.chunk_id in offer.prose:
            scores[hit.chunk_id] -= unit * options.name_boost * name_match(offer.profile, hit.path)
