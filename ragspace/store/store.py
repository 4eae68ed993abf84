"""Every SQL statement RAGSpace runs against its tables."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from ragspace.errors import ConflictError, NotFoundError
from ragspace.models import (
    ChunkDraft,
    DocSet,
    Document,
    EmbeddingStatus,
    Hit,
    Source,
    SourceKind,
)

_DOCSET_COLUMNS = """
    ds.id, ds.name, ds.description, ds.embedding_model, ds.embedding_dimensions,
    ds.created_at, ds.updated_at, ds.target_embedding_model,
    (select count(*) from documents d where d.docset_id = ds.id) as document_count,
    (select count(*) from chunks c where c.docset_id = ds.id) as chunk_count
"""

_DOCUMENT_COLUMNS = """
    d.id, d.docset_id, ds.name as docset_name, d.source_id, d.path, d.title, d.language,
    d.content_hash, d.embedding_status, d.error_message, d.chunk_count,
    d.created_at, d.updated_at, d.chunks_embedded, d.chunks_total, d.started_at, d.finished_at
"""


@dataclass(frozen=True)
class ClaimedDocument:
    """A document taken by a worker, with what it needs to chunk and embed it."""

    id: int
    docset_id: int
    path: str
    title: str
    language: str
    content: str
    embedding_model: str


@dataclass(frozen=True)
class NewDocument:
    """A document to add or update; unchanged content keeps its chunks."""

    path: str
    title: str
    language: str
    content: str
    content_hash: str
    error_message: str | None = None


class Store:
    """Typed access to DocSets, sources, documents and chunks."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]]) -> None:
        self._pool = pool

    @property
    def pool(self) -> ConnectionPool[psycopg.Connection[Any]]:
        """The connection pool, shared with the job queue."""
        return self._pool

    # DocSets

    def create_docset(
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
        return self.get_docset(int(row[0]))

    def get_docset(self, docset_id: int) -> DocSet:
        """One DocSet by id, with its counts."""
        rows = self._select_docsets("where ds.id = %s", (docset_id,))
        if not rows:
            raise NotFoundError(f"DocSet #{docset_id} does not exist.")
        return rows[0]

    def get_docset_by_name(self, name: str) -> DocSet:
        """One DocSet by its unique name."""
        rows = self._select_docsets("where ds.name = %s", (name,))
        if not rows:
            raise NotFoundError(f"DocSet {name!r} does not exist.")
        return rows[0]

    def list_docsets(self) -> list[DocSet]:
        """Every DocSet, by name."""
        return self._select_docsets("", ())

    def rename_docset(self, docset_id: int, new_name: str) -> DocSet:
        """Give a DocSet a new unique name."""
        try:
            self._update_docset(docset_id, "name", new_name)
        except psycopg.errors.UniqueViolation:
            raise ConflictError(f"A DocSet named {new_name!r} already exists.") from None
        return self.get_docset(docset_id)

    def describe_docset(self, docset_id: int, description: str) -> DocSet:
        """Replace a DocSet's description."""
        self._update_docset(docset_id, "description", description)
        return self.get_docset(docset_id)

    def delete_docset(self, docset_id: int) -> None:
        """Delete a DocSet with its sources, documents and chunks."""
        with self._pool.connection() as conn:
            deleted = conn.execute("delete from docsets where id = %s", (docset_id,)).rowcount
        if deleted == 0:
            raise NotFoundError(f"DocSet #{docset_id} does not exist.")

    def _update_docset(self, docset_id: int, column: str, value: str) -> None:
        query = sql.SQL("update docsets set {} = %s, updated_at = now() where id = %s").format(
            sql.Identifier(column)
        )
        with self._pool.connection() as conn:
            if conn.execute(query, (value, docset_id)).rowcount == 0:
                raise NotFoundError(f"DocSet #{docset_id} does not exist.")

    def _select_docsets(self, where: str, params: tuple[Any, ...]) -> list[DocSet]:
        query = f"select {_DOCSET_COLUMNS} from docsets ds {where} order by ds.name"
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(query.encode(), params).fetchall()
        return [DocSet.model_validate(row) for row in rows]

    # Sources and documents

    def create_source(
        self, docset_id: int, kind: SourceKind, location: str, options: dict[str, Any]
    ) -> Source:
        """Record where documents of a DocSet come from."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            row = cur.execute(
                "insert into sources (docset_id, kind, location, options) values (%s, %s, %s, %s)"
                " returning id, docset_id, kind, location, options, created_at",
                (docset_id, kind.value, location, Jsonb(options)),
            ).fetchone()
        assert row is not None
        return Source.model_validate(row)

    def upsert_documents(
        self, docset_id: int, source_id: int | None, documents: Sequence[NewDocument]
    ) -> list[int]:
        """Add or update documents by path; changed or new ones become pending (or error)."""
        ids = []
        with self._pool.connection() as conn, conn.transaction():
            for doc in documents:
                status = EmbeddingStatus.ERROR if doc.error_message else EmbeddingStatus.PENDING
                row = conn.execute(
                    """
                    insert into documents (docset_id, source_id, path, title, language, content,
                                           content_hash, embedding_status, error_message)
                    values (%s, %s, %s, %s, %s, %s, %s, %s, %s)
                    on conflict (docset_id, path) do update set
                        source_id = excluded.source_id, title = excluded.title,
                        language = excluded.language, content = excluded.content,
                        content_hash = excluded.content_hash,
                        embedding_status = excluded.embedding_status,
                        error_message = excluded.error_message, updated_at = now()
                    where documents.content_hash is distinct from excluded.content_hash
                       or documents.embedding_status = 'error'
                       or excluded.embedding_status = 'error'
                    returning id
                    """,
                    (
                        docset_id,
                        source_id,
                        doc.path,
                        doc.title,
                        doc.language,
                        doc.content,
                        doc.content_hash,
                        status.value,
                        doc.error_message,
                    ),
                ).fetchone()
                if row is None:  # unchanged content: keep the existing chunks
                    row = conn.execute(
                        "select id from documents where docset_id = %s and path = %s",
                        (docset_id, doc.path),
                    ).fetchone()
                assert row is not None
                ids.append(int(row[0]))
        return ids

    def list_documents(
        self, docset_ids: Sequence[int] | None = None, status: EmbeddingStatus | None = None
    ) -> list[Document]:
        """Documents with their ingestion state, newest first."""
        clauses: list[str] = []
        params: list[Any] = []
        if docset_ids is not None:
            clauses.append("d.docset_id = any(%s)")
            params.append(list(docset_ids))
        if status is not None:
            clauses.append("d.embedding_status = %s")
            params.append(status.value)
        where = f"where {' and '.join(clauses)}" if clauses else ""
        query = (
            f"select {_DOCUMENT_COLUMNS} from documents d join docsets ds on ds.id = d.docset_id"
            f" {where} order by d.updated_at desc, d.id desc"
        )
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(query.encode(), params).fetchall()
        return [Document.model_validate(row) for row in rows]

    def get_document(self, document_id: int) -> Document:
        """One document by id."""
        query = (
            f"select {_DOCUMENT_COLUMNS} from documents d join docsets ds on ds.id = d.docset_id"
            " where d.id = %s"
        )
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            row = cur.execute(query.encode(), (document_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"Document #{document_id} does not exist.")
        return Document.model_validate(row)

    def get_chunks(self, document_id: int) -> list[ChunkDraft]:
        """A document's stored chunks in order."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                "select ordinal, content, start_line, end_line, header, metadata from chunks"
                " where document_id = %s order by ordinal",
                (document_id,),
            ).fetchall()
        return [ChunkDraft.model_validate(row) for row in rows]

    # Ingestion

    def claim_pending_document(self) -> ClaimedDocument | None:
        """Take the oldest pending document; concurrent workers never take the same one."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            row = cur.execute(
                """
                update documents d set embedding_status = 'processing', updated_at = now()
                from docsets ds
                where ds.id = d.docset_id and d.id = (
                    select id from documents where embedding_status = 'pending'
                    order by id for update skip locked limit 1)
                returning d.id, d.docset_id, d.path, d.title, d.language, d.content,
                          ds.embedding_model
                """
            ).fetchone()
        return None if row is None else ClaimedDocument(**row)

    def requeue_interrupted(self) -> int:
        """Put documents left `processing` by a stopped process back to `pending`."""
        with self._pool.connection() as conn:
            return conn.execute(
                "update documents set embedding_status = 'pending', updated_at = now()"
                " where embedding_status = 'processing'"
            ).rowcount

    def replace_chunks(
        self,
        document_id: int,
        docset_id: int,
        chunks: Sequence[ChunkDraft],
        embeddings: np.ndarray[Any, np.dtype[np.float32]],
        content_hashes: Sequence[str],
    ) -> None:
        """Swap a document's chunk set in one transaction and mark it done."""
        with self._pool.connection() as conn, conn.transaction():
            copy_chunks(conn, document_id, docset_id, chunks, embeddings, content_hashes)
            conn.execute(
                "update documents set embedding_status = 'done', error_message = null,"
                " chunk_count = %s, updated_at = now() where id = %s",
                (len(chunks), document_id),
            )

    def mark_document_error(self, document_id: int, message: str) -> None:
        """Record why a document could not be ingested."""
        with self._pool.connection() as conn:
            conn.execute(
                "update documents set embedding_status = 'error', error_message = %s,"
                " updated_at = now() where id = %s",
                (message, document_id),
            )

    # Search

    def vector_search(
        self,
        query_vector: np.ndarray[Any, np.dtype[np.float32]],
        docset_ids: Sequence[int],
        dimensions: int,
        k: int,
    ) -> list[Hit]:
        """Top-k chunks by cosine similarity within the given DocSets."""
        vector_type = sql.SQL("vector({})").format(sql.Literal(dimensions))
        query = sql.SQL(
            """
            with nearest as (
                select id, embedding::{vt} <=> %(q)s::{vt} as distance
                from chunks
                where docset_id = any(%(docsets)s) and vector_dims(embedding) = {dims}
                order by embedding::{vt} <=> %(q)s::{vt}
                limit %(k)s
            )
            select c.id as chunk_id, c.document_id, ds.name as docset_name, d.path, d.title,
                   c.content, c.start_line, c.end_line, c.metadata, 1 - n.distance as score
            from nearest n
            join chunks c on c.id = n.id
            join documents d on d.id = c.document_id
            join docsets ds on ds.id = c.docset_id
            order by n.distance, c.id
            """
        ).format(vt=vector_type, dims=sql.Literal(dimensions))
        params = {"q": query_vector, "docsets": list(docset_ids), "k": k}
        with self._pool.connection() as conn, conn.transaction():
            # keep scanning the HNSW graph until k rows pass the DocSet filter
            conn.execute("set local hnsw.iterative_scan = strict_order")
            with conn.cursor(row_factory=dict_row) as cur:
                rows = cur.execute(query, params).fetchall()
        return [Hit.model_validate(row) for row in rows]


_CHUNK_COPY = (
    "copy chunks (document_id, docset_id, ordinal, content, header, start_line,"
    " end_line, metadata, content_hash, embedding) from stdin (format binary)"
)
_CHUNK_TYPES = ["int8", "int8", "int4", "text", "text", "int4", "int4", "jsonb", "text", "vector"]


def copy_chunks(
    conn: psycopg.Connection[Any],
    document_id: int,
    docset_id: int,
    chunks: Sequence[ChunkDraft],
    embeddings: np.ndarray[Any, np.dtype[np.float32]],
    content_hashes: Sequence[str],
) -> None:
    """Delete a document's chunks and binary-COPY the new set, inside the caller's transaction."""
    conn.execute("delete from chunks where document_id = %s", (document_id,))
    with conn.cursor().copy(_CHUNK_COPY) as copy:
        copy.set_types(_CHUNK_TYPES)
        for chunk, vector, digest in zip(chunks, embeddings, content_hashes, strict=True):
            copy.write_row(
                (
                    document_id,
                    docset_id,
                    chunk.ordinal,
                    chunk.content,
                    chunk.header,
                    chunk.start_line,
                    chunk.end_line,
                    Jsonb(chunk.metadata),
                    digest,
                    vector,
                )
            )
