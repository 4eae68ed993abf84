"""One question's candidates with what ranking derives from them alone, derived once.

Whatever the options, a question's candidates have the same prose chunks, the same chunks
that define a symbol it names, and each side the same scaled scores and confidence. A
search ranks its candidates once, so deriving these on demand costs it nothing; the
retrieval protocol (bench/quality_pool.py) ranks each question under thousands of options,
and an Offer kept with the question spares it deriving them again each time (three
quarters of its time went there)."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

from ragspace.chunking.grammars import GRAMMARS, grammar_for
from ragspace.models import Hit
from ragspace.ranking.candidates import Candidate, Side
from ragspace.ranking.definitions import defines
from ragspace.ranking.fusion import SCALINGS, confidence
from ragspace.ranking.query import QueryProfile
from ragspace.ranking.selection import hit_is_prose

T = TypeVar("T")


@dataclass(frozen=True)
class Offer:
    """A question and its candidates (in the sides' order), read-only once made."""

    question: str
    candidates: Sequence[Candidate]
    _derived: dict[object, object] = field(default_factory=dict, compare=False, repr=False)
    _latest: list[tuple[object, object]] = field(default_factory=list, compare=False, repr=False)

    @cached_property
    def profile(self) -> QueryProfile:
        return QueryProfile(self.question)

    @cached_property
    def prose(self) -> frozenset[int]:
        """The chunk ids of documentation (selection.hit_is_prose)."""
        return frozenset(c.hit.chunk_id for c in self.candidates if hit_is_prose(c.hit))

    @cached_property
    def chunk_ids(self) -> tuple[int, ...]:
        return tuple(c.hit.chunk_id for c in self.candidates)

    @cached_property
    def document_of(self) -> dict[int, int]:
        """Each candidate chunk's document id."""
        return {c.hit.chunk_id: c.hit.document_id for c in self.candidates}

    @cached_property
    def code_documents(self) -> frozenset[int]:
        """The document ids of the candidates that are code."""
        return frozenset(
            c.hit.document_id for c in self.candidates if c.hit.chunk_id not in self.prose
        )

    @cached_property
    def defining(self) -> frozenset[int]:
        """The ids of the code chunks that define a symbol the question names (a docs
        page's example, `export default defineConfig({...})`, defines nothing)."""
        symbols = self.profile.symbols
        if not symbols:
            return frozenset()
        return frozenset(
            c.hit.chunk_id
            for c in self.candidates
            if c.hit.chunk_id not in self.prose and _defines(c.hit, symbols)
        )

    @cached_property
    def definition_weights(self) -> dict[int, float]:
        """Each defining chunk's weight: 1 / the candidate files that define its most
        specific name the question uses (a namespace many files open, `absl` in
        `absl::Mutex`, singles out no file; a name one file defines does)."""
        files: dict[str, set[int]] = {}
        defined: dict[int, list[str]] = {}
        for candidate in self.candidates:
            hit = candidate.hit
            if hit.chunk_id not in self.defining:
                continue
            for name in self.profile.symbols:
                if _defines(hit, (name,)):
                    files.setdefault(name, set()).add(hit.document_id)
                    defined.setdefault(hit.chunk_id, []).append(name)
        return {chunk: max(1 / len(files[n]) for n in found) for chunk, found in defined.items()}

    @cached_property
    def read_off_the_text(self) -> frozenset[int]:
        """The defining chunks whose language a grammar parses but whose parse declares
        none of the names: the text patterns alone made them definitions (`const
        absl::Time t` reads as one of `Time`; the C++ parse knows it is a use)."""
        names = self.profile.symbols
        return frozenset(
            c.hit.chunk_id
            for c in self.candidates
            if c.hit.chunk_id in self.defining
            and _parsed(c.hit)
            and not defines("", names, declared_names(c.hit) or [])
        )

    def scaled(self, side: Side, scaling: str) -> Mapping[int, float]:
        """Each candidate's score on `side` mapped onto 0-1 by `scaling` (fusion.SCALINGS)."""
        return self.derived(
            ("scaled", side, scaling), lambda: SCALINGS[scaling](self.candidates, side)
        )

    def documents_scaled(self, side: Side, scaling: str) -> Mapping[int, float]:
        """A document side's scaled score for each document it offers (by one chunk)."""
        return self.derived(
            ("documents", side, scaling),
            lambda: {self.document_of[chunk]: s for chunk, s in self.scaled(side, scaling).items()},
        )

    def confidence(self, side: Side) -> float:
        """fusion.confidence of `side` over these candidates."""
        return self.derived(("confidence", side), lambda: confidence(self.candidates, side))

    def latest(self, key: object, derive: Callable[[], T]) -> T:
        """`derive()`, or what it gave last time when `key` is the last call's: one slot, so
        a caller varying one option fastest (the protocol's grids do, the neighbours' weight
        last) reuses the work the other options decide, and nothing else is kept."""
        if not self._latest or self._latest[0][0] != key:
            self._latest[:] = [(key, derive())]
        return self._latest[0][1]  # type: ignore[return-value]

    def derived(self, key: object, derive: Callable[[], T]) -> T:
        """`derive()`, derived once for this Offer under `key` (a signal's own derivation
        from the candidates alone, kept like the Offer's)."""
        if key not in self._derived:
            self._derived[key] = derive()
        return self._derived[key]  # type: ignore[return-value]


def _defines(hit: Hit, symbols: tuple[str, ...]) -> bool:
    """The chunk defines one of the symbols: by its parse (`defines` in the chunk's
    metadata, from chunking/syntax.py) or, for languages without a grammar, by its text."""
    return defines(hit.content, symbols, declared_names(hit))


def _parsed(hit: Hit) -> bool:
    """A grammar parses the chunk's language (its parse lists what it defines)."""
    language = hit.metadata.get("language")
    return isinstance(language, str) and grammar_for(language, hit.path) in GRAMMARS


def declared_names(hit: Hit) -> list[str] | None:
    """The names the chunk's parse says it defines (None: no parse listed any)."""
    declared = hit.metadata.get("defines")
    if not isinstance(declared, list):
        return None
    return [str(d.get("name")) for d in declared if isinstance(d, dict)]
