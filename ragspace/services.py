"""The API every front end (web UI, CLI, MCP) calls."""

import functools
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

from ragspace.answering.answer import AnswerPipeline
from ragspace.embeddings import LOCAL_MODEL_ID, Embedder
from ragspace.errors import (
    ConfigError,
    EmbeddingModelMismatchError,
    NotFoundError,
    ReadOnlyError,
    ValidationError,
)
from ragspace.eval.evaluation import Dataset
from ragspace.eval.runner import EvalOptions, EvalReport, Evaluator, Progress
from ragspace.models import (
    Answer,
    AnswerBudget,
    AnswerUpdate,
    DocSet,
    Document,
    DocumentText,
    EmbeddingStatus,
    FolderOptions,
    GithubOptions,
    Hit,
    IngestionProgress,
    Message,
    NewDocument,
    OriginalFile,
    RefInfo,
    RetrievalMode,
    SkippedItem,
    Source,
    SourceKind,
    SourcePreview,
    SyncReport,
    WebOptions,
    ingestion_progress,
)
from ragspace.reading import MAX_READ_LINES
from ragspace.retrieval import Retriever
from ragspace.sources.fetcher import FetchResult
from ragspace.sources.files import (
    ArchiveLimits,
    TextBudget,
    UploadedFile,
    classify_bytes,
    error_document,
    read_upload,
)
from ragspace.sources.filters import FileFilter
from ragspace.sources.folder import FolderListing, read_folder, select_files
from ragspace.sources.github import parse_location
from ragspace.sources.sync import SourceSyncer, options_for, store_fetched
from ragspace.sources.web import start_url
from ragspace.store import DeliveryLog, JobQueue, Store, SyncSchedule
from ragspace.url_credentials import without_credentials
from ragspace.webhooks import Delivery, DuplicateDeliveryError, PushEvent, push_matches

log = logging.getLogger(__name__)

MAX_NAME_LENGTH = 100
MAX_QUESTION_CHARS = 4000
# GitHub allows 60 unauthenticated requests an hour; a sync takes three or four
MIN_RESYNC_INTERVAL = timedelta(minutes=5)
MAX_RESYNC_INTERVAL = timedelta(days=365)

P = ParamSpec("P")
R = TypeVar("R")


def changes(
    action: str,
) -> Callable[
    [Callable[Concatenate["RagspaceService", P], R]],
    Callable[Concatenate["RagspaceService", P], R],
]:
    """Mark a method that changes data (or fetches sources): refused when read-only.

    Every front end (UI, HTTP API, MCP, CLI) goes through these methods, so this is the
    one place where read-only mode is enforced; hidden buttons are only a courtesy.
    """

    def decorate(
        method: Callable[Concatenate["RagspaceService", P], R],
    ) -> Callable[Concatenate["RagspaceService", P], R]:
        @functools.wraps(method)
        def guarded(self: "RagspaceService", /, *args: P.args, **kwargs: P.kwargs) -> R:
            if self.read_only:
                raise ReadOnlyError(
                    f"This RAGSpace is read-only: you can search and chat, but not {action}."
                )
            return method(self, *args, **kwargs)

        return guarded

    return decorate


@dataclass(frozen=True)
class ServiceMode:
    """How this instance runs, as the UI shows it: which models, which limits."""

    embedding_model: str
    local_embeddings: bool  # the bundled model, no API key
    llm_answers: bool  # a chat model writes answers; else answers are extractive
    max_upload_bytes: int


