"""The store: typed access to the tables, one class per table, over one connection pool."""

from collections.abc import Collection
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from ragspace.store.chunk_rows import ChunkRows
from ragspace.store.docset_rows import DocSetRows
from ragspace.store.document_rows import DocumentRows
from ragspace.store.source_rows import SourceRows
from ragspace.store.symbol_links import Links, symbol_links


class Store:
    """Typed access to DocSets, sources, documents and chunks: `store.docsets.named(...)`,
    `store.documents.get(...)`, `store.chunks.search(...)`."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]]) -> None:
        self._pool = pool
        self.docsets = DocSetRows(pool)
        self.sources = SourceRows(pool)
        self.documents = DocumentRows(pool)
        self.chunks = ChunkRows(pool)

    @property
    def pool(self) -> ConnectionPool[psycopg.Connection[Any]]:
        """The connection pool, shared with the job queue."""
        return self._pool

    def symbol_links(self, seeds: Collection[int], documents: Collection[int]) -> Links:
        """The symbol table's links between the seeds and the other documents
        (store/symbol_links.py)."""
        return symbol_links(self._pool, seeds, documents)
