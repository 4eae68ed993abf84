"""Document actions: list, watch ingestion, read, remove, re-embed."""

from collections.abc import Callable, Sequence

from ragspace.actions.read_only import changes
from ragspace.actions.scope import SearchScope
from ragspace.embedding.embedders import Embedder
from ragspace.errors import NotFoundError, ValidationError
from ragspace.models import (
    Document,
    DocumentText,
    EmbeddingStatus,
    IngestionProgress,
    OriginalFile,
    ingestion_progress,
)
from ragspace.reading import MAX_READ_LINES
from ragspace.store import ReembedRequests, Store


class DocumentActions:
    """What a front end does with the documents of DocSets."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        requests: ReembedRequests,
        scope: SearchScope,
        on_new_work: Callable[[], None],
        read_only: bool = False,
    ) -> None:
        self.read_only = read_only
        self._store = store
        self._embedder = embedder
        self._requests = requests
        self._scope = scope
        self._on_new_work = on_new_work

    def all(
        self, docset_name: str | None = None, status: EmbeddingStatus | None = None
    ) -> list[Document]:
        """Documents and their embedding status, optionally of one DocSet or status."""
        docset_ids = None
        if docset_name:
            docset_ids = [self._store.docsets.named(docset_name).id]
        return self._store.documents.all(docset_ids, status)

    def ingestion_status(
        self, docset_name: str | None = None, source_id: int | None = None
    ) -> IngestionProgress:
        """Ingestion progress of one source, one DocSet, or everything (the status tab's counts)."""
        if source_id is not None:
            source = self._store.sources.get(source_id)  # NotFoundError names a wrong id
            if docset_name and self._store.docsets.named(docset_name).id != source.docset_id:
                raise ValidationError(f"Source #{source_id} is not in DocSet {docset_name!r}.")
            documents = self._store.documents.all([source.docset_id], None)
            return ingestion_progress([d for d in documents if d.source_id == source_id])
        return ingestion_progress(self.all(docset_name or None))

    def read(
        self,
        docset_name: str,
        path: str,
        start_line: int = 1,
        end_line: int | None = None,
        ref: str | None = None,
    ) -> DocumentText:
        """A document's lines start_line..end_line (1-based, inclusive; None: to the end),
        at most what `reading.window` allows, with the range to read next.

        A path indexed at several refs of a versioned DocSet needs `ref`.
        """
        docset = self._store.docsets.named(docset_name)
        ref = self._scope.checked_ref([docset], ref, named=True)
        found = self._store.documents.find(docset.id, path, ref)
        if end_line is not None and end_line < start_line:
            raise ValidationError("end_line must not be before start_line.")
        # capped whatever range was asked; only the lines shown leave the database
        last = start_line + MAX_READ_LINES - 1 if end_line is None else end_line
        shown = self._store.documents.read_lines(found.document.id, max(1, start_line), last)
        if start_line < 1 or start_line > shown.total:
            raise ValidationError(f"start_line must be between 1 and {shown.total} for {path!r}.")
        return DocumentText(
            document=found.document,
            start_line=shown.start,
            end_line=shown.end,
            total_lines=shown.total,
            text=shown.text,
            page_lines=found.page_lines,
            has_original=found.has_original,
            continuation=shown.continuation,
        )

    def read_original(self, docset_name: str, path: str) -> OriginalFile:
        """The original file of a document when it is kept (an uploaded PDF)."""
        docset = self._store.docsets.named(docset_name)
        return self._store.documents.original(docset.id, path)

    @changes("remove documents")
    def remove(self, docset_name: str, paths: Sequence[str], ref: str | None = None) -> list[str]:
        """Remove documents of a DocSet by path (at every ref, or only at `ref`; '' is the
        unversioned documents); search stops finding them at once."""
        docset = self._store.docsets.named(docset_name)
        removed = self._store.documents.delete(docset.id, paths, ref)
        missing = sorted(set(paths) - set(removed))
        if missing:
            raise NotFoundError(
                f"DocSet {docset.name!r} has no document {', '.join(map(repr, missing))}"
                + (f"; removed {len(removed)} other(s)." if removed else ".")
            )
        return removed

    @changes("re-embed documents")
    def reembed(self, document_ids: Sequence[int]) -> int:
        """Re-embed these documents, ignoring the cache; returns how many were queued."""
        if not document_ids:
            raise ValidationError("Select at least one document to re-embed.")
        for document_id in document_ids:
            self._store.documents.get(document_id)  # NotFoundError names a missing one
        queued = self._requests.enqueue(document_ids, force=True)
        self._on_new_work()
        return queued

    @changes("re-embed documents")
    def reembed_failed(self, docset_name: str | None = None) -> int:
        """Retry every document in `error` (of one DocSet, or all); cached vectors are reused."""
        docset_ids = None
        if docset_name:
            docset_ids = [self._store.docsets.named(docset_name).id]
        failed = self._requests.failed_documents(docset_ids)
        queued = self._requests.enqueue(failed, force=False) if failed else 0
        self._on_new_work()
        return queued

    @changes("re-embed a DocSet")
    def reembed_docset(self, docset_name: str) -> int:
        """Re-embed a whole DocSet with the configured model, ignoring the cache."""
        docset = self._store.docsets.named(docset_name)
        queued = self._requests.reembed_docset(
            docset.id, self._embedder.model_id, self._embedder.dimensions
        )
        self._on_new_work()
        return queued
