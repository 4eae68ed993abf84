"""Whether reranking helps a DocSet: hybrid against hybrid+rerank in one evaluation.

Published results and our own show a reranker after hybrid fusion helping some collections
and hurting others, so the choice is per DocSet and rests on the DocSet's own questions.
"""

from dataclasses import dataclass
from datetime import date

from ragspace.eval.runner import RERANK, EvalReport, ModeResult
from ragspace.models import RetrievalMode

SCORED = (("Recall@5", "recall@5"), ("Recall@10", "recall@10"), ("MRR@10", "mrr@10"))


@dataclass(frozen=True)
class RerankDelta:
    """Chunk-level scores of the fused order and of the reranked one on the same questions."""

    docset: str
    questions: int
    fused: ModeResult
    reranked: ModeResult

    def change(self, metric: str) -> float:
        """Reranked minus fused, chunk level."""
        return self.reranked.chunk[metric] - self.fused.chunk[metric]

    @property
    def helps(self) -> bool:
        """Worth its model calls: the first relevant passage ranks higher on average (MRR@10
        up) and no relevant passage leaves the top 5 on average (Recall@5 not down)."""
        return self.change("mrr@10") > 0 and self.change("recall@5") >= 0

    def scores(self) -> str:
        """The measured change, one line: Recall@5, Recall@10, MRR@10, search time."""
        parts = [
            f"{label} {self.fused.chunk[metric]:.3f} → {self.reranked.chunk[metric]:.3f} "
            f"({self.change(metric):+.3f})"
            for label, metric in SCORED
        ]
        time = f"median search {self.fused.p50_ms:,.0f} → {self.reranked.p50_ms:,.0f} ms"
        return f"{', '.join(parts)}; {time}"

    def evidence(self, on: date) -> str:
        """What a saved choice rests on, as the Evaluate tab shows it later."""
        return f"evaluated {on.isoformat()} on {self.questions} questions: {self.scores()}"


def rerank_delta(report: EvalReport) -> RerankDelta | None:
    """The delta, or None when the evaluation did not rerank (no chat model configured)."""
    by_mode = {result.mode: result for result in report.modes}
    fused, reranked = by_mode.get(RetrievalMode.HYBRID.value), by_mode.get(RERANK)
    if fused is None or reranked is None:
        return None
    return RerankDelta(report.docset, report.questions, fused, reranked)
