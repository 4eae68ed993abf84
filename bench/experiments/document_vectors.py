"""A vector side over whole documents (issue 35, item 3): does a file's own vector find the
right file where no single chunk does?

    python bench/quality_pool.py index --work /work/pool        # once, as for the protocol
    python bench/quality_pool.py candidates --work /work/pool
    python bench/experiments/document_vectors.py fetch --work /work/pool
    python bench/experiments/document_vectors.py evaluate --work /work/pool [--ways top3,card]

`fetch` reads every chunk's vector of each set's DocSet and, for every question, scores each
document four ways (saved as JSON lines, best 100 documents per way), each offering the
document's best chunk (by cosine):
- `centroid`: the cosine of the question to the mean of the document's chunk vectors;
- `top3`: the mean of the document's three best chunk cosines, every chunk scanned;
- `softmax`: log-mean-exp of the chunk cosines at temperature 0.05 (between the best chunk
  and the mean of all);
- `card`: the cosine to the document's card text (path, title, headings, definitions: what
  the file side's BM25 reads) embedded, one more embedding per document.
`evaluate` adds two ways from the saved candidates alone (ranking/file_chunks.py: a file's
three best vector, or keyword, candidates), prints each way alone at file level, then puts
each of `--ways` into ranking as the document side (tried_signals' DOCUMENT, weighted by
TriedOptions.document_weight, offering its best chunk when no other side did) and tunes it
jointly with the kept signals under the protocol's folds, against those signals alone.
"""

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import quality_pool as qp

WAYS = ("centroid", "top3", "softmax", "card", "top3 of candidates", "keyword top3")
KEEP = 100
TEMPERATURE = 0.05


def fetch(work: Path) -> None:
    from ragspace.runtime import open_runtime
    from ragspace.settings import load_settings

    for pool_set in qp.SETS:
        target = work / f"document-vectors-{pool_set.name}.jsonl"
        if target.exists() or not (qp.data_dir(work, pool_set) / "indexed").exists():
            continue  # done already, or not indexed yet (run again later)
        settings = load_settings(data_dir=qp.data_dir(work, pool_set), database_url=None)
        runtime = open_runtime(settings, worker_threads=0)
        try:
            docset = runtime.store.docsets.named(pool_set.docset).id
            chunks = _chunks(runtime.store.pool, docset)
            vectors = np.stack([c.pop("embedding").to_numpy() for c in chunks]).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            documents = np.array([c["document_id"] for c in chunks])
            order = np.argsort(documents, kind="stable")
            starts = np.flatnonzero(np.r_[True, np.diff(documents[order]) != 0])
            ids = documents[order][starts]
            sums = np.add.reduceat(vectors[order], starts, axis=0)
            centroids = sums / np.linalg.norm(sums, axis=1, keepdims=True)
            cards = _card_vectors(runtime, [int(i) for i in ids])
            with target.open("w") as out:
                for query in qp.load_questions(pool_set).queries:
                    q = runtime.embedder.embed([query.text])[0].astype(np.float32)
                    q /= np.linalg.norm(q)
                    row = _scored(q, vectors[order], starts, ids, centroids, cards, order, chunks)
                    out.write(json.dumps({"question": query.text, **row}) + "\n")
        finally:
            runtime.close()
        print(f"{pool_set.name}: {len(chunks)} chunks, {len(ids)} documents", file=sys.stderr)


def _chunks(pool: Any, docset: int) -> list[dict[str, Any]]:
    from psycopg.rows import dict_row

    with pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            """
            select c.id as chunk_id, c.document_id, ds.name as docset_name, d.path, d.title,
                   c.ordinal, c.content, c.start_line, c.end_line, c.metadata,
                   0.0::float8 as score, c.embedding
            from chunks c join documents d on d.id = c.document_id
            join docsets ds on ds.id = c.docset_id
            where c.docset_id = %s and c.embedding is not null order by c.id
            """,
            (docset,),
        ).fetchall()


