"""The `docsets` table: create, find, rename, describe and delete DocSets."""

from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from ragspace.errors import ConflictError, NotFoundError, unknown_docset
from ragspace.models import (
    DocSet,
)
from ragspace.store.write_lock import lock_docset_writes

_DOCSET_COLUMNS = """
    ds.id, ds.name, ds.description, ds.embedding_model, ds.embedding_dimensions,
    ds.created_at, ds.updated_at, ds.target_embedding_model, ds.rerank, ds.rerank_evidence,
    (select count(*) from documents d where d.docset_id = ds.id) as document_count,
    (select count(*) from chunks c where c.docset_id = ds.id) as chunk_count,
    (select max(case when s.kind = 'upload' then s.created_at else s.last_synced_at end)
       from sources s where s.docset_id = ds.id) as last_synced_at
"""


class DocSetRows:
    """The `docsets` table: create, find, rename, describe and delete DocSets."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]]) -> None:
        self._pool = pool

    def create(
        self, name: str, description: str, embedding_model: str, embedding_dimensions: int
    ) -> DocSet:
        """Insert a DocSet; raises ConflictError when the name is taken."""
        try:
            with self._pool.connection() as conn:
                row = conn.execute(
                    "insert into docsets (name, description, embedding_model, embedding_dimensions)"
                    " values (%s, %s, %s, %s) returning id",
                    (name, description, embedding_model, embedding_dimensions),
                ).fetchone()
        except psycopg.errors.UniqueViolation:
            raise ConflictError(f"A DocSet named {name!r} already exists.") from None
        assert row is not None
        return self.get(int(row[0]))

    def get(self, docset_id: int) -> DocSet:
        """One DocSet by id, with its counts."""
        rows = self._select("where ds.id = %s", (docset_id,))
        if not rows:
            raise NotFoundError(f"DocSet #{docset_id} does not exist.")
        return rows[0]

    def named(self, name: str) -> DocSet:
        """One DocSet by its unique name."""
        rows = self._select("where ds.name = %s", (name,))
        if not rows:
            raise NotFoundError(unknown_docset(name, [d.name for d in self.all()]))
        return rows[0]

    def all(self) -> list[DocSet]:
        """Every DocSet, by name."""
        return self._select("", ())

    def rename(self, docset_id: int, new_name: str) -> DocSet:
        """Give a DocSet a new unique name."""
        try:
            self._update(docset_id, name=new_name)
        except psycopg.errors.UniqueViolation:
            raise ConflictError(f"A DocSet named {new_name!r} already exists.") from None
        return self.get(docset_id)

    def describe(self, docset_id: int, description: str) -> DocSet:
        """Replace a DocSet's description."""
        self._update(docset_id, description=description)
        return self.get(docset_id)

    def choose_rerank(self, docset_id: int, rerank: bool, evidence: str) -> DocSet:
        """Record whether answers over a DocSet are reranked, and what the choice rests on."""
        self._update(docset_id, rerank=rerank, rerank_evidence=evidence)
        return self.get(docset_id)

    def delete(self, docset_id: int) -> None:
        """Delete a DocSet with its sources, documents and chunks."""
        with self._pool.connection() as conn, conn.transaction():
            lock_docset_writes(conn, docset_id)
            deleted = conn.execute("delete from docsets where id = %s", (docset_id,)).rowcount
        if deleted == 0:
            raise NotFoundError(f"DocSet #{docset_id} does not exist.")

    def _update(self, docset_id: int, **values: str | bool) -> None:
        assignments = sql.SQL(", ").join(
            sql.SQL("{} = %s").format(sql.Identifier(column)) for column in values
        )
        query = sql.SQL("update docsets set {}, updated_at = now() where id = %s").format(
            assignments
        )
        with self._pool.connection() as conn:
            if conn.execute(query, (*values.values(), docset_id)).rowcount == 0:
                raise NotFoundError(f"DocSet #{docset_id} does not exist.")

    def _select(self, where: str, params: tuple[Any, ...]) -> list[DocSet]:
        query = f"select {_DOCSET_COLUMNS} from docsets ds {where} order by ds.name"
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(query.encode(), params).fetchall()
        return [DocSet.model_validate(row) for row in rows]
