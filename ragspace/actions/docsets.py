"""DocSet actions: list, create, rename, describe, choose reranking, delete."""

from ragspace.actions.read_only import changes
from ragspace.actions.scope import SearchScope
from ragspace.actions.validation import valid_name
from ragspace.embedding.embedders import Embedder
from ragspace.models import DocSet, RefInfo
from ragspace.store import Store


class DocsetActions:
    """What a front end does with DocSets as a whole."""

    def __init__(
        self, store: Store, embedder: Embedder, scope: SearchScope, read_only: bool = False
    ) -> None:
        self.read_only = read_only
        self._store = store
        self._embedder = embedder
        self._scope = scope

    def database_problem(self) -> str | None:
        """Why the database cannot be used right now (it is being retried), or None."""
        health = getattr(self._store.pool, "health", None)
        problem: str | None = health.problem() if health is not None else None
        return problem

    def all(self) -> list[DocSet]:
        """Every DocSet with its document and chunk counts."""
        return self._store.docsets.all()

    def get(self, name: str) -> DocSet:
        """One DocSet by name."""
        return self._store.docsets.named(name)

    def refs(self, name: str) -> list[RefInfo]:
        """The refs (versions) a DocSet's GitHub sources are indexed at, by name."""
        return self._store.documents.refs(self._store.docsets.named(name).id)

    def needs_reembedding(self, docset: DocSet) -> bool:
        """True when the DocSet's vectors come from another model than the configured one."""
        return self._scope.needs_reembedding(docset)

    def embedding_notice(self, docset: DocSet) -> str:
        """Why a DocSet cannot be searched yet, or '' when it can."""
        return self._scope.embedding_notice(docset)

    @changes("create a DocSet")
    def create(self, name: str, description: str = "") -> DocSet:
        """A new, empty DocSet embedded with the configured model."""
        return self._store.docsets.create(
            valid_name(name),
            description.strip(),
            self._embedder.model_id,
            self._embedder.dimensions,
        )

    @changes("rename a DocSet")
    def rename(self, name: str, new_name: str) -> DocSet:
        """Rename a DocSet."""
        docset = self._store.docsets.named(name)
        return self._store.docsets.rename(docset.id, valid_name(new_name))

    @changes("change a DocSet's description")
    def describe(self, name: str, description: str) -> DocSet:
        """Replace a DocSet's description."""
        docset = self._store.docsets.named(name)
        return self._store.docsets.describe(docset.id, description.strip())

    @changes("choose whether a DocSet's answers are reranked")
    def choose_rerank(self, name: str, rerank: bool, evidence: str) -> DocSet:
        """Rerank answers over a DocSet, or keep its fused order; `evidence` says why."""
        docset = self._store.docsets.named(name)
        return self._store.docsets.choose_rerank(docset.id, rerank, evidence.strip())

    @changes("delete a DocSet")
    def delete(self, name: str) -> None:
        """Delete a DocSet and everything in it."""
        self._store.docsets.delete(self._store.docsets.named(name).id)
