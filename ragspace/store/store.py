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

from ragspace.errors import ConflictError, NotFoundError, ValidationError
from ragspace.models import (
    ChunkDraft,
    DocSet,
    Document,
    EmbeddingStatus,
    NewDocument,
    OriginalFile,
    RefInfo,
    Source,
    SourceKind,
    SourceOptions,
    StoredDocument,
    stored_options,
)
from ragspace.ranking.candidates import Candidate
from ragspace.reading import MAX_READ_CHARS, Window, fetch_last_line, window
from ragspace.store.search import chunk_similarities, run_search
from ragspace.store.search_request import SearchRequest

_DOCSET_COLUMNS = """
    ds.id, ds.name, ds.description, ds.embedding_model, ds.embedding_dimensions,
    ds.created_at, ds.updated_at, ds.target_embedding_model, ds.rerank, ds.rerank_evidence,
    (select count(*) from documents d where d.docset_id = ds.id) as document_count,
    (select count(*) from chunks c where c.docset_id = ds.id) as chunk_count,
    (select max(case when s.kind = 'upload' then s.created_at else s.last_synced_at end)
       from sources s where s.docset_id = ds.id) as last_synced_at
"""

_SOURCE_COLUMNS = (
    "id, docset_id, kind, location, options, created_at, sync_state, error_message,"
    " last_synced_at, resync_interval, next_sync_at"
)

_DOCUMENT_COLUMNS = """
    d.id, d.docset_id, ds.name as docset_name, d.source_id, d.path, d.title, d.language,
    d.content_hash, d.embedding_status, d.error_message, d.chunk_count,
    d.created_at, d.updated_at, d.chunks_embedded, d.chunks_total, d.started_at, d.finished_at,
    d.vector_tier, octet_length(d.content) as size_bytes, d.ref,
    coalesce(d.metadata -> 'redacted_lines', '[]'::jsonb) as redacted_lines
"""


@dataclass(frozen=True)
class FoundDocument:
    """A document found by path, its PDF page map and whether its original is kept (its
    text is read a range at a time: `read_lines`)."""

    document: Document
    page_lines: list[list[int]]
    has_original: bool


