"""The symbol table in Postgres: filled by ingestion from the chunker's parse, replaced with
its document, gone with it; checked against Python's `ast` on a real tree."""

import ast
from pathlib import Path

import pytest

from ragspace.chunking.chunker import Chunker
from ragspace.ingestion.symbol_backfill import SymbolBackfill
from ragspace.models import NewDocument
from ragspace.store import Store
from ragspace.store.symbols import SymbolIndex, fill_symbols, replace_symbols
from ragspace.symbols.records import DefinitionDraft, FileSymbols, ReferenceDraft
from ragspace.text.hashing import content_hash
from tests.symbols.shop import PRICING, SHOP, Shop

FLASK = Path(__file__).parent.parent / "data" / "checkout"


def rows(store: Store, table: str, path_suffix: str) -> list[tuple[str, str]]:
    """(transaction that wrote it, name) of a document's rows in a symbol table."""
    with store.pool.connection() as conn:
        found = conn.execute(
            f"select s.xmin::text, s.name from {table} s join documents d on d.id = s.document_id"
            " where d.path like %s order by s.ctid",
            ("%" + path_suffix,),
        ).fetchall()
    return [(str(x), str(n)) for x, n in found]


@pytest.mark.usefixtures("shop")
def test_ingestion_fills_the_table_from_code_files_only(store: Store) -> None:
    assert [n for _, n in rows(store, "symbol_definitions", "pricing.py")] == [
        "TAX",
        "total_price",
        "with_tax",
    ]
    assert [n for _, n in rows(store, "symbol_definitions", "server.go")] == [
        "Server",
        "Start",
        "listen",
    ]
    assert rows(store, "symbol_definitions", "README.md") == []
    uses = {n for _, n in rows(store, "symbol_references", "test_cart.py")}
    assert {"Cart", "add", "checkout", "total_price"} <= uses


def test_a_resync_that_changes_one_file_reparses_that_file_only(shop: Shop, store: Store) -> None:
    cart_before = rows(store, "symbol_definitions", "cart.py")
    changed = PRICING + b"\n\ndef discount(amount: float) -> float:\n    return amount * 0.9\n"
    shop.repo.commit({**SHOP, "src/shop/pricing.py": changed})
    report = shop.service.sources.resync(shop.source_id)
    assert [p.rsplit("/", 1)[-1] for p in report.changed] == ["pricing.py"]
    assert shop.ingestor.process_all() == 1
    # cart.py's rows were not rewritten: the same rows, from the same transaction
    assert rows(store, "symbol_definitions", "cart.py") == cart_before
    assert [n for _, n in rows(store, "symbol_definitions", "pricing.py")][-1] == "discount"


def test_rows_go_with_their_document_and_docset(shop: Shop, store: Store) -> None:
    removed = shop.service.documents.remove("shop", ["acme/shop/src/shop/pricing.py"])
    assert removed and rows(store, "symbol_definitions", "pricing.py") == []
    assert rows(store, "symbol_references", "pricing.py") == []
    assert rows(store, "symbol_definitions", "cart.py")
    shop.service.docsets.delete("shop")
    with store.pool.connection() as conn:
        counts = conn.execute(
            "select (select count(*) from symbol_definitions),"
            " (select count(*) from symbol_references)"
        ).fetchone()
    assert counts == (0, 0)


