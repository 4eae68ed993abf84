"""Symbol actions: definitions and references by name, a DocSet's repository map, and the
navigation questions ("where is X defined", "what calls X") answered from the table."""

from collections.abc import Sequence
from dataclasses import dataclass

from ragspace.actions.scope import SearchScope
from ragspace.answering.symbol_answer import definition_answer, references_answer
from ragspace.errors import ValidationError
from ragspace.models import Answer, DocSet
from ragspace.store import Store
from ragspace.store.symbols import SymbolIndex
from ragspace.symbols.names import is_symbol_name, last_part, names_it, normalised
from ragspace.symbols.questions import symbol_question
from ragspace.symbols.records import NameTarget, SymbolLocation
from ragspace.symbols.repo_graph import FILES_SHOWN, RepoGraph, map_links, top_files
from ragspace.symbols.repo_map import RepoMap, build_repo_map
from ragspace.text.tokens import count_tokens

MAX_RESULTS = 50
MAX_MAP_TOKENS = 20_000
DEFAULT_MAP_TOKENS = 2_000
MAX_GRAPH_FILES = 40
# the map a chat model gets for an architecture question, shared by the DocSets asked
PROMPT_MAP_TOKENS = 1_000
# identifiers of one viewer page looked up at once
MAX_NAMES_LOOKED_UP = 5_000
# definitions read per name: enough to tell one from several, and to resolve among them
TARGETS_PER_NAME = 20
# rows read before a dotted name narrows them (`Session.request` among every `request`)
_CANDIDATES = 500


@dataclass(frozen=True)
class ShownUses:
    """The uses on a range of a document, and the definitions their names may refer to."""

    uses: dict[tuple[str, int], set[str]]  # (name, line) -> the uses' kinds (call, class...)
    targets: dict[str, list[NameTarget]]


@dataclass(frozen=True)
class References:
    """Uses of a name: the first `limit` of them, and how many there are in all."""

    name: str
    places: list[SymbolLocation]
    total: int


