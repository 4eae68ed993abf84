"""Each document's card (path, headings, definitions) and the file side that searches them."""

import numpy as np

from ragspace.embedding.embedders import Embedder
from ragspace.models import ChunkDraft
from ragspace.ranking.candidates import Side
from ragspace.search.retrieval import keyword_terms
from ragspace.settings import PROJECT_ROOT
from ragspace.store import NewDocument, Store
from ragspace.store.search_request import SearchRequest
from ragspace.store.symbols import fill_symbols
from ragspace.symbols.records import DefinitionDraft, FileSymbols

MIGRATIONS = PROJECT_ROOT / "supabase" / "migrations"
# No chunk of the checker says "private import checker": its path and its class do.
CHECKER = (
    "pylint/extensions/private_import.py",
    [
        ("class PrivateImportChecker(BaseChecker):", "PrivateImportChecker"),
        ("    def _check_name(self, names):\n        return [n for n in names if n[0] == '_']", ""),
    ],
)
# Chunks full of the question's words, in a file about something else.
NOISE = (
    "docs/imports.md",
    [
        ("Importing private names from a module is discouraged; import checker tools", ""),
        ("A checker reports each import once.", ""),
    ],
)
OTHER = ("pylint/checkers/format.py", [("class FormatChecker(BaseChecker):", "FormatChecker")])
# Other files, so that the question's words are rare in the DocSet as in a real repository.
FILLER = [
    (f"pylint/utils/helper_{i}.py", [(f"def helper_{i}(value):\n    return value * {i}", "")])
    for i in range(8)
]
QUESTION = "How does the private import checker decide which names to report?"


def _add(
    store: Store, embedder: Embedder, docset_id: int, path: str, parts: list[tuple[str, str]]
) -> int:
    [document_id] = store.documents.upsert(
        docset_id, None, [NewDocument(path, path, "python", "x", path)]
    )
    chunks = [
        ChunkDraft(
            ordinal=i,
            content=text,
            start_line=i + 1,
            end_line=i + 1,
            header=f"{path} | {symbol}" if symbol else path,
            metadata={"symbol": symbol} if symbol else {},
        )
        for i, (text, symbol) in enumerate(parts)
    ]
    vectors = np.asarray(embedder.embed([c.content for c in chunks]), dtype=np.float32)
    store.chunks.replace(document_id, docset_id, chunks, vectors, [path] * len(chunks))
    return document_id


def _docset(store: Store, embedder: Embedder) -> tuple[int, dict[str, int]]:
    docset_id = store.docsets.create("lint", "", "local/test", embedder.dimensions).id
    ids = {
        path: _add(store, embedder, docset_id, path, parts)
        for path, parts in (CHECKER, NOISE, OTHER, *FILLER)
    }
    return docset_id, ids


def _card_words(store: Store, document_id: int) -> set[str]:
    with store.pool.connection() as conn:
        row = conn.execute(
            "select tsvector_to_array(fts) from document_cards where document_id = %s",
            (document_id,),
        ).fetchone()
    return set(row[0]) if row else set()


def _file_side(store: Store, embedder: Embedder, docset_id: int) -> list[tuple[str, int]]:
    """(path, ordinal) of each file's chunk the file side offers, best file first."""
    request = SearchRequest(
        [docset_id], embedder.dimensions, keyword_terms=keyword_terms(QUESTION), files=True
    )
    found = [c for c in store.chunks.search(request) if c.on(Side.FILE)]
    found.sort(key=lambda c: c.evidence[Side.FILE].rank)
    return [(c.hit.path, c.hit.ordinal) for c in found]


def test_a_card_holds_the_path_and_definitions_and_follows_each_swap(
    store: Store, embedder: Embedder
) -> None:
    docset_id, ids = _docset(store, embedder)
    checker = ids[CHECKER[0]]
    assert {"pylint", "extens", "privat", "import", "checker"} <= _card_words(store, checker)
    assert "name" not in _card_words(store, checker)  # chunk text is not on the card

    symbols = FileSymbols(
        [
            DefinitionDraft(
                "PrivateImportChecker",
                "PrivateImportChecker",
                "class",
                1,
                2,
                doc="Flags names imported with a leading underscore.",
            )
        ]
    )
    assert fill_symbols(store.pool, checker, docset_id, CHECKER[0], symbols)
    assert {"flag", "underscor", "lead"} <= _card_words(store, checker)

    with store.pool.connection() as conn:
        conn.execute("delete from documents where id = %s", (checker,))
        gone = conn.execute(
            "select count(*) from document_cards where document_id = %s", (checker,)
        )
        assert gone.fetchone() == (0,)


def test_the_file_side_ranks_the_file_its_path_and_definitions_describe(
    store: Store, embedder: Embedder
) -> None:
    docset_id, _ids = _docset(store, embedder)
    offered = _file_side(store, embedder, docset_id)
    # the checker first, through its best keyword chunk (every code chunk carries its path's
    # words since the keyword side reads paths, so either of its chunks may be that one)
    assert offered[0][0] == CHECKER[0]
    assert [path for path, _ in offered].index(NOISE[0]) > 0


def test_cards_of_documents_stored_before_the_migration_are_filled_by_it(
    store: Store, embedder: Embedder
) -> None:
    _docset_id, ids = _docset(store, embedder)
    with store.pool.connection() as conn:
        conn.execute("delete from document_cards")
        conn.execute(next(MIGRATIONS.glob("*_document_cards.sql")).read_text().encode())
    assert {"format", "checker"} <= _card_words(store, ids[OTHER[0]])