def test_every_def_and_class_of_the_flask_tree_is_in_the_table_with_its_lines(
    store: Store,
) -> None:
    """Through Postgres: the rows as stored, compared with `ast` (no embedding needed)."""
    docset = store.docsets.create("flask", "", "test-model", 3)
    files = {p.relative_to(FLASK).as_posix(): p.read_text("utf-8") for p in FLASK.rglob("*.py")}
    documents = [
        NewDocument(path, path, "python", text, content_hash(text)) for path, text in files.items()
    ]
    ids = store.documents.upsert(docset.id, None, documents)
    chunker = Chunker(1200, 1000, 100)
    with store.pool.connection() as conn, conn.transaction():
        for document_id, (path, text) in zip(ids, files.items(), strict=True):
            symbols = chunker.split_file(text, "python", path).symbols
            replace_symbols(conn, document_id, docset.id, symbols)
        stored = conn.execute(
            "select d.path, s.name, s.start_line, s.end_line from symbol_definitions s"
            " join documents d on d.id = s.document_id where s.docset_id = %s",
            (docset.id,),
        ).fetchall()
    table = {(str(p), str(n), int(a), int(b)) for p, n, a, b in stored}
    expected = {
        (path, node.name, node.lineno, node.end_lineno)
        for path, text in files.items()
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    assert len(expected) > 1500
    assert expected - table == set()  # type: ignore[comparison-overlap]
    definitions, references = SymbolIndex(store.pool).counts(docset.id)
    assert definitions >= len(expected) and references > definitions


def test_rows_are_stored_as_found_whatever_their_characters(store: Store) -> None:
    """References' arrays are written as literals (store/symbols.py): names of other
    languages (operators, quotes, backslashes, braces, `NULL`, `\\N`, spaces, tabs, line
    breaks) come back unchanged, in every text field and every array element."""
    odd = ['a"b', "c\\d", "{x,y}", "NULL", "", 'operator "" _km', "é\tü", "(<$>)"]
    odd += ["two\nlines", "cr\r", "\\N", "\\.", "end\\"]
    references = [
        ReferenceDraft("f\t\\g", kind, line, line * 10) for line, kind in enumerate(odd, 1)
    ]
    definitions = [
        DefinitionDraft(text, f"{text}.{text}", "function", n, n + 1, text, text, n)
        for n, text in enumerate(odd, 1)
    ]
    docset = store.docsets.create("odd", "", "m", 3)
    [document_id] = store.documents.upsert(
        docset.id, None, [NewDocument("x.hs", "x.hs", "haskell", "x", content_hash("x"))]
    )
    with store.pool.connection() as conn, conn.transaction():
        replace_symbols(conn, document_id, docset.id, FileSymbols(definitions, references))
        row = conn.execute(
            "select name, lines, kinds, enclosing_lines from symbol_references"
            " where document_id = %s",
            (document_id,),
        ).fetchone()
        stored = conn.execute(
            "select name, qualified_name, kind, start_line, end_line, signature, doc, depth"
            " from symbol_definitions where document_id = %s order by start_line",
            (document_id,),
        ).fetchall()
    count = len(odd)
    assert row == (
        "f\t\\g",
        list(range(1, count + 1)),
        odd,
        [10 * n for n in range(1, count + 1)],
    )
    assert [DefinitionDraft(*values) for values in stored] == definitions


def test_a_use_is_placed_in_the_deepest_definition_starting_on_the_line_it_records(
    store: Store,
) -> None:
    """A reference row keeps the first line of the definition around each use, not its name:
    the lookup reads the name from the definitions, the deepest one starting on that line
    (one-line code: `class Cart { total() { sum(...) } }`)."""
    text = "class Cart { total() { return sum(this.items) } }\nsum([])\n"
    definitions = [
        DefinitionDraft("Cart", "Cart", "class", 1, 1, depth=0),
        DefinitionDraft("total", "Cart.total", "method", 1, 1, depth=1),
    ]
    uses = [ReferenceDraft("sum", "call", 1, 1), ReferenceDraft("sum", "call", 2, 0)]
    docset = store.docsets.create("one-line", "", "m", 3)
    [document_id] = store.documents.upsert(
        docset.id, None, [NewDocument("cart.js", "cart.js", "javascript", text, "h")]
    )
    with store.pool.connection() as conn, conn.transaction():
        replace_symbols(conn, document_id, docset.id, FileSymbols(definitions, uses))
    places, total = SymbolIndex(store.pool).references([docset.id], "sum", None, 10)
    assert total == 2
    assert [(p.start_line, p.qualified_name, p.content) for p in places] == [
        (1, "Cart.total", text.splitlines()[0]),
        (2, "", "sum([])"),
    ]


@pytest.mark.usefixtures("shop")
def test_documents_ingested_before_the_table_get_their_rows_from_idle_workers(
    store: Store,
) -> None:
    before = {path: names(store, path) for path in ("pricing.py", "cart.py", "server.go")}
    with store.pool.connection() as conn:  # as a database migrated from before the table
        conn.execute("delete from symbol_definitions")
        conn.execute("delete from symbol_references")
    backfill = SymbolBackfill(store.pool)
    filled = 0
    while not backfill.finished:
        filled += backfill.step(limit=2)
    assert filled == 4  # the code files; README is prose
    assert {path: names(store, path) for path in before} == before
    assert backfill.step() == 0
    # rows parsed from a text the document no longer has are not written
    with store.pool.connection() as conn:
        document_id, docset_id = conn.execute(
            "select id, docset_id from documents where path like '%pricing.py'"
        ).fetchone()  # type: ignore[misc]
    stale = FileSymbols([DefinitionDraft("old", "old", "function", 1, 1)])
    assert not fill_symbols(store.pool, document_id, docset_id, "an older hash", stale)
    assert names(store, "pricing.py") == before["pricing.py"]


def names(store: Store, path_suffix: str) -> list[str]:
    return [name for _, name in rows(store, "symbol_definitions", path_suffix)]
