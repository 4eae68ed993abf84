"""Issue 40 decision: should a reference row store the enclosing definition's name?

Until this experiment each reference row kept, beside the first line of the definition
around each use, that definition's qualified name (a text array). The name is in the
document's definition rows already, so lookups now read it from there by the line.

Here, on a SWE-QA pool checkout: the code at `--old` (extraction, records and storage read
from git into a temporary folder) against the code in the working tree, on the same parses.
First a check over every file: the old name of each use against the one the new lookup
reads (the deepest definition starting on the recorded line). Then each file's rows
extracted and stored by the old and by the new code, the two alternating from one file to
the next and from run to run, summed per run, after one warm-up run, into one database (the
old column added back for the old code).

Usage (from the repository root):
    python bench/experiments/references_without_enclosing_names.py --old 1dd006e \
        [--checkout pytest] [--runs 5]
"""

import argparse
import dataclasses
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from syntax_throughput import checkout

from ragspace.chunking.chunker import Chunker
from ragspace.chunking.grammars import grammar_for
from ragspace.chunking.lines import LineTable
from ragspace.chunking.symbol_extraction import extract_symbols
from ragspace.chunking.syntax import SymbolTable, SyntaxParser
from ragspace.settings import load_settings
from ragspace.store import Database, NewDocument, Store
from ragspace.store.symbols import replace_symbols
from ragspace.text.hashing import content_hash
from ragspace.text.languages import is_prose

OLD_MODULES = {
    "old_records": "ragspace/symbols/records.py",
    "old_extraction": "ragspace/chunking/symbol_extraction.py",
    "old_symbols": "ragspace/store/symbols.py",
}


def load_old(commit: str, folder: Path) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The old `extract_symbols` and `replace_symbols`, importing the old records."""
    for module, path in OLD_MODULES.items():
        text = subprocess.run(
            ["git", "show", f"{commit}:{path}"], check=True, capture_output=True, text=True
        ).stdout
        text = text.replace("from ragspace.symbols.records import", "from old_records import")
        (folder / f"{module}.py").write_text(text)
    sys.path.insert(0, str(folder))
    extraction = importlib.import_module("old_extraction")
    storage = importlib.import_module("old_symbols")
    return extraction.extract_symbols, storage.replace_symbols


def parses(name: str) -> list[tuple[str, str, str, SymbolTable]]:
    """Every code file of the checkout with a grammar, parsed once as ingestion parses it."""
    c = load_settings(None).chunking
    chunker = Chunker(c.code_chunk_size, c.prose_chunk_size, c.chunk_overlap, SyntaxParser())
    found = []
    for path, language, text in checkout(name):
        if not text.strip() or is_prose(language):
            continue
        table = LineTable.build(text, chunker._measure)
        grammar = grammar_for(language, path)
        parsed = chunker.syntax.symbols(table.text, grammar, len(table), references=True)
        if parsed is not None:
            found.append((path, language, text, parsed))
    return found


def differing_names(files: list[tuple[str, str, str, SymbolTable]], old: Callable[..., Any]) -> int:
    """Uses whose old enclosing name differs from the one read back by line; the old and new
    rows otherwise equal."""
    differing = 0
    for _, _, _, parsed in files:
        before, after = old(parsed), extract_symbols(parsed)
        assert [dataclasses.astuple(d) for d in before.definitions] == [
            dataclasses.astuple(d) for d in after.definitions
        ]
        for was, now in zip(before.references, after.references, strict=True):
            assert (was.name, was.kind, was.line, was.enclosing_line) == tuple(now)
            starting = [d for d in after.definitions if d.start_line == now.enclosing_line]
            read = max(starting, key=lambda d: d.depth).qualified_name if starting else ""
            differing += read != was.enclosing
    return differing


def timed_runs(
    files: list[tuple[str, str, str, SymbolTable]],
    ways: dict[str, tuple[Callable[..., Any], Callable[..., Any]]],
    runs: int,
) -> dict[str, list[float]]:
    """Seconds per run to extract and store every file's rows, each way, alternating."""
    seconds: dict[str, list[float]] = {way: [] for way in ways}
    with tempfile.TemporaryDirectory() as folder:
        database = Database.open(load_settings(None, data_dir=Path(folder)))
        store = Store(database.pool)
        with store.pool.connection() as conn:
            conn.execute("alter table symbol_references add column enclosing text[]")
        documents = [NewDocument(p, p, lang, t, content_hash(t)) for p, lang, t, _ in files]
        for run in range(runs + 1):
            targets = {}
            for way in ways:
                docset = store.docsets.create(f"{way}{run}", "", "bench", 3)
                targets[way] = (docset.id, store.documents.upsert(docset.id, None, documents))
            spent = dict.fromkeys(ways, 0.0)
            for index, (_, _, _, parsed) in enumerate(files):
                order = list(ways) if (index + run) % 2 else list(reversed(ways))
                for way in order:
                    extract, store_rows = ways[way]
                    docset_id, ids = targets[way]
                    with store.pool.connection() as conn:
                        start = time.perf_counter()
                        rows = extract(parsed)
                        with conn.transaction():
                            store_rows(conn, ids[index], docset_id, rows)
                        spent[way] += time.perf_counter() - start
            if run:
                for way in ways:
                    seconds[way].append(spent[way])
            with store.pool.connection() as conn:
                conn.execute("delete from docsets")
        database.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the commit with the old code")
    parser.add_argument("--checkout", default="pytest", choices=["pytest", "sphinx", "pylint"])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        old_extract, old_store = load_old(args.old, Path(folder))
        files = parses(args.checkout)
        differing = differing_names(files, old_extract)
        ways = {"old": (old_extract, old_store), "new": (extract_symbols, replace_symbols)}
        seconds = timed_runs(files, ways, args.runs)
    print(f"{args.checkout}: {len(files)} files; uses placed differently: {differing}")
    for way, values in seconds.items():
        rounded = [round(v, 3) for v in values]
        print(f"  {way}: median {statistics.median(values):.3f} s per run {rounded}")


if __name__ == "__main__":
    main()
