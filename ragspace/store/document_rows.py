"""The `documents` table: upserts, listings, lookups by path and line reads."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from ragspace.errors import NotFoundError, ValidationError
from ragspace.models import (
    Document,
    EmbeddingStatus,
    NewDocument,
    OriginalFile,
    RefInfo,
)
from ragspace.reading import MAX_READ_CHARS, Window, fetch_last_line, window
from ragspace.store.write_lock import lock_docset_writes

_DOCUMENT_COLUMNS = """
    d.id, d.docset_id, ds.name as docset_name, d.source_id, d.path, d.title, d.language,
    d.content_hash, d.embedding_status, d.error_message, d.chunk_count,
    d.created_at, d.updated_at, d.chunks_embedded, d.chunks_total, d.started_at, d.finished_at,
    d.vector_tier, d.ref,
    coalesce((d.metadata ->> 'file_bytes')::bigint, octet_length(d.content)) as size_bytes,
    octet_length(d.content) as text_bytes,
    coalesce(d.metadata -> 'redacted_lines', '[]'::jsonb) as redacted_lines
"""


@dataclass(frozen=True)
class FoundDocument:
    """A document found by path, its PDF page map and whether its original is kept (its
    text is read a range at a time: `read_lines`)."""

    document: Document
    page_lines: list[list[int]]
    has_original: bool


class DocumentRows:
    """The `documents` table: upserts, listings, lookups by path and line reads."""

    def __init__(self, pool: ConnectionPool[psycopg.Connection[Any]]) -> None:
        self._pool = pool

    def upsert(
        self, docset_id: int, source_id: int | None, documents: Sequence[NewDocument]
    ) -> list[int]:
        """Add or update documents by path; changed or new ones become pending (or error)."""
        with self._pool.connection() as conn, conn.transaction():
            lock_docset_writes(conn, docset_id)
            return [upsert_document(conn, docset_id, source_id, doc, "") for doc in documents]

    def all(
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

    def get(self, document_id: int) -> Document:
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

    def find(self, docset_id: int, path: str, ref: str | None = None) -> FoundDocument:
        """A document of a DocSet by path (at `ref`, when given), with its page map and
        whether its original file is kept.

        A path indexed at several refs needs the ref: the error names them.
        """
        query = (
            f"select {_DOCUMENT_COLUMNS},"
            " coalesce(d.metadata -> 'page_lines', '[]'::jsonb) as page_lines,"
            " exists (select 1 from document_originals o where o.document_id = d.id)"
            " as has_original"
            " from documents d join docsets ds on ds.id = d.docset_id"
            " where d.docset_id = %s and d.path = %s"
            + ("" if ref is None else " and d.ref = %s")
            + " order by d.ref"
        )
        params = (docset_id, path) if ref is None else (docset_id, path, ref)
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(query.encode(), params).fetchall()
        if not rows:
            at = "" if ref is None else f" at ref {ref!r}"
            raise NotFoundError(f"The DocSet has no document with the path {path!r}{at}.")
        if len(rows) > 1:
            refs = ", ".join(repr(str(row["ref"])) for row in rows)
            raise ValidationError(f"{path!r} is indexed at several refs ({refs}): choose one.")
        row = rows[0]
        page_lines = list(row.pop("page_lines"))
        has_original = bool(row.pop("has_original"))
        return FoundDocument(Document.model_validate(row), page_lines, has_original)

    def original(self, docset_id: int, path: str) -> OriginalFile:
        """The stored original file of a document (an uploaded PDF)."""
        with self._pool.connection() as conn:
            row = conn.execute(
                "select o.media_type, o.content from document_originals o"
                " join documents d on d.id = o.document_id"
                " where d.docset_id = %s and d.path = %s",
                (docset_id, path),
            ).fetchone()
        if row is None:
            raise NotFoundError(f"No original file is stored for {path!r}.")
        return OriginalFile(media_type=str(row[0]), content=bytes(row[1]))

    def refs(self, docset_id: int) -> list[RefInfo]:
        """The refs a DocSet's GitHub sources were synced at: resolved commit, sync time."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                "select sync_state ->> 'ref' as ref, sync_state ->> 'commit' as resolved_sha,"
                " last_synced_at as indexed_at, location from sources"
                " where docset_id = %s and kind in ('github_repo', 'github_file')"
                " and coalesce(sync_state ->> 'ref', '') <> '' and sync_state ? 'commit'"
                " order by last_synced_at, id",
                (docset_id,),
            ).fetchall()
        refs: dict[str, RefInfo] = {}
        for row in rows:  # several sources at one ref: the latest sync names its commit
            known = refs.get(row["ref"])
            locations = [*(known.locations if known else []), row["location"]]
            refs[row["ref"]] = RefInfo(
                ref=row["ref"],
                resolved_sha=row["resolved_sha"],
                indexed_at=row["indexed_at"],
                locations=locations,
            )
        return sorted(refs.values(), key=lambda info: info.ref)

    def delete(self, docset_id: int, paths: Sequence[str], ref: str | None = None) -> list[str]:
        """Delete documents of a DocSet by path (at every ref, or at `ref` only) with their
        chunks, at once; the paths deleted."""
        at_ref = "" if ref is None else " and ref = %s"
        params = (docset_id, list(paths)) if ref is None else (docset_id, list(paths), ref)
        with self._pool.connection() as conn, conn.transaction():
            lock_docset_writes(conn, docset_id)
            rows = conn.execute(
                "delete from documents where docset_id = %s and path = any(%s)"
                f"{at_ref} returning path".encode(),
                params,
            ).fetchall()
        return sorted({str(row[0]) for row in rows})  # a path at several refs: all of them

    def mark_error(self, document_id: int, message: str) -> None:
        """Record why a document could not be ingested."""
        with self._pool.connection() as conn:
            conn.execute(
                "update documents set embedding_status = 'error', error_message = %s,"
                " updated_at = now() where id = %s",
                (message, document_id),
            )

    def read_lines(self, document_id: int, start: int, end: int) -> Window:
        """Lines start..end (1-based, inclusive) of a document's stored text as far as the
        reading caps allow: the database hands over at most MAX_READ_LINES lines and about
        MAX_READ_CHARS characters, however long the document or its lines are."""
        with self._pool.connection() as conn:
            row = conn.execute(
                _READ_LINES,
                {
                    "id": document_id,
                    "start": start,
                    "last": fetch_last_line(start, end),
                    "chars": MAX_READ_CHARS,
                    "cut": MAX_READ_CHARS + 1,  # one more: the reader sees the line is longer
                },
            ).fetchone()
        if row is None:
            raise NotFoundError(f"Document #{document_id} does not exist.")
        total, lines = int(row[0]), [str(line) for line in row[1]]
        return window(lines, start, end, first=start, total=total)