class RagspaceService:
    """DocSet management, ingestion requests, search and answers."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        retriever: Retriever,
        answers: AnswerPipeline,
        max_upload_bytes: int,
        on_new_work: Callable[[], None] | None = None,
        archive_limits: ArchiveLimits | None = None,
        syncer: SourceSyncer | None = None,
        jobs: JobQueue | None = None,
        read_only: bool = False,
    ) -> None:
        self.read_only = read_only
        self._store = store
        self._syncer = syncer
        self._archive_limits = archive_limits or ArchiveLimits()
        self._jobs = jobs or JobQueue(store.pool)
        self._schedule = SyncSchedule(store.pool)
        self._deliveries = DeliveryLog(store.pool)
        self._embedder = embedder
        self._retriever = retriever
        self._answers = answers
        self._max_upload_bytes = max_upload_bytes
        self._on_new_work = on_new_work or (lambda: None)

    @property
    def default_retrieval_mode(self) -> RetrievalMode:
        """The configured retrieval mode."""
        return self._retriever.options.mode

    @property
    def mode(self) -> ServiceMode:
        """The models and limits in use (shown as the app's mode indicator)."""
        return ServiceMode(
            embedding_model=self._embedder.model_id,
            local_embeddings=self._embedder.model_id == LOCAL_MODEL_ID,
            llm_answers=self._answers.chat is not None,
            max_upload_bytes=self._max_upload_bytes,
        )

    # DocSets

    def database_problem(self) -> str | None:
        """Why the database cannot be used right now (it is being retried), or None."""
        health = getattr(self._store.pool, "health", None)
        problem: str | None = health.problem() if health is not None else None
        return problem

    def list_docsets(self) -> list[DocSet]:
        """Every DocSet with its document and chunk counts."""
        return self._store.list_docsets()

    def get_docset(self, name: str) -> DocSet:
        """One DocSet by name."""
        return self._store.get_docset_by_name(name)

    @changes("create a DocSet")
    def create_docset(self, name: str, description: str = "") -> DocSet:
        """A new, empty DocSet embedded with the configured model."""
        return self._store.create_docset(
            _valid_name(name),
            description.strip(),
            self._embedder.model_id,
            self._embedder.dimensions,
        )

    @changes("rename a DocSet")
    def rename_docset(self, name: str, new_name: str) -> DocSet:
        """Rename a DocSet."""
        docset = self._store.get_docset_by_name(name)
        return self._store.rename_docset(docset.id, _valid_name(new_name))

    @changes("change a DocSet's description")
    def describe_docset(self, name: str, description: str) -> DocSet:
        """Replace a DocSet's description."""
        docset = self._store.get_docset_by_name(name)
        return self._store.describe_docset(docset.id, description.strip())

    @changes("choose whether a DocSet's answers are reranked")
    def choose_rerank(self, name: str, rerank: bool, evidence: str) -> DocSet:
        """Rerank answers over a DocSet, or keep its fused order; `evidence` says why."""
        docset = self._store.get_docset_by_name(name)
        return self._store.choose_rerank(docset.id, rerank, evidence.strip())

    @changes("delete a DocSet")
    def delete_docset(self, name: str) -> None:
        """Delete a DocSet and everything in it."""
        self._store.delete_docset(self._store.get_docset_by_name(name).id)

    # Ingestion

    @changes("add files")
    def add_files(self, docset_name: str, files: Sequence[UploadedFile]) -> list[Document]:
        """Store uploaded files as documents; readable ones are queued for embedding."""
        if not files:
            raise ValidationError("Choose at least one file to upload.")
        docset = self._store.get_docset_by_name(docset_name)
        source = self._store.create_source(
            docset.id, SourceKind.UPLOAD, ", ".join(f.name for f in files)[:500]
        )
        budget = TextBudget(self._archive_limits.max_upload_text_bytes)  # for all files
        documents = [
            document
            for f in files
            for document in read_upload(f, self._max_upload_bytes, self._archive_limits, budget)
        ]
        ids = self._store.upsert_documents(docset.id, source.id, documents)
        self._on_new_work()
        return [self._store.get_document(document_id) for document_id in ids]

    def preview_directory(self, path: Path, options: FolderOptions | None = None) -> SourcePreview:
        """A dry run of a local folder: files indexed, and every skip with its reason."""
        listing = read_folder(path, self._folder_filter(options or FolderOptions()))
        documents, skipped = self._classify_folder(listing)
        return _folder_preview(listing.name, documents, skipped)

    @changes("add folders")
    def add_directory(
        self, docset_name: str, path: Path, options: FolderOptions | None = None
    ) -> SyncReport:
        """Index a local folder or checkout (.gitignore and filters respected) as one source."""
        options = options or FolderOptions()
        docset = self._store.get_docset_by_name(docset_name)
        listing = read_folder(path, self._folder_filter(options))
        return self._store_folder(docset, listing, options)

    @changes("add folders")
    def add_uploaded_folder(
        self,
        docset_name: str,
        name: str,
        files: Sequence[UploadedFile],
        options: FolderOptions | None = None,
    ) -> SyncReport:
        """Index a folder uploaded from a browser (paths relative to it) like a local folder."""
        if not files:
            raise ValidationError("Choose a folder with at least one file.")
        options = options or FolderOptions()
        docset = self._store.get_docset_by_name(docset_name)
        listing = select_files(name, files, self._folder_filter(options))
        return self._store_folder(docset, listing, options)

    def _folder_filter(self, options: FolderOptions) -> FileFilter:
        return FileFilter(options.include, options.exclude, self._max_upload_bytes)

    def _classify_folder(
        self, listing: FolderListing
    ) -> tuple[list[NewDocument], list[SkippedItem]]:
        documents: list[NewDocument] = []
        skipped = list(listing.skipped)
        # a folder is one upload: its files share the upload's text budget, like a zip's
        budget = TextBudget(self._archive_limits.max_upload_text_bytes)
        for file in listing.files:
            if len(file.data) <= self._max_upload_bytes and not budget.take(len(file.data)):
                documents.append(error_document(file.name, b"", budget.refusal(file.name)))
                continue
            found = classify_bytes(
                file.name,
                file.data,
                self._max_upload_bytes,
                in_tree=True,
                limits=self._archive_limits,
            )
            if isinstance(found, SkippedItem):
                skipped.append(found)
            else:
                documents.append(found)
        return documents, sorted(skipped, key=lambda item: item.path)

    def _store_folder(
        self,
        docset: DocSet,
        listing: FolderListing,
        options: FolderOptions,
    ) -> SyncReport:
        documents, skipped = self._classify_folder(listing)
        if not documents:
            raise ValidationError(
                f"Folder {listing.name!r} has no text files to index ({len(skipped)} skipped)."
            )
        source = self._store.create_source(docset.id, SourceKind.UPLOAD, listing.name, options)
        state = {"skipped": [item.model_dump() for item in skipped]}
        read = FetchResult(documents, [], skipped, state, resolved=listing.name)
        report = store_fetched(self._store, source, read)
        self._on_new_work()
        return report

    @changes("add sources")
    def preview_source(
        self,
        kind: SourceKind,
        location: str,
        options: GithubOptions | WebOptions | None = None,
    ) -> SourcePreview:
        """A dry run of a GitHub or web source: what would be ingested and what is skipped."""
        return self._sources().preview(kind, _valid_location(location), options)

    @changes("add sources")
    def add_source(
        self,
        docset_name: str,
        kind: SourceKind,
        location: str,
        options: GithubOptions | WebOptions | None = None,
        resync_every: timedelta | None = None,
    ) -> SyncReport:
        """Record a GitHub or web source and sync it; a failure is kept on the source.

        With `resync_every`, the workers re-sync it on that interval from now on.
        """
        if kind is SourceKind.UPLOAD:
            raise ValidationError("Uploaded files are added with add_files, not as a source.")
        every = _valid_interval(resync_every)
        docset = self._store.get_docset_by_name(docset_name)
        syncer = self._sources()
        location = _valid_location(location)
        fetch_options = options_for(kind, options)
        if isinstance(fetch_options, GithubOptions):  # a bad location is refused, not stored
            parse_location(location, fetch_options.ref)
            FileFilter(fetch_options.include, fetch_options.exclude)  # and so is a bad glob
        elif kind is SourceKind.WEB:
            start_url(location)
        source = self._store.create_source(docset.id, kind, location, fetch_options)
        if every is not None:
            source = self._schedule.set_interval(source.id, every)
        report = syncer.sync(source)
        self._on_new_work()
        return report

    @changes("re-sync sources")
    def resync_source(self, source_id: int) -> SyncReport:
        """Fetch a source again: only what changed is re-embedded, what vanished is removed."""
        report = self._sources().sync(self._store.get_source(source_id))
        self._on_new_work()
        return report

    @changes("change re-sync schedules")
    def set_resync_interval(self, source_id: int, every: timedelta | None) -> Source:
        """Re-sync a GitHub or web source every `every` from now on (None: not scheduled)."""
        return self._schedule.set_interval(source_id, _valid_interval(every))

    @changes("re-sync sources")  # read-only is read-only for every caller, webhooks too
    def github_push(self, push: PushEvent, delivery: Delivery | None = None) -> list[int]:
        """Queue a re-sync of every GitHub source that follows the pushed ref; their ids.

        A `delivery` seen within a day (by id or by body) raises DuplicateDeliveryError.
        """
        if delivery is not None and not self._deliveries.first_time(delivery.id, delivery.digest):
            raise DuplicateDeliveryError(f"Delivery {delivery.id} was handled already.")
        matching = [s.id for s in self._schedule.github_sources() if push_matches(s, push)]
        queued = self._schedule.make_due(matching) if matching else []
        if queued:
            self._on_new_work()
        return queued

    def list_sources(self, docset_name: str) -> list[Source]:
        """The sources of a DocSet with their last sync state."""
        return self._store.list_sources(self._store.get_docset_by_name(docset_name).id)

    def _sources(self) -> SourceSyncer:
        if self._syncer is None:
            raise ConfigError("GitHub and web sources are not configured in this process.")
        return self._syncer

    def list_documents(
        self, docset_name: str | None = None, status: EmbeddingStatus | None = None
    ) -> list[Document]:
        """Documents and their embedding status, optionally of one DocSet or status."""
        docset_ids = None
        if docset_name:
            docset_ids = [self._store.get_docset_by_name(docset_name).id]
        return self._store.list_documents(docset_ids, status)

    def ingestion_status(
        self, docset_name: str | None = None, source_id: int | None = None
    ) -> IngestionProgress:
        """Ingestion progress of one source, one DocSet, or everything (the status tab's counts)."""
        if source_id is not None:
            source = self._store.get_source(source_id)  # NotFoundError names a wrong id
            if docset_name and self._store.get_docset_by_name(docset_name).id != source.docset_id:
                raise ValidationError(f"Source #{source_id} is not in DocSet {docset_name!r}.")
            documents = self._store.list_documents([source.docset_id], None)
            return ingestion_progress([d for d in documents if d.source_id == source_id])
        return ingestion_progress(self.list_documents(docset_name or None))

    def read_document(
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
        docset = self._store.get_docset_by_name(docset_name)
        ref = self._checked_ref([docset], ref, named=True)
        found = self._store.find_document(docset.id, path, ref)
        if end_line is not None and end_line < start_line:
            raise ValidationError("end_line must not be before start_line.")
        # capped whatever range was asked; only the lines shown leave the database
        last = start_line + MAX_READ_LINES - 1 if end_line is None else end_line
        shown = self._store.read_lines(found.document.id, max(1, start_line), last)
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
        docset = self._store.get_docset_by_name(docset_name)
        return self._store.find_original(docset.id, path)

    @changes("remove documents")
    def remove_documents(
        self, docset_name: str, paths: Sequence[str], ref: str | None = None
    ) -> list[str]:
        """Remove documents of a DocSet by path (at every ref, or only at `ref`; '' is the
        unversioned documents); search stops finding them at once."""
        docset = self._store.get_docset_by_name(docset_name)
        removed = self._store.delete_documents(docset.id, paths, ref)
        missing = sorted(set(paths) - set(removed))
        if missing:
            raise NotFoundError(
                f"DocSet {docset.name!r} has no document {', '.join(map(repr, missing))}"
                + (f"; removed {len(removed)} other(s)." if removed else ".")
            )
        return removed

    # Re-embedding

    def needs_reembedding(self, docset: DocSet) -> bool:
        """True when the DocSet's vectors come from another model than the configured one."""
        return docset.embedding_model != self._embedder.model_id

    def embedding_notice(self, docset: DocSet) -> str:
        """Why a DocSet cannot be searched yet, or '' when it can."""
        if not self.needs_reembedding(docset):
            return ""
        if docset.target_embedding_model == self._embedder.model_id:
            done, total = self._jobs.docset_progress(docset.id)
            return (
                f"DocSet {docset.name!r} is being re-embedded with {self._embedder.model_id} "
                f"({done} of {total} documents done); search is available once all are done."
            )
        return (
            f"DocSet {docset.name!r} was embedded with {docset.embedding_model}, but the "
            f"configured model is {self._embedder.model_id}; it needs re-embedding "
            "('Re-embed whole DocSet' on the Embedding status tab) before it can be searched."
        )

    @changes("re-embed documents")
    def reembed_documents(self, document_ids: Sequence[int]) -> int:
        """Re-embed these documents, ignoring the cache; returns how many were queued."""
        if not document_ids:
            raise ValidationError("Select at least one document to re-embed.")
        for document_id in document_ids:
            self._store.get_document(document_id)  # NotFoundError names a missing one
        queued = self._jobs.enqueue(document_ids, force=True)
        self._on_new_work()
        return queued

    @changes("re-embed documents")
    def reembed_failed(self, docset_name: str | None = None) -> int:
        """Retry every document in `error` (of one DocSet, or all); cached vectors are reused."""
        docset_ids = None
        if docset_name:
            docset_ids = [self._store.get_docset_by_name(docset_name).id]
        failed = self._jobs.failed_documents(docset_ids)
        queued = self._jobs.enqueue(failed, force=False) if failed else 0
        self._on_new_work()
        return queued

    @changes("re-embed a DocSet")
    def reembed_docset(self, docset_name: str) -> int:
        """Re-embed a whole DocSet with the configured model, ignoring the cache."""
        docset = self._store.get_docset_by_name(docset_name)
        queued = self._jobs.reembed_docset(
            docset.id, self._embedder.model_id, self._embedder.dimensions
        )
        self._on_new_work()
        return queued

    # Search and answers

    def list_refs(self, docset_name: str) -> list[RefInfo]:
        """The refs (versions) a DocSet's GitHub sources are indexed at, by name."""
        return self._store.list_refs(self._store.get_docset_by_name(docset_name).id)

    def search(
        self,
        query: str,
        docset_names: Sequence[str] | None = None,
        k: int = 8,
        mode: RetrievalMode | None = None,
        ref: str | None = None,
    ) -> list[Hit]:
        """The k best chunks for the query within the selected DocSets (all if None).

        With `ref`, only documents indexed at that GitHub ref are searched; a ref that is
        not indexed is an error naming those that are.
        """
        return self._search(query, docset_names, k, mode, ref, measured=False)

    def relevant_search(
        self,
        query: str,
        docset_names: Sequence[str] | None = None,
        k: int = 8,
        ref: str | None = None,
    ) -> list[Hit]:
        """`search` without the hits below the relevance floor, each with its similarity.

        Every hit gets its cosine similarity to the query (hybrid search measures it only
        for the vector side's candidates); the floor that lets `ask` refuse a question then
        judges each hit, so an assistant never sees passages too far from the query.
        """
        query = _valid_query(query)
        hits = self._search(query, docset_names, k, None, ref, measured=True)
        floor = self._answers.relevance_floor
        return [hit for hit in hits if floor.admits(hit, query)]

    def _search(
        self,
        query: str,
        docset_names: Sequence[str] | None,
        k: int,
        mode: RetrievalMode | None,
        ref: str | None,
        measured: bool,
    ) -> list[Hit]:
        query = _valid_query(query)
        docsets = self._searchable_docsets(docset_names)
        ref = self._checked_ref(docsets, ref, named=bool(docset_names))
        docset_ids = [d.id for d in docsets]
        if not docset_ids:
            return []
        k = max(1, min(k, 50))
        return self._retriever.search(query, docset_ids, k, mode, ref=ref, measured=measured)

    def ask(
        self,
        question: str,
        docset_names: Sequence[str] | None = None,
        history: Sequence[Message] = (),
        mode: RetrievalMode | None = None,
        rerank: bool = True,
        ref: str | None = None,
        budget: AnswerBudget | None = None,
    ) -> Iterator[AnswerUpdate]:
        """A streamed answer with verified citations; the last update carries the Answer.

        Reranked when asked, a chat model is configured and every DocSet searched keeps
        reranking on (a DocSet whose evaluation showed it hurting can turn it off).
        """
        question = _valid_query(question)
        docsets = self._searchable_docsets(docset_names)
        ref = self._checked_ref(docsets, ref, named=bool(docset_names))
        docset_ids = [d.id for d in docsets]
        rerank = rerank and all(d.rerank for d in docsets)
        return self._answers.stream(question, docset_ids, history, mode, rerank, ref, budget)

    def answer(
        self,
        question: str,
        docset_names: Sequence[str] | None = None,
        history: Sequence[Message] = (),
        mode: RetrievalMode | None = None,
        rerank: bool = True,
        ref: str | None = None,
        budget: AnswerBudget | None = None,
    ) -> Answer:
        """The final answer of `ask`, without streaming."""
        *_, last = self.ask(question, docset_names, history, mode, rerank, ref, budget)
        assert last.answer is not None
        return last.answer

    def _checked_ref(self, docsets: Sequence[DocSet], ref: str | None, named: bool) -> str | None:
        """The ref, if every named DocSet (or, for "all", some DocSet) is indexed at it.

        Never a silent fallback to another version: the error names the refs there are.
        """
        if ref is None or not ref.strip():
            return None
        ref = ref.strip()
        indexed = {d.name: [r.ref for r in self._store.list_refs(d.id)] for d in docsets}
        lacking = [name for name, refs in indexed.items() if ref not in refs]
        if lacking and (named or len(lacking) == len(indexed)):
            raise NotFoundError(_unknown_ref_message(ref, {n: indexed[n] for n in lacking}))
        return ref

    @changes("run evaluations")  # thousands of searches and, with a key, paid model calls
    def evaluate(
        self,
        docset_name: str,
        dataset: Dataset,
        options: EvalOptions | None = None,
        progress: Progress | None = None,
    ) -> EvalReport:
        """Score a question set against one DocSet in every retrieval mode; grade answers."""
        docset = self._searchable_docsets([docset_name])[0]
        if docset.chunk_count == 0:
            raise ValidationError(f"DocSet {docset.name!r} has no embedded chunks to evaluate yet.")
        evaluator = Evaluator(self._retriever, self._answers)
        return evaluator.run([docset.id], docset.name, dataset, options or EvalOptions(), progress)

    def _searchable_docsets(self, names: Sequence[str] | None) -> list[DocSet]:
        """Named DocSets must match the configured model; "all" skips those that do not."""
        if not names:
            return [d for d in self._store.list_docsets() if not self.needs_reembedding(d)]
        docsets = [self._store.get_docset_by_name(name) for name in names]
        for docset in docsets:
            if self.needs_reembedding(docset):
                raise EmbeddingModelMismatchError(self.embedding_notice(docset))
        return docsets


def _unknown_ref_message(ref: str, indexed: dict[str, list[str]]) -> str:
    """Which DocSets lack the ref, and the refs each of them is indexed at."""
    if not indexed:
        return f"No DocSet is indexed at ref {ref!r}."
    parts = [
        f"DocSet {name!r} is not indexed at ref {ref!r}; "
        + (f"its refs: {', '.join(refs)}." if refs else "it has no versioned (GitHub) sources.")
        for name, refs in indexed.items()
    ]
    return " ".join(parts)


def _folder_preview(
    name: str, documents: Sequence[NewDocument], skipped: Sequence[SkippedItem]
) -> SourcePreview:
    return SourcePreview(
        kind=SourceKind.UPLOAD,
        location=name,
        items=[d.path for d in documents],
        skipped=list(skipped),
        total_bytes=sum(len(d.content.encode()) for d in documents),
        estimated_chunks=sum(max(1, len(d.content) // 1000) for d in documents),
    )


def _valid_name(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned:
        raise ValidationError("A DocSet name cannot be empty.")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise ValidationError(f"A DocSet name has at most {MAX_NAME_LENGTH} characters.")
    return cleaned


def _valid_interval(every: timedelta | None) -> timedelta | None:
    if every is None:
        return None
    if every < MIN_RESYNC_INTERVAL:
        raise ValidationError(
            f"A re-sync interval is at least {MIN_RESYNC_INTERVAL.total_seconds() / 60:.0f} "
            f"minutes, not {every}."
        )
    if every > MAX_RESYNC_INTERVAL:
        raise ValidationError(
            f"A re-sync interval is at most {MAX_RESYNC_INTERVAL.days} days, not {every}."
        )
    return every


def _valid_location(location: str) -> str:
    cleaned = without_credentials(location.strip())  # never stored, never shown
    if not cleaned:
        raise ValidationError("Enter a GitHub repository, file URL or website address.")
    return cleaned


def _valid_query(query: str) -> str:
    cleaned = query.strip()
    if not cleaned:
        raise ValidationError("Type a question first.")
    if len(cleaned) > MAX_QUESTION_CHARS:
        raise ValidationError(f"Questions have at most {MAX_QUESTION_CHARS} characters.")
    return cleaned