@dataclass(frozen=True)
class SyncResult:
    """What a sync changed: upserted document ids, new or changed paths, removed paths."""

    document_ids: list[int]
    changed_paths: list[str]
    removed_paths: list[str]


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
            self._update_docset(docset_id, name=new_name)
        except psycopg.errors.UniqueViolation:
            raise ConflictError(f"A DocSet named {new_name!r} already exists.") from None
        return self.get_docset(docset_id)

    def describe_docset(self, docset_id: int, description: str) -> DocSet:
        """Replace a DocSet's description."""
        self._update_docset(docset_id, description=description)
        return self.get_docset(docset_id)

    def choose_rerank(self, docset_id: int, rerank: bool, evidence: str) -> DocSet:
        """Record whether answers over a DocSet are reranked, and what the choice rests on."""
        self._update_docset(docset_id, rerank=rerank, rerank_evidence=evidence)
        return self.get_docset(docset_id)

    def delete_docset(self, docset_id: int) -> None:
        """Delete a DocSet with its sources, documents and chunks."""
        with self._pool.connection() as conn:
            deleted = conn.execute("delete from docsets where id = %s", (docset_id,)).rowcount
        if deleted == 0:
            raise NotFoundError(f"DocSet #{docset_id} does not exist.")

    def _update_docset(self, docset_id: int, **values: str | bool) -> None:
        assignments = sql.SQL(", ").join(
            sql.SQL("{} = %s").format(sql.Identifier(column)) for column in values
        )
        query = sql.SQL("update docsets set {}, updated_at = now() where id = %s").format(
            assignments
        )
        with self._pool.connection() as conn:
            if conn.execute(query, (*values.values(), docset_id)).rowcount == 0:
                raise NotFoundError(f"DocSet #{docset_id} does not exist.")

    def _select_docsets(self, where: str, params: tuple[Any, ...]) -> list[DocSet]:
        query = f"select {_DOCSET_COLUMNS} from docsets ds {where} order by ds.name"
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(query.encode(), params).fetchall()
        return [DocSet.model_validate(row) for row in rows]

    # Sources and documents

    def create_source(
        self,
        docset_id: int,
        kind: SourceKind,
        location: str,
        options: SourceOptions | None = None,
    ) -> Source:
        """Record where documents of a DocSet come from (options stored as JSON)."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            row = cur.execute(
                "insert into sources (docset_id, kind, location, options) values (%s, %s, %s, %s)"
                f" returning {_SOURCE_COLUMNS}",
                (docset_id, kind.value, location, Jsonb(stored_options(options))),
            ).fetchone()
        assert row is not None
        return Source.model_validate(row)

    def upsert_documents(
        self, docset_id: int, source_id: int | None, documents: Sequence[NewDocument]
    ) -> list[int]:
        """Add or update documents by path; changed or new ones become pending (or error)."""
        with self._pool.connection() as conn, conn.transaction():
            return [_upsert_document(conn, docset_id, source_id, doc, "") for doc in documents]

    def get_source(self, source_id: int) -> Source:
        """One source by id, with its last sync state."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            row = cur.execute(
                f"select {_SOURCE_COLUMNS} from sources where id = %s".encode(), (source_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"Source #{source_id} does not exist.")
        return Source.model_validate(row)

    def list_sources(self, docset_id: int) -> list[Source]:
        """The sources of a DocSet, oldest first."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                f"select {_SOURCE_COLUMNS} from sources where docset_id = %s order by id".encode(),
                (docset_id,),
            ).fetchall()
        return [Source.model_validate(row) for row in rows]

    def source_documents(self, source_id: int) -> dict[str, StoredDocument]:
        """What a source holds now, by path: content hash, status and metadata."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                "select id, path, content_hash, embedding_status, metadata from documents"
                " where source_id = %s",
                (source_id,),
            ).fetchall()
        return {row["path"]: StoredDocument(**row) for row in rows}

    def apply_sync(
        self,
        docset_id: int,
        source_id: int,
        documents: Sequence[NewDocument],
        kept_paths: Sequence[str],
        sync_state: dict[str, Any],
        ref: str = "",
    ) -> SyncResult:
        """In one transaction: upsert fetched documents, delete the source's vanished ones.

        `ref` is the GitHub ref the source is synced at: its documents are that version's
        ('' for sources without versions).
        """
        keep = {doc.path for doc in documents} | set(kept_paths)
        with self._pool.connection() as conn, conn.transaction():
            before = {
                str(r[0]): str(r[1])
                for r in conn.execute(
                    "select path, content_hash from documents where source_id = %s", (source_id,)
                ).fetchall()
            }
            ids = [_upsert_document(conn, docset_id, source_id, doc, ref) for doc in documents]
            removed = [path for path in before if path not in keep]
            conn.execute(
                "delete from documents where source_id = %s and path = any(%s)",
                (source_id, removed),
            )
            conn.execute(
                "update sources set sync_state = %s, error_message = null,"
                " last_synced_at = now(), updated_at = now() where id = %s",
                (Jsonb(sync_state), source_id),
            )
        changed = [d.path for d in documents if before.get(d.path) != d.content_hash]
        return SyncResult(document_ids=ids, changed_paths=changed, removed_paths=sorted(removed))

    def record_source_error(self, source_id: int, message: str) -> None:
        """Remember why the last sync of a source failed; its documents stay as they were."""
        with self._pool.connection() as conn:
            conn.execute(
                "update sources set error_message = %s, updated_at = now() where id = %s",
                (message, source_id),
            )

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

    def find_document(self, docset_id: int, path: str, ref: str | None = None) -> FoundDocument:
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

    def find_original(self, docset_id: int, path: str) -> OriginalFile:
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

    def list_refs(self, docset_id: int) -> list[RefInfo]:
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

    def delete_documents(
        self, docset_id: int, paths: Sequence[str], ref: str | None = None
    ) -> list[str]:
        """Delete documents of a DocSet by path (at every ref, or at `ref` only) with their
        chunks, at once; the paths deleted."""
        at_ref = "" if ref is None else " and ref = %s"
        params = (docset_id, list(paths)) if ref is None else (docset_id, list(paths), ref)
        with self._pool.connection() as conn, conn.transaction():
            rows = conn.execute(
                "delete from documents where docset_id = %s and path = any(%s)"
                f"{at_ref} returning path".encode(),
                params,
            ).fetchall()
        return sorted({str(row[0]) for row in rows})  # a path at several refs: all of them

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

    def replace_chunks(
        self,
        document_id: int,
        docset_id: int,
        chunks: Sequence[ChunkDraft],
        embeddings: np.ndarray[Any, np.dtype[np.float32]],
        content_hashes: Sequence[str],
        document_hash: str | None = None,
    ) -> None:
        """Swap a document's chunk set in one transaction and mark it done.

        With `document_hash`, a document whose content changed meanwhile (a re-sync) gets the
        chunks but stays `pending`, so its new content is embedded next.
        """
        with self._pool.connection() as conn, conn.transaction():
            copy_chunks(conn, document_id, docset_id, chunks, embeddings, content_hashes)
            conn.execute(
                "update documents set embedding_status = case when %s::text is null"
                " or content_hash = %s::text then 'done' else 'pending' end,"
                " vector_tier = case when %s::text is null or content_hash = %s::text"
                " then 'quality' else vector_tier end,"
                " error_message = null, chunk_count = %s, updated_at = now() where id = %s",
                (document_hash,) * 4 + (len(chunks), document_id),
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

    def search(self, request: SearchRequest) -> list[Candidate]:
        """Each side's candidates with their ranks and scores, one query (ranking/ orders)."""
        return run_search(self._pool, request)

    def similarities(
        self,
        chunk_ids: Sequence[int],
        query_vector: np.ndarray[Any, np.dtype[np.float32]],
        dimensions: int,
    ) -> dict[int, float]:
        """Cosine similarity of a query vector to these chunks' quality vectors, by chunk id."""
        return chunk_similarities(self._pool, chunk_ids, query_vector, dimensions)

    def chunks_without_vectors(self, docset_ids: Sequence[int]) -> int:
        """Chunks of these DocSets still waiting for their vectors (found by keywords only)."""
        with self._pool.connection() as conn:
            row = conn.execute(
                "select count(*) from chunks where docset_id = any(%s) and embedding is null",
                (list(docset_ids),),
            ).fetchone()
        assert row is not None
        return int(row[0])

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

    def get_chunk_window(self, document_id: int, first: int, last: int) -> list[ChunkDraft]:
        """A document's chunks with ordinals first..last, in order."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                "select ordinal, content, start_line, end_line, header, metadata from chunks"
                " where document_id = %s and ordinal between %s and %s order by ordinal",
                (document_id, first, last),
            ).fetchall()
        return [ChunkDraft.model_validate(row) for row in rows]


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


def _upsert_document(
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


_CHUNK_COPY = (
    "copy chunks (document_id, docset_id, ordinal, content, header, start_line,"
    " end_line, metadata, content_hash, embedding) from stdin (format binary)"
)
_CHUNK_TYPES = [
    *("int8", "int8", "int4", "text", "text", "int4", "int4", "jsonb", "text"),
    "vector",
]
VectorRows = np.ndarray[Any, np.dtype[np.float32]]


def copy_chunks(
    conn: psycopg.Connection[Any],
    document_id: int,
    docset_id: int,
    chunks: Sequence[ChunkDraft],
    embeddings: VectorRows | None,
    content_hashes: Sequence[str],
) -> None:
    """Delete a document's chunks and binary-COPY the new set, inside the caller's transaction.

    `embeddings` None: the chunks are found by keywords until the job's vector pass replaces
    them."""
    conn.execute("delete from chunks where document_id = %s", (document_id,))
    vectors = [None] * len(chunks) if embeddings is None else list(embeddings)
    with conn.cursor().copy(_CHUNK_COPY) as copy:
        copy.set_types(_CHUNK_TYPES)
        for chunk, vector, digest in zip(chunks, vectors, content_hashes, strict=True):
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