# A document's lines start..last, each cut after MAX_READ_CHARS + 1 characters, up to the
# first line that starts beyond MAX_READ_CHARS characters of the lines before it; and the
# document's line count (an empty text is one empty line, as Python splits it).
_READ_LINES = """
with doc as materialized (
    select case when coalesce(content, '') = '' then array['']
                else string_to_array(content, E'\\n') end as lines
      from documents where id = %(id)s
)
select cardinality(doc.lines), coalesce((
    select array_agg(left(line, %(cut)s) order by n) from (
        select line, n, sum(length(line) + 1) over (order by n) - length(line) - 1 as before
        from unnest(doc.lines[%(start)s:%(last)s]) with ordinality as u(line, n)
    ) fetched where before <= %(chars)s
), '{}') from doc
"""


def upsert_document(
    conn: psycopg.Connection[Any],
    docset_id: int,
    source_id: int | None,
    doc: NewDocument,
    ref: str,
) -> int:
    """Insert or update one document (by DocSet, ref and path); unchanged content keeps its
    chunks, metadata refreshes."""
    status = EmbeddingStatus.ERROR if doc.error_message else EmbeddingStatus.PENDING
    row = conn.execute(
        """
        insert into documents (docset_id, source_id, path, title, language, content,
                               content_hash, embedding_status, error_message, metadata, ref)
        values (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
        on conflict (docset_id, ref, path) do update set
            source_id = excluded.source_id, title = excluded.title,
            language = excluded.language, content = excluded.content,
            content_hash = excluded.content_hash,
            embedding_status = excluded.embedding_status,
            error_message = excluded.error_message, metadata = excluded.metadata,
            vector_tier = case when documents.content_hash = excluded.content_hash
                          then documents.vector_tier end,
            updated_at = now()
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
            Jsonb(doc.metadata),
            ref,
        ),
    ).fetchone()
    if row is None:  # unchanged content: keep the existing chunks, refresh ETag and such
        row = conn.execute(
            "update documents set metadata = %s"
            " where docset_id = %s and ref = %s and path = %s returning id",
            (Jsonb(doc.metadata), docset_id, ref, doc.path),
        ).fetchone()
    assert row is not None
    document_id = int(row[0])
    if doc.original is not None:
        conn.execute(
            "insert into document_originals (document_id, media_type, content)"
            " values (%s, %s, %s) on conflict (document_id) do update"
            " set media_type = excluded.media_type, content = excluded.content",
            (document_id, doc.original.media_type, doc.original.content),
        )
    return document_id
