"""Vector pseudo-relevance feedback (Rocchio) over the pool's candidates (issue 35).

A question's words and the words of the passages that answer it often differ; the first
ranking's best chunks say what an answer looks like. The question's MiniLM vector q becomes
q + beta * mean(vectors of the shipped ranking's first m chunks), normalised; the vector
side becomes that vector's order of the question's candidates (every side's, first DEPTH
kept), the other sides as saved, and the shipped ranking (`RankingOptions()`) ranks again.
A chunk no side offered cannot come in (as in stronger_model.py); beta 0 re-scores the same
candidates with the question alone, which reproduces the saved pool's figures exactly.

    python bench/experiments/vector_feedback.py --work /work/pool

Prints each set's vectors found and the largest difference between the stored similarities
and the ones computed here (0 when the question is embedded as the app embeds it), every
(beta, m)'s in-sample headline figures, and each held-out set's figures at the (beta, m)
best on the other four (the shipped options fixed).
"""

import argparse
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import quality_pool as qp
from stronger_model import set_rows, shipped_pool, with_vector_side

from ragspace.embedding.embedders import LocalEmbedder
from ragspace.ranking.candidates import Side
from ragspace.ranking.options import RankingOptions
from ragspace.settings.retrieval import RETRIEVAL_CANDIDATES

DEPTH = RETRIEVAL_CANDIDATES
Setting = tuple[float, int]  # beta, m
SETTINGS: list[Setting] = [(0.0, 0)] + [
    (beta, m) for beta in (0.25, 0.5, 1.0) for m in (1, 3, 5, 10)
]
Vector = np.ndarray[Any, np.dtype[np.float32]]


def stored_vectors(work: Path, name: str, ids: set[int]) -> dict[int, Vector]:
    """The chunks' MiniLM vectors as the set's database holds them."""
    rows = set_rows(
        work,
        name,
        "select id, embedding from chunks where id = any(%s) and embedding is not null",
        (sorted(ids),),
    )
    return {row["id"]: np.asarray(row["embedding"].to_numpy(), np.float32) for row in rows}


def with_feedback(
    question: qp.Question,
    asked: Vector,
    first: Sequence[int],
    vectors: dict[int, Vector],
    setting: Setting,
) -> qp.Question:
    """The question with the fed-back vector's order of its candidates as its vector side."""
    beta, m = setting
    top = [chunk for chunk in first if chunk in vectors][:m]
    moved = asked + beta * np.mean([vectors[c] for c in top], axis=0) if beta and top else asked
    unit = moved / np.linalg.norm(moved)
    hits = [c.hit for c in question.candidates if c.hit.chunk_id in vectors]
    cosines = [float(vectors[hit.chunk_id] @ unit) for hit in hits]
    order = sorted(range(len(hits)), key=lambda n: (-cosines[n], hits[n].chunk_id))[:DEPTH]
    return with_vector_side(question, [(hits[n], cosines[n]) for n in order], DEPTH)


def variants(
    work: Path, pool: dict[str, list[qp.Question]], shipped: qp.AppRanking
) -> dict[Setting, dict[str, list[qp.Question]]]:
    """Every setting's questions, per set."""
    embedder = LocalEmbedder()
    result: dict[Setting, dict[str, list[qp.Question]]] = {s: {} for s in SETTINGS}
    for name, questions in pool.items():
        vectors = stored_vectors(
            work, name, {c.hit.chunk_id for q in questions for c in q.candidates}
        )
        asked = embedder.embed([q.text for q in questions])
        gaps = [
            abs(float(asked[n] @ vectors[c.hit.chunk_id]) - c.evidence[Side.VECTOR].score)
            for n, q in enumerate(questions)
            for c in q.candidates
            if Side.VECTOR in c.evidence and c.hit.chunk_id in vectors
        ]
        print(f"{name}: {len(vectors)} vectors, largest similarity gap {max(gaps):.4f}")
        firsts = [[hit.chunk_id for hit in shipped(q)] for q in questions]
        for setting in SETTINGS:
            result[setting][name] = [
                with_feedback(q, asked[n], firsts[n], vectors, setting)
                for n, q in enumerate(questions)
            ]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/work/pool"))
    args = parser.parse_args()
    pool = shipped_pool(args.work, None, DEPTH)
    shipped = qp.AppRanking(RankingOptions(), DEPTH)
    table = {
        setting: {name: qp.scores(questions, shipped) for name, questions in sets.items()}
        for setting, sets in variants(args.work, pool, shipped).items()
    }
    names = list(pool)
    print(
        "saved pool "
        + "  ".join(f"{n} {qp.headline_cell(n, qp.scores(pool[n], shipped))}" for n in names)
    )
    for setting, figures in table.items():
        print(f"{setting} " + "  ".join(f"{n} {qp.headline_cell(n, figures[n])}" for n in names))
    folds = qp.folds_of(pool)
    print("held out ((beta, m) chosen on the other four; the shipped options fixed):")
    for held_out in folds:
        training = [name for name in folds if name != held_out]
        best = max(
            SETTINGS,
            key=lambda s: statistics.mean(qp.objective(table[s][n]) for n in training),
        )
        print(
            f"  {held_out:12s} {best}: {qp.headline_cell(held_out, table[best][held_out])}"
            f" (beta 0: {qp.headline_cell(held_out, table[(0.0, 0)][held_out])})"
        )


if __name__ == "__main__":
    main()
