"""Which DocSets and which ref a search, an answer or a read may use."""

from collections.abc import Sequence
from dataclasses import replace

from ragspace.actions.validation import valid_query
from ragspace.answering.nothing_found import Coverage, nothing_found_text
from ragspace.embedding.embedders import Embedder
from ragspace.errors import EmbeddingModelMismatchError, NotFoundError
from ragspace.models import DocSet, ScopedQuery, SearchQuery
from ragspace.models.documents import ingestion_progress
from ragspace.store import ReembedRequests, Store


class SearchScope:
    """DocSets searchable with the configured model, and refs checked against the index."""

    def __init__(self, store: Store, embedder: Embedder, requests: ReembedRequests) -> None:
        self._store = store
        self._embedder = embedder
        self._requests = requests

    def needs_reembedding(self, docset: DocSet) -> bool:
        """True when the DocSet's vectors come from another model than the configured one."""
        return docset.embedding_model != self._embedder.model_id

    def embedding_notice(self, docset: DocSet) -> str:
        """Why a DocSet cannot be searched yet, or '' when it can."""
        if not self.needs_reembedding(docset):
            return ""
        if docset.target_embedding_model == self._embedder.model_id:
            done, total = self._requests.docset_progress(docset.id)
            return (
                f"DocSet {docset.name!r} is being re-embedded with {self._embedder.model_id} "
                f"({done} of {total} documents done); search is available once all are done."
            )
        return (
            f"DocSet {docset.name!r} was embedded with {docset.embedding_model}, but the "
            f"configured model is {self._embedder.model_id}; it needs re-embedding "
            "('Re-embed whole DocSet' on the Embedding status tab) before it can be searched."
        )

    def searchable(self, names: Sequence[str] | None) -> list[DocSet]:
        """Named DocSets must match the configured model; "all" skips those that do not."""
        if not names:
            return [d for d in self._store.docsets.all() if not self.needs_reembedding(d)]
        docsets = [self._store.docsets.named(name) for name in names]
        for docset in docsets:
            if self.needs_reembedding(docset):
                raise EmbeddingModelMismatchError(self.embedding_notice(docset))
        return docsets

    def nothing_found(self, docsets: Sequence[DocSet], selected: bool) -> str:
        """What a "nothing found" answer over these DocSets says (what is true of them)."""
        existing = len(self._store.docsets.all())
        ids = [d.id for d in docsets]
        documents = self._store.documents.all(ids, None) if ids else []
        coverage = []
        for docset in docsets:
            counted = ingestion_progress([d for d in documents if d.docset_id == docset.id])
            waiting = counted.pending + counted.processing
            coverage.append(Coverage(docset.name, counted.done, waiting, counted.error))
        return nothing_found_text(coverage, existing, selected)

    def scoped(self, query: SearchQuery) -> tuple[ScopedQuery, list[DocSet]]:
        """The query checked (its question, DocSets and ref) and bound to its DocSets, which
        come with it."""
        question = valid_query(query.question)
        docsets = self.searchable(query.docsets)
        ref = self.checked_ref(docsets, query.ref, named=bool(query.docsets))
        checked = replace(query, question=question, ref=ref)
        return checked.within(d.id for d in docsets), docsets

    def checked_ref(self, docsets: Sequence[DocSet], ref: str | None, named: bool) -> str | None:
        """The ref, if every named DocSet (or, for "all", some DocSet) is indexed at it.

        Never a silent fallback to another version: the error names the refs there are.
        """
        if ref is None or not ref.strip():
            return None
        ref = ref.strip()
        indexed = {d.name: [r.ref for r in self._store.documents.refs(d.id)] for d in docsets}
        lacking = [name for name, refs in indexed.items() if ref not in refs]
        if lacking and (named or len(lacking) == len(indexed)):
            raise NotFoundError(unknown_ref_message(ref, {n: indexed[n] for n in lacking}))
        return ref


def unknown_ref_message(ref: str, indexed: dict[str, list[str]]) -> str:
    """Which DocSets lack the ref, and the refs each of them is indexed at."""
    if not indexed:
        return f"No DocSet is indexed at ref {ref!r}."
    parts = [
        f"DocSet {name!r} is not indexed at ref {ref!r}; "
        + (f"its refs: {', '.join(refs)}." if refs else "it has no versioned (GitHub) sources.")
        for name, refs in indexed.items()
    ]
    return " ".join(parts)
