"""Evaluation actions: score a question set against one DocSet."""

from ragspace.actions.read_only import changes
from ragspace.actions.scope import SearchScope
from ragspace.errors import ValidationError
from ragspace.eval.evaluation import Dataset
from ragspace.eval.runner import EvalOptions, EvalReport, Evaluator, Progress


class EvaluationActions:
    """Retrieval and answer quality measured on a DocSet."""

    def __init__(self, evaluator: Evaluator, scope: SearchScope, read_only: bool = False) -> None:
        self.read_only = read_only
        self._evaluator = evaluator
        self._scope = scope

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
        return self._evaluator.run(
            [docset.id], docset.name, dataset, options or EvalOptions(), progress
        )
