"""Evaluation actions: score a question set against one DocSet."""

from collections.abc import Callable

from ragspace.actions.corpora import embed_pending, store_corpus
from ragspace.actions.read_only import changes
from ragspace.actions.scope import SearchScope
from ragspace.errors import ConfigError, ValidationError
from ragspace.eval.evaluation import Dataset, files_missing
from ragspace.eval.runner import EvalOptions, EvalReport, Evaluator, Progress
from ragspace.ingestion.worker import Ingestor
from ragspace.models import DocSet
from ragspace.store import Store


class EvaluationActions:
    """Retrieval and answer quality measured on a DocSet."""

    def __init__(
        self,
        evaluator: Evaluator,
        scope: SearchScope,
        read_only: bool = False,
        store: Store | None = None,
        ingestor: Ingestor | None = None,
    ) -> None:
        self.read_only = read_only
        self._evaluator = evaluator
        self._scope = scope
        self._store = store
        self._ingestor = ingestor

    @changes("load evaluation corpora")
    def load_corpus(self, docset_name: str, dataset: Dataset, report: Callable[[int], None]) -> int:
        """Store a data set's documents in an existing DocSet and embed them in this process
        (`report(documents embedded)` now and then); returns how many jobs ran."""
        if self._store is None or self._ingestor is None:
            raise ConfigError("Evaluation corpora are loaded only where ingestion runs here.")
        store_corpus(self._store, docset_name, dataset)
        return embed_pending(self._store, self._ingestor, docset_name, report)

    @changes("run evaluations")  # thousands of searches and, with a key, paid model calls
    def run(
        self,
        docset_name: str,
        dataset: Dataset,
        options: EvalOptions | None = None,
        progress: Progress | None = None,
    ) -> EvalReport:
        """Score a question set against one DocSet in every retrieval mode; grade answers."""
        docset = self._scope.searchable([docset_name])[0]
        if docset.chunk_count == 0:
            raise ValidationError(f"DocSet {docset.name!r} has no embedded chunks to evaluate yet.")
        notes = self._missing_files(docset, dataset)
        report = self._evaluator.run(
            [docset.id], docset.name, dataset, options or EvalOptions(), progress
        )
        return report.model_copy(update={"notes": [*notes, *report.notes]})

    def _missing_files(self, docset: DocSet, dataset: Dataset) -> list[str]:
        """A note when some of the files the questions point to are not in the DocSet; an
        error when none is: every score would be 0, which says nothing of the search."""
        if self._store is None:
            return []
        paths = [d.path for d in self._store.documents.all([docset.id])]
        missing, wanted = files_missing(dataset, paths)
        if not missing:
            return []
        shown = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        if len(missing) == wanted:
            raise ValidationError(
                f"None of the files this question set points to ({shown}) is in DocSet "
                f"{docset.name!r}: every score would be 0. Evaluate the DocSet they come from."
            )
        return [
            f"{len(missing)} of the {wanted} files the questions point to are not in "
            f"{docset.name!r} ({shown}): their questions cannot score."
        ]