class SymbolActions:
    """Lookups in the symbol tables of the DocSets a caller selects."""

    def __init__(self, index: SymbolIndex, store: Store, scope: SearchScope) -> None:
        self._index = index
        self._store = store
        self._scope = scope

    def definitions(
        self,
        name: str,
        docset_names: Sequence[str] | None = None,
        ref: str | None = None,
        limit: int = 10,
    ) -> list[SymbolLocation]:
        """Where `name` (plain, dotted `Class.method`, or `ns::name`) is defined."""
        wanted = _valid_name(name)
        docsets, ref = self._docsets(docset_names, ref)
        return self._definitions_in([d.id for d in docsets], wanted, ref, limit)

    def references(
        self,
        name: str,
        docset_names: Sequence[str] | None = None,
        ref: str | None = None,
        limit: int = 20,
    ) -> References:
        """Where `name` is used: calls, base classes, types (matched by name, not resolved)."""
        wanted = _valid_name(name)
        docsets, ref = self._docsets(docset_names, ref)
        ids = [d.id for d in docsets]
        places, total = self._index.references(ids, last_part(wanted), ref, _clamped(limit))
        return References(wanted, places, total)

    def repo_map(
        self, docset_name: str, max_tokens: int = DEFAULT_MAP_TOKENS, ref: str | None = None
    ) -> RepoMap:
        """Files and their definitions, most important first, within `max_tokens`."""
        docsets, ref = self._docsets([docset_name], ref)
        budget = max(0, min(int(max_tokens), MAX_MAP_TOKENS))
        entries = self._index.map_entries(docsets[0].id, ref)
        return build_repo_map(docsets[0].name, entries, budget, count_tokens)

    def repo_graph(
        self, docset_name: str, files: int = FILES_SHOWN, ref: str | None = None
    ) -> RepoGraph:
        """The map as a picture's data: the most important files (at most `files`, 1 to 40),
        their top definitions, and the links the symbol table makes between them."""
        docsets, ref = self._docsets([docset_name], ref)
        entries = self._index.map_entries(docsets[0].id, ref)
        shown, total = top_files(entries, max(1, min(int(files), MAX_GRAPH_FILES)))
        ids = [f.document_id for f in shown]
        links = map_links(shown, self._store.symbol_links(ids, ids))
        return RepoGraph(docsets[0].name, shown, links, total)

    def outline(self, docset_name: str, path: str, ref: str = "") -> list[SymbolLocation]:
        """A document's definitions in line order (its outline)."""
        docset = self._store.docsets.named(docset_name)
        return self._index.outline(docset.id, path, ref)

    def shown_uses(
        self, docset_name: str, document_id: int, path: str, lines: tuple[int, int], ref: str = ""
    ) -> ShownUses:
        """What the viewer may link on lines `lines` of a document: the uses its parse
        recorded there (name, line), and the DocSet's definitions of those names at `ref`
        (at most TARGETS_PER_NAME each, those in `path` itself first)."""
        uses = self._index.uses_in(document_id, *lines)
        wanted = sorted({name for name, _ in uses if is_symbol_name(name)})[:MAX_NAMES_LOOKED_UP]
        if not wanted:
            return ShownUses(uses, {})
        docset = self._store.docsets.named(docset_name)
        targets = self._index.targets_among(docset.id, wanted, path, ref, TARGETS_PER_NAME)
        return ShownUses(uses, targets)

    def map_for_prompt(self, docset_ids: Sequence[int], ref: str | None) -> str:
        """The DocSets' repository maps within PROMPT_MAP_TOKENS, each under its name."""
        names = {d.id: d.name for d in self._store.docsets.all()}
        budget = PROMPT_MAP_TOKENS // max(1, len(docset_ids))
        parts = []
        for docset_id in docset_ids:
            entries = self._index.map_entries(docset_id, ref)
            built = build_repo_map(names.get(docset_id, ""), entries, budget, count_tokens)
            if built.text:
                parts.append(f"DocSet {built.docset}:\n{built.text}")
        return "\n\n".join(parts)

    def answer(
        self, question: str, docsets: Sequence[DocSet], ref: str | None, limit: int = 10
    ) -> Answer | None:
        """The answer to a navigation question from the table of `docsets` (already chosen
        and checked by the caller), or None: not such a question, or the table knows nothing
        of the name, and search answers it."""
        asked = symbol_question(question)
        if asked is None:
            return None
        ids = [d.id for d in docsets]
        if asked.intent == "definition":
            found = self._definitions_in(ids, asked.name, ref, limit)
            return definition_answer(asked.name, found) if found else None
        places, total = self._index.references(ids, last_part(asked.name), ref, _clamped(limit))
        return references_answer(asked.name, places, total) if places else None

    def _definitions_in(
        self, docset_ids: list[int], wanted: str, ref: str | None, limit: int
    ) -> list[SymbolLocation]:
        rows = self._index.definitions(docset_ids, last_part(wanted), ref, _CANDIDATES)
        return [r for r in rows if names_it(wanted, r.qualified_name, r.path)][: _clamped(limit)]

    def _docsets(
        self, names: Sequence[str] | None, ref: str | None
    ) -> tuple[list[DocSet], str | None]:
        """The named DocSets (all when none) and the ref checked against them. The table
        needs no vectors, so a DocSet being re-embedded is still looked up."""
        if names:
            docsets = [self._store.docsets.named(name) for name in names]
        else:
            docsets = self._store.docsets.all()
        return docsets, self._scope.checked_ref(docsets, ref, named=bool(names))


def _valid_name(name: str) -> str:
    if not is_symbol_name(name):
        shown = name if len(name) <= 60 else name[:60] + "…"
        raise ValidationError(
            f"{shown!r} is not a symbol name; give an identifier such as url_for, "
            "Session.request or ns::Type."
        )
    return normalised(name)


def _clamped(limit: int) -> int:
    return max(1, min(int(limit), MAX_RESULTS))
