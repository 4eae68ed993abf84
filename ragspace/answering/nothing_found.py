"""What a "nothing found" answer says: why nothing answers, as far as the DocSets tell."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Coverage:
    """How far one searched DocSet's documents are embedded."""

    name: str
    done: int = 0
    waiting: int = 0  # pending or being embedded
    failed: int = 0

    @property
    def total(self) -> int:
        """Every document of the DocSet."""
        return self.done + self.waiting + self.failed


def _names(coverage: list[Coverage], selected: bool) -> str:
    if not selected:
        return "all DocSets" if len(coverage) > 1 else f"DocSet {coverage[0].name!r}"
    return ", ".join(repr(c.name) for c in coverage)


def nothing_found_text(coverage: list[Coverage], existing: int, selected: bool) -> str:
    """Why no passage answers a question: no DocSet at all, none searchable, no documents,
    documents still embedding or failed (with counts), or everything embedded and still
    nothing relevant. `existing` counts every DocSet; `selected`: the user picked some."""
    if existing == 0:
        return (
            "There are no DocSets yet, so there is nothing to answer from. Create one on the "
            "DocSets tab (or add the sample DocSet) and add documents to it."
        )
    if not coverage:
        return (
            "None of the DocSets can be searched with the configured embedding model; "
            "re-embed them on the Embedding status tab."
        )
    names = _names(coverage, selected)
    done = sum(c.done for c in coverage)
    waiting = sum(c.waiting for c in coverage)
    failed = sum(c.failed for c in coverage)
    total = done + waiting + failed
    if total == 0:
        return (
            f"Nothing to search in {names}: no documents yet. Add files or a source on the "
            "DocSets tab."
        )
    if waiting:
        return (
            f"Nothing found in {names} so far, but only {done} of {total} documents are "
            f"embedded ({waiting} still embedding): ask again when they are done "
            "(Embedding status tab)."
        )
    state = (
        f"{failed} of {total} documents failed to embed (Embedding status tab)"
        if failed
        else f"{total} document{'s' if total != 1 else ''}, all embedded"
    )
    again = ", or search other DocSets." if selected else "."
    return (
        f"Nothing in {names} ({state}) answers this, so I cannot answer it from them. "
        f"Rephrase the question{again}"
    )