def _card_vectors(runtime: Any, documents: list[int]) -> np.ndarray[Any, Any]:
    """Each document's card text embedded, in `documents`' order, unit length."""
    with runtime.store.pool.connection() as conn:
        rows = conn.execute(
            "select id, document_card_text(id) from documents where id = any(%s)", (documents,)
        ).fetchall()
    text = {int(i): t or "" for i, t in rows}
    vectors = np.asarray(runtime.embedder.embed([text[d] for d in documents]), dtype=np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


def _scored(
    q: np.ndarray[Any, Any],
    ordered: np.ndarray[Any, Any],
    starts: np.ndarray[Any, Any],
    ids: np.ndarray[Any, Any],
    centroids: np.ndarray[Any, Any],
    cards: np.ndarray[Any, Any],
    order: np.ndarray[Any, Any],
    chunks: list[dict[str, Any]],
) -> dict[str, Any]:
    cosines = ordered @ q
    ends = np.r_[starts[1:], len(cosines)]
    best_chunk, top3, softmax = [], [], []
    for start, end in zip(starts, ends, strict=True):
        own = cosines[start:end]
        best_chunk.append(int(order[start + int(np.argmax(own))]))
        top3.append(float(np.mean(np.sort(own)[-3:])))
        softmax.append(
            float(
                own.max() + TEMPERATURE * np.log(np.mean(np.exp((own - own.max()) / TEMPERATURE)))
            )
        )
    ways = {
        "centroid": centroids @ q,
        "top3": np.array(top3),
        "softmax": np.array(softmax),
        "card": cards @ q,
    }
    row: dict[str, Any] = {}
    for way, values in ways.items():
        best = np.argsort(-values, kind="stable")[:KEEP]
        row[way] = [
            {"document": int(ids[i]), "score": float(values[i]), "hit": chunks[best_chunk[i]]}
            for i in best
        ]
    return row


def load_ways(
    work: Path, sets: list[qp.PoolSet]
) -> dict[str, dict[str, dict[str, list[dict[str, Any]]]]]:
    """set -> question -> way -> its documents, best first."""
    loaded: dict[str, dict[str, dict[str, list[dict[str, Any]]]]] = {}
    for pool_set in sets:
        rows = (
            json.loads(line) for line in (work / f"document-vectors-{pool_set.name}.jsonl").open()
        )
        loaded[pool_set.name] = {row["question"]: row for row in rows}
    return loaded


def add_top3_of_candidates(pool: dict[str, list[qp.Question]], ways: dict[str, Any]) -> None:
    from ragspace.ranking.candidates import Side

    _add_top3(pool, ways, Side.VECTOR, "top3 of candidates")
    _add_top3(pool, ways, Side.KEYWORD, "keyword top3")


def _add_top3(
    pool: dict[str, list[qp.Question]], ways: dict[str, Any], side: Any, way: str
) -> None:
    """The `top3` way from one side's own candidates only (what a search already has, no
    scan of every chunk), as the ranking computes it (file_chunks.best_chunks_mean)."""
    from ragspace.ranking.file_chunks import best_chunks_mean

    for name, questions in pool.items():
        for question in questions:
            means = best_chunks_mean(question.candidates, side)
            offered = [(e.score, c.hit) for c in question.candidates if (e := c.on(side))]
            best_hit: dict[int, Any] = {}
            for _score, hit in sorted(offered, key=lambda o: -o[0]):
                best_hit.setdefault(hit.document_id, hit)
            found = [
                {"document": d, "score": m, "hit": best_hit[d].model_dump(mode="json")}
                for d, m in sorted(means.items(), key=lambda item: -item[1])
            ]
            ways[name][question.text][way] = found[:KEEP]


def with_document_side(
    pool: dict[str, list[qp.Question]], ways: dict[str, Any], way: str, depth: int
) -> dict[str, list[qp.Question]]:
    """The pool with each question's document evidence replaced by `way`'s first `depth`
    documents: their candidate chunks carry it, and a document none of whose chunks is a
    candidate is offered by its best chunk."""
    from bench.experiments.tried_signals.whole_documents import DOCUMENT
    from ragspace.models import Hit
    from ragspace.ranking.candidates import Candidate, Evidence

    changed: dict[str, list[qp.Question]] = {}
    for name, questions in pool.items():
        changed[name] = []
        for question in questions:
            documents = ways[name][question.text][way][:depth]
            rank = {d["document"]: (i + 1, d["score"]) for i, d in enumerate(documents)}
            candidates = []
            seen: set[int] = set()
            for c in question.candidates:
                evidence = {s: e for s, e in c.evidence.items() if s != DOCUMENT}
                if c.hit.document_id in rank and c.hit.document_id not in seen:
                    evidence[DOCUMENT] = Evidence(*rank[c.hit.document_id])
                    seen.add(c.hit.document_id)
                if evidence:
                    candidates.append(Candidate(c.hit, evidence))
            offered = {c.hit.chunk_id for c in candidates}
            for d in documents:
                if d["document"] in seen or d["hit"]["chunk_id"] in offered:
                    continue
                hit = Hit.model_validate(d["hit"])
                candidates.append(Candidate(hit, {DOCUMENT: Evidence(*rank[d["document"]])}))
            changed[name].append(dataclasses.replace(question, candidates=candidates))
    return changed


def evaluate(work: Path, depth: int, tuned: list[str]) -> None:
    from ragspace.models import Hit
    from ragspace.ranking.options import RankingOptions
    from ragspace.ranking.ranker import rank

    ready = [s for s in qp.SETS if (work / f"document-vectors-{s.name}.jsonl").exists()]
    pool = qp.load_pool(work, ready)
    ways = load_ways(work, ready)
    add_top3_of_candidates(pool, ways)
    print("each way alone, file R@10 / MRR@10 (chunk vector side's files for comparison)")
    for way in WAYS:
        cells = []
        for name, questions in pool.items():
            by_text = ways[name]

            def alone(question: qp.Question, way: str = way, by_text: Any = by_text) -> list[Any]:
                return [Hit.model_validate(d["hit"]) for d in by_text[question.text][way][: qp.K]]

            got = qp.scores(questions, alone)
            cells.append(f"{name} {got['file recall@10']:.3f}/{got['file mrr@10']:.3f}")
        print(f"  {way:9s} " + "  ".join(cells))
    from ragspace.ranking.candidates import Side

    vector = {
        n: qp.scores(q, qp.at_depth(qp.side_alone(Side.VECTOR), depth)) for n, q in pool.items()
    }
    print(
        "  vector    "
        + "  ".join(
            f"{n} {v['file recall@10']:.3f}/{v['file mrr@10']:.3f}" for n, v in vector.items()
        )
    )

    shipped = RankingOptions()

    def family(options: RankingOptions) -> qp.Ranking:
        return qp.at_depth(lambda q: rank(q.candidates, options, q.text, qp.K), depth)

    # the axes the protocol's last row tunes (the kept signals), as its results file saved them
    kept_axes = json.loads(qp.RESULTS.read_text())["rows"][-1]["axes"]
    start = qp.today_ranking()
    floors = _floors(pool, depth)
    base_folds, base_shipped = qp.tuned_jointly(pool, family, kept_axes, start, floors)
    print(f"\nshipped signals tuned jointly (today's protocol): {qp.short(base_shipped)}")
    qp.print_row("  held out", base_folds)
    print(f"  the app's default now: {qp.short(shipped)}")
    for way in tuned:
        changed = with_document_side(pool, ways, way, depth)
        axes = {**kept_axes, "document_weight": [0.0, 0.1, 0.25, 0.5, 1.0]}
        folds, point = qp.tuned_jointly(changed, family, axes, start, floors)
        print(f"+ document vectors ({way}), tuned jointly: {qp.short(point)}")
        qp.print_row("  held out", folds)
        for name, fold in folds.items():
            print(f"    without {name}: {fold['chosen']}")
        for name, fold in base_folds.items():
            print(f"    {name}: " + _change(fold["scores"], folds[name]["scores"]))


def _change(before: dict[str, float], after: dict[str, float]) -> str:
    return "; ".join(
        f"{key} {before[key]:.3f}->{after[key]:.3f}"
        for key in ("file recall@10", "file mrr@10", "chunk recall@10", "chunk mrr@10")
    )


def _floors(pool: dict[str, list[qp.Question]], depth: int) -> dict[str, dict[str, float]]:
    from ragspace.ranking.candidates import Side

    floors: dict[str, dict[str, float]] = {}
    for name, questions in pool.items():
        sides = [
            qp.scores(questions, qp.at_depth(qp.side_alone(side), depth))
            for side in (Side.VECTOR, Side.KEYWORD)
        ]
        floors[name] = {
            f"{level} {metric}": max(s[f"{level} {metric}"] for s in sides) - 0.01
            for level in ("chunk", "file")
            for metric in qp.LEVEL_METRICS
        }
    return floors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("fetch", "evaluate"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/ragspace-pool"))
    parser.add_argument("--depth", type=int, default=50)
    parser.add_argument("--ways", default=",".join(WAYS), help="ways tuned into the ranking")
    args = parser.parse_args()
    if args.step == "fetch":
        fetch(args.work)
    else:
        evaluate(args.work, args.depth, [w for w in args.ways.split(",") if w])


if __name__ == "__main__":
    main()
