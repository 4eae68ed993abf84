"""Symbol rows for documents ingested before the symbol table existed, filled by idle workers.

New and changed documents get their rows from ingestion (`job_chunks.chunks_of`); this
pass parses the others once per process, a few per idle moment, oldest first. The text parsed
is the stored one, and rows are written only if it is still the document's text.
"""

import logging
import threading
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from ragspace.chunking.grammars import GRAMMARS, grammar_for
from ragspace.chunking.symbol_extraction import extract_symbols
from ragspace.chunking.syntax import SyntaxParser
from ragspace.store.symbols import documents_without_symbols, fill_symbols
from ragspace.symbols.records import FileSymbols

log = logging.getLogger(__name__)

STEP_DOCUMENTS = 20  # per idle moment: a step stays well under a second


class SymbolBackfill:
    """Walks the documents without symbol rows once, in id order, a step at a time."""

    def __init__(
        self, pool: ConnectionPool[psycopg.Connection[Any]], parser: SyntaxParser | None = None
    ) -> None:
        self._pool = pool
        self._parser = parser or SyntaxParser()
        self._after = 0
        self._finished = False
        self._lock = threading.Lock()

    @property
    def finished(self) -> bool:
        """True once every document has been looked at (until the process restarts)."""
        return self._finished

    def step(self, limit: int = STEP_DOCUMENTS) -> int:
        """Parse the next few documents lacking rows; how many got rows. Another thread's
        step in progress makes this one return at once."""
        if self._finished or not self._lock.acquire(blocking=False):
            return 0
        try:
            found = documents_without_symbols(self._pool, list(GRAMMARS), self._after, limit)
            if not found:
                self._finished = True
                return 0
            filled = 0
            for row in found:
                self._after = row["id"]
                symbols = self._parse(row["content"], row["language"], row["path"])
                if symbols is not None and (symbols.definitions or symbols.references):
                    filled += fill_symbols(
                        self._pool, row["id"], row["docset_id"], row["content_hash"], symbols
                    )
            if filled:
                log.info("Symbol table: filled %d earlier documents", filled)
            return filled
        finally:
            self._lock.release()

    def _parse(self, text: str, language: str, path: str) -> FileSymbols | None:
        lines = text.count("\n") + 1
        table = self._parser.symbols(text, grammar_for(language, path), lines, references=True)
        return extract_symbols(table) if table is not None else None
