"""Fusion functions and query feedback for hybrid search, on both shared sets, side by side.

Issue 19 asks for docs section-level Recall@5 >= 0.85 with MRR >= 0.92 and code chunk-level
Recall@10 >= 0.93, locally, with no key. The app fuses its vector and full-text rankings by
weighted reciprocal rank fusion (RRF). This script scores other ways of combining the same two
candidate lists, all computed from one fetch per question:

- `rrf K:W`: the app's fusion, 1 / (K + vector rank) + W / (K + keyword rank);
- `cc A`: a convex combination of the two sides' scores, A * cosine' + (1 - A) * keyword',
  each side scaled to [0, 1] by its own candidates' minimum and maximum (a chunk missing
  from a side scores 0 there); `tm2c2 A` the same, scaled from each side's lowest possible
  score (cosine -1, keyword 0) instead of its candidates' lowest. Bruch, Gai and Ingber
  (2023, "An analysis of fusion functions for hybrid retrieval", ACM TOIS) found it better
  than RRF in and out of domain;
- `doc L`: the app's RRF plus L times the best fused score among the same document's
  candidates (a document-level prior: a chunk of a file or page that matches well elsewhere
  rises);
- `cc A + doc L`: the document-level prior over the convex combination;
- `prf B`: pseudo-relevance feedback on the vector side (Rocchio): the query vector plus B
  times the mean vector of the fused top 3 chunks, searched again, then fused with RRF at the
  app's defaults;
- `bm25 K1:B cc A`: the keyword side scored by Okapi BM25, as the app now does, instead of
  the former idf x ts_rank (same lexemes, same IDF, same candidate count): a term's
  frequency tf in a chunk counts tf (K1 + 1) / (tf + K1 (1 - B + B len / avg len)), len
  being the chunk's number of indexed words; then the convex combination with vector share A;
- `windows W` (applied to every variant above, like `div`): the variant's fused top 30
  reranked by (1 - W) x its fused score + W x the best cosine between the question and the
  chunk's windows of lines (about --window-chars characters each, embedded by the same local
  model; both min-max scaled over the 30): a passage that answers in one paragraph of a long
  chunk is not diluted by the rest of it.

Every variant keeps one hit per prose section and the first 10, as the app's search does,
and is scored with the evaluation's own matching (chunk level). The vector side is an exact
scan in numpy over the DocSet's stored MiniLM vectors (the app's HNSW scan with
ef_search 400 over a few thousand chunks returns the same neighbours; the `rrf 10:1.25` row
checks this against `ragspace eval`'s figures). The keyword side of every variant but `bm25`
is the app's former SQL, idf x ts_rank over the app's own candidate terms (`TS_RANK_SCORES`).

Usage (the DocSets `claude-docs` and `codebase` in DATA_DIR, as `bench/quality_model.py
--model minilm --data-dir DATA_DIR` leaves them):

    python bench/experiments/fusion_functions.py --data-dir /work/evaldata \
        --rrf 10:1.25 10:0.75 --cc 0.3 0.5 0.7 --prf 0.5 1
"""

import argparse
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: shared helpers
from embedder_throughput import DEFAULT_EVAL_DIR
from psycopg import sql
from psycopg.rows import dict_row

from ragspace.embedding.embedders import LocalEmbedder
from ragspace.eval.evaluation import (
    Dataset,
    load_claude_docs,
    load_codebase,
    match_hits,
    score_query,
)
from ragspace.models import Hit
from ragspace.ranking.selection import one_per_section
from ragspace.search.retrieval import keyword_terms
from ragspace.settings import load_settings
from ragspace.store import Database
from ragspace.store.keyword_side import KEYWORD_MAX_MATCHES, KEYWORD_MAX_TERMS, KEYWORD_TERMS

CANDIDATES = 50  # per side, as the app's default (--candidates)
FETCH = 30  # fused hits fetched before one-per-section, as the app's search for k = 10
K = 10
METRICS = ("recall@5", "recall@10", "mrr@10")
Scores = dict[int, float]  # chunk id -> a side's score

_CHUNKS = """
    select c.id as chunk_id, c.document_id, ds.name as docset_name, d.path, d.title,
           c.ordinal, c.content, c.start_line, c.end_line, c.metadata, 0.0 as score,
           c.embedding
    from chunks c join documents d on d.id = c.document_id join docsets ds on ds.id = c.docset_id
    where ds.name = %(name)s and c.embedding is not null
"""
# the keyword side until BM25 replaced it (2dc012a): idf x ts_rank of each chosen lexeme
TS_RANK_SCORES = (
    "with "
    + KEYWORD_TERMS
    + """
    unused as (select 1)
    select c.id, sum(w.idf * ts_rank(c.fts, w.query, 1))::float8 as score
    from weighted_terms w join chunks c on c.fts @@ w.query and c.docset_id = any(%(docsets)s)
    group by c.id order by score desc, c.id limit %(candidates)s
"""
)
# the lexemes the app's keyword side searches for, with their IDF
_WEIGHTED_TERMS = (
    "with " + KEYWORD_TERMS + " unused as (select 1) select lexeme, idf from weighted_terms"
)
# every chunk's indexed words: (chunk id, lexeme, occurrences)
_POSTINGS = """
    select c.id, u.lexeme, coalesce(array_length(u.positions, 1), 1)
    from chunks c join docsets ds on ds.id = c.docset_id, unnest(c.fts) as u
    where ds.name = %(name)s and c.embedding is not null
"""


@dataclass
class Corpus:
    """One DocSet's chunks as hits, their unit vectors, its id, and candidates per side."""

    docset_id: int
    hits: dict[int, Hit]
    ids: npt.NDArray[np.int64]
    vectors: npt.NDArray[np.float32]
    candidates: int = CANDIDATES
    # lexeme -> {chunk id: occurrences}, and each chunk's number of indexed words
    postings: dict[str, dict[int, int]] = field(default_factory=dict)
    lengths: dict[int, int] = field(default_factory=dict)
    embedder: LocalEmbedder | None = None
    window_chars: int = 300
    windows: dict[int, npt.NDArray[np.float32]] = field(default_factory=dict)

    def window_vectors(self, chunk_id: int) -> npt.NDArray[np.float32]:
        """Unit vectors of the chunk's windows of lines (embedded once, then kept)."""
        if chunk_id not in self.windows:
            assert self.embedder is not None
            vectors = np.asarray(
                self.embedder.embed(windows(self.hits[chunk_id].content, self.window_chars)),
                dtype=np.float32,
            )
            self.windows[chunk_id] = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        return self.windows[chunk_id]

    def nearest(self, query: npt.NDArray[np.float32]) -> Scores:
        """The `candidates` chunks closest to the query vector, with their cosines."""
        cosines = self.vectors @ (query / np.linalg.norm(query))
        best = np.argsort(-cosines, kind="stable")[: self.candidates]
        return {int(self.ids[i]): float(cosines[i]) for i in best}


def load_corpus(database: Database, name: str, candidates: int = CANDIDATES) -> Corpus:
    """Every embedded chunk of the DocSet `name`, with its indexed words."""
    with database.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(_CHUNKS, {"name": name}).fetchall()
        docset_id = cur.execute("select id from docsets where name = %s", (name,)).fetchone()
        words = conn.execute(_POSTINGS, {"name": name}).fetchall()
    assert docset_id is not None, f"no DocSet {name!r}"
    vectors = np.stack(
        [np.asarray(row.pop("embedding").to_numpy(), dtype=np.float32) for row in rows]
    )
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    postings: dict[str, dict[int, int]] = {}
    lengths: dict[int, int] = {}
    for chunk_id, lexeme, occurrences in words:
        postings.setdefault(lexeme, {})[chunk_id] = occurrences
        lengths[chunk_id] = lengths.get(chunk_id, 0) + occurrences
    hits = {row["chunk_id"]: Hit.model_validate(row) for row in rows}
    ids = np.array([row["chunk_id"] for row in rows], dtype=np.int64)
    return Corpus(int(docset_id["id"]), hits, ids, vectors, candidates, postings, lengths)


def keyword_params(corpus: Corpus, question: str) -> dict[str, Any]:
    """The app's keyword-side parameters for one question."""
    return {
        "terms": keyword_terms(question),
        "docsets": [corpus.docset_id],
        "candidates": corpus.candidates,
        "max_terms": KEYWORD_MAX_TERMS,
        "max_matches": KEYWORD_MAX_MATCHES,
    }


def keyword_scores(database: Database, corpus: Corpus, question: str) -> Scores:
    """The former full-text side: IDF-weighted ts_rank of the question's terms, best first."""
    params = keyword_params(corpus, question)
    if not params["terms"]:
        return {}
    with database.pool.connection() as conn:
        rows = conn.execute(sql.SQL(TS_RANK_SCORES), params).fetchall()
    return {int(row[0]): float(row[1]) for row in rows}


def weighted_terms(database: Database, corpus: Corpus, question: str) -> dict[str, float]:
    """The lexemes the app's keyword side searches for (lexeme -> IDF)."""
    params = keyword_params(corpus, question)
    if not params["terms"]:
        return {}
    with database.pool.connection() as conn:
        rows = conn.execute(sql.SQL(_WEIGHTED_TERMS), params).fetchall()
    return {str(lexeme): float(idf) for lexeme, idf in rows}


def bm25(corpus: Corpus, terms: dict[str, float], k1: float, b: float) -> Scores:
    """Okapi BM25 over the chunks holding any of `terms` (same IDF as the app), best
    `candidates` of them."""
    average = statistics.fmean(corpus.lengths.values())
    scores: Scores = {}
    for lexeme, idf in terms.items():
        for cid, tf in corpus.postings.get(lexeme, {}).items():
            norm = k1 * (1 - b + b * corpus.lengths[cid] / average)
            scores[cid] = scores.get(cid, 0.0) + idf * tf * (k1 + 1) / (tf + norm)
    best = sorted(scores, key=lambda cid: (-scores[cid], cid))[: corpus.candidates]
    return {cid: scores[cid] for cid in best}


def ranks(scores: Scores) -> dict[int, int]:
    """1-based ranks, best score first (ties by chunk id, as the SQL orders them)."""
    ordered = sorted(scores, key=lambda cid: (-scores[cid], cid))
    return {cid: rank for rank, cid in enumerate(ordered, start=1)}


def rrf(vector: Scores, keyword: Scores, rrf_k: float, weight: float) -> Scores:
    """Weighted reciprocal rank fusion, as the app's SQL computes it."""
    fused: Scores = {}
    for cid, rank in ranks(vector).items():
        fused[cid] = fused.get(cid, 0.0) + 1.0 / (rrf_k + rank)
    for cid, rank in ranks(keyword).items():
        fused[cid] = fused.get(cid, 0.0) + weight / (rrf_k + rank)
    return fused


def min_max(scores: Scores, floor: float | None = None) -> Scores:
    """Scores scaled to [0, 1] by their maximum and their minimum (or a fixed `floor`)."""
    if not scores:
        return {}
    high = max(scores.values())
    low = min(scores.values()) if floor is None else floor
    if high == low:  # one candidate, or all alike: all count as the side's best
        return dict.fromkeys(scores, 1.0)
    return {cid: (s - low) / (high - low) for cid, s in scores.items()}


def convex(vector: Scores, keyword: Scores, alpha: float, theoretical: bool = False) -> Scores:
    """alpha * scaled cosine + (1 - alpha) * scaled keyword score; a missing side counts 0.

    `theoretical` scales from each side's lowest possible score (cosine -1, keyword 0)
    instead of its candidates' lowest (Bruch et al.'s TM2C2).
    """
    v = min_max(vector, -1.0 if theoretical else None)
    w = min_max(keyword, 0.0 if theoretical else None)
    return {cid: alpha * v.get(cid, 0.0) + (1 - alpha) * w.get(cid, 0.0) for cid in v.keys() | w}


def ordered(corpus: Corpus, fused: Scores, diversity: float = 1.0) -> list[Hit]:
    """The app's order before its cut: FETCH best fused hits, one per prose section.

    With `diversity` below 1, each hit's score is multiplied by it once for every hit of
    the same document already taken (greedy, best adjusted score first).
    """
    best = sorted(fused, key=lambda cid: (-fused[cid], cid))[:FETCH]
    hits = [hit for _, hit in one_per_section([(fused[cid], corpus.hits[cid]) for cid in best])]
    if diversity >= 1.0:
        return hits
    taken: list[Hit] = []
    per_document: dict[int, int] = {}
    while hits:
        chosen = max(
            hits,
            key=lambda h: fused[h.chunk_id] * diversity ** per_document.get(h.document_id, 0),
        )
        hits.remove(chosen)
        taken.append(chosen)
        per_document[chosen.document_id] = per_document.get(chosen.document_id, 0) + 1
    return taken


def top(corpus: Corpus, fused: Scores, diversity: float = 1.0) -> list[Hit]:
    """The app's cut: the first K of `ordered`."""
    return ordered(corpus, fused, diversity)[:K]


@dataclass(frozen=True)
class Question:
    """One question's two candidate lists and its query vector."""

    vector_scores: Scores
    keyword_scores: Scores
    query: npt.NDArray[np.float32]
    terms: dict[str, float] = field(default_factory=dict)  # the keyword side's lexemes, IDF


Variant = Callable[[Corpus, Question], Scores]


def fuse_rrf(_corpus: Corpus, question: Question, rrf_k: float, weight: float) -> Scores:
    """The question's candidates fused by weighted RRF."""
    return rrf(question.vector_scores, question.keyword_scores, rrf_k, weight)


def fuse_convex(
    _corpus: Corpus, question: Question, alpha: float, theoretical: bool = False
) -> Scores:
    """The question's candidates fused by a convex combination of scaled scores."""
    return convex(question.vector_scores, question.keyword_scores, alpha, theoretical)


def variants(args: argparse.Namespace) -> dict[str, Variant]:
    """The named ways of fusing one question's candidates."""
    chosen: dict[str, Variant] = {}
    for spec in args.rrf:
        rrf_k, weight = (float(x) for x in spec.split(":"))
        chosen[f"rrf {spec}"] = partial(fuse_rrf, rrf_k=rrf_k, weight=weight)
    for alpha in args.cc:
        chosen[f"cc {alpha:g}"] = partial(fuse_convex, alpha=alpha)
        chosen[f"tm2c2 {alpha:g}"] = partial(fuse_convex, alpha=alpha, theoretical=True)
    for prior in args.doc:
        chosen[f"doc {prior:g}"] = partial(document_prior, prior=prior)
    for spec in args.cc_doc:
        alpha, prior = (float(x) for x in spec.split(":"))
        chosen[f"cc {alpha:g} + doc {prior:g}"] = partial(document_prior, prior=prior, alpha=alpha)
    for beta in args.prf:
        chosen[f"prf {beta:g}"] = partial(feedback, beta=beta)
    for spec in args.bm25:
        k1, b, alpha = (float(x) for x in spec.split(":"))
        label = f"bm25 {k1:g}:{b:g} cc {alpha:g}"
        chosen[label] = partial(fuse_bm25, k1=k1, b=b, alpha=alpha)
    return chosen


def windows(text: str, size: int) -> list[str]:
    """The chunk's text cut into runs of whole lines of about `size` characters."""
    found: list[str] = []
    current: list[str] = []
    length = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        if current and length + len(line) > size:
            found.append("\n".join(current))
            current, length = [], 0
        current.append(line)
        length += len(line) + 1
    if current:
        found.append("\n".join(current))
    return found or [text]


def rerank_by_windows(
    corpus: Corpus, question: Question, hits: list[Hit], fused: Scores, window: tuple[float, int]
) -> list[Hit]:
    """The first `depth` hits put in order again by (1 - weight) x their fused score +
    weight x their best window's cosine (both min-max scaled over those hits)."""
    weight, depth = window
    head, tail = hits[:depth], hits[depth:]
    if weight <= 0.0 or not head:
        return hits
    unit = question.query / np.linalg.norm(question.query)
    close = min_max(
        {h.chunk_id: float(np.max(corpus.window_vectors(h.chunk_id) @ unit)) for h in head}
    )
    score = min_max({h.chunk_id: fused[h.chunk_id] for h in head})
    mixed = {cid: (1 - weight) * score[cid] + weight * close[cid] for cid in score}
    return sorted(head, key=lambda h: -mixed[h.chunk_id]) + tail


def fuse_bm25(corpus: Corpus, question: Question, k1: float, b: float, alpha: float) -> Scores:
    """The convex combination with the keyword side scored by BM25."""
    return convex(question.vector_scores, bm25(corpus, question.terms, k1, b), alpha)


def document_prior(
    corpus: Corpus, question: Question, prior: float, alpha: float | None = None
) -> Scores:
    """The fused scores (RRF at the app's defaults, or `convex` with `alpha`) plus `prior`
    times the best fused score among the candidates of the chunk's document."""
    if alpha is None:
        fused = rrf(question.vector_scores, question.keyword_scores, 10, 1.25)
    else:
        fused = convex(question.vector_scores, question.keyword_scores, alpha)
    best: dict[int, float] = {}
    for cid, score in fused.items():
        document = corpus.hits[cid].document_id
        best[document] = max(best.get(document, 0.0), score)
    return {cid: s + prior * best[corpus.hits[cid].document_id] for cid, s in fused.items()}


def feedback(corpus: Corpus, question: Question, beta: float) -> Scores:
    """Rocchio on the vector side: query + beta * mean of the fused top 3, then RRF (defaults)."""
    first = top(corpus, rrf(question.vector_scores, question.keyword_scores, 10, 1.25))[:3]
    rows = [int(np.where(corpus.ids == hit.chunk_id)[0][0]) for hit in first]
    unit = question.query / np.linalg.norm(question.query)
    moved = unit + beta * corpus.vectors[rows].mean(axis=0) if rows else unit
    return rrf(corpus.nearest(moved), question.keyword_scores, 10, 1.25)


def labelled(label: str, diversity: float, window: tuple[float, int]) -> str:
    """A variant's label with its diversity factor and window reranking, when it has them."""
    if diversity < 1.0:
        label = f"{label}, div {diversity:g}"
    weight, depth = window
    return label if weight <= 0.0 else f"{label}, windows {weight:g} top {depth}"


def run(
    database: Database,
    embedder: LocalEmbedder,
    name: str,
    dataset: Dataset,
    chosen: dict[str, Variant],
    args: argparse.Namespace,
) -> dict[str, dict[str, float]]:
    """Mean chunk-level metrics of every variant on one set."""
    corpus = load_corpus(database, name, args.candidates)
    corpus.embedder, corpus.window_chars = embedder, args.window_chars
    reranks = [(w, d) for w in args.windows for d in args.window_depth if w > 0 or d == FETCH]
    stages = [(g, r) for g in args.diversity for r in reranks]
    per_variant: dict[str, list[dict[str, float]]] = {
        labelled(v, g, w): [] for v in chosen for g, w in stages
    }
    texts = [q.text for q in dataset.queries]
    queries = embedder.embed(texts)
    for query, vector in zip(dataset.queries, queries, strict=True):
        question = Question(
            corpus.nearest(vector),
            keyword_scores(database, corpus, query.text),
            vector,
            weighted_terms(database, corpus, query.text),
        )
        for label, variant in chosen.items():
            fused = variant(corpus, question)
            for gamma, window in stages:
                hits = ordered(corpus, fused, gamma)
                hits = rerank_by_windows(corpus, question, hits, fused, window)[:K]
                scored = score_query(match_hits(hits, query.gold), len(query.gold))
                per_variant[labelled(label, gamma, window)].append(scored)
    return {
        label: {m: statistics.fmean(s[m] for s in scores) for m in METRICS}
        for label, scores in per_variant.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--rrf", nargs="*", default=["10:1.25"], metavar="K:WEIGHT")
    parser.add_argument("--cc", nargs="*", type=float, default=[], metavar="ALPHA")
    parser.add_argument("--doc", nargs="*", type=float, default=[], metavar="L")
    parser.add_argument(
        "--diversity",
        nargs="*",
        type=float,
        default=[1.0],
        metavar="G",
        help="score each variant also with these per-document diversity factors (1: none)",
    )
    parser.add_argument("--candidates", type=int, default=CANDIDATES, help="per side")
    parser.add_argument("--cc-doc", nargs="*", default=[], metavar="ALPHA:L")
    parser.add_argument("--prf", nargs="*", type=float, default=[], metavar="BETA")
    parser.add_argument("--bm25", nargs="*", default=[], metavar="K1:B:ALPHA")
    parser.add_argument(
        "--windows",
        nargs="*",
        type=float,
        default=[0.0],
        metavar="W",
        help="score each variant also reranked by its windows' cosines with these weights",
    )
    parser.add_argument("--window-chars", type=int, default=300)
    parser.add_argument(
        "--window-depth",
        nargs="*",
        type=int,
        default=[FETCH],
        metavar="D",
        help="rerank only the first D hits (after one per section); 10 keeps recall@10",
    )
    args = parser.parse_args()
    sets = {
        "claude-docs": load_claude_docs(DEFAULT_EVAL_DIR / "claude-docs"),
        "codebase": load_codebase(DEFAULT_EVAL_DIR / "codebase"),
    }
    chosen = variants(args)
    database = Database.open(load_settings(env_file=None, data_dir=args.data_dir))
    try:
        embedder = LocalEmbedder(32, 2)
        results = {name: run(database, embedder, name, d, chosen, args) for name, d in sets.items()}
    finally:
        database.close()
    header = " | ".join(f"{s} {m}" for s in sets for m in METRICS)
    print(f"| variant | {header} |")
    print("|---|" + "---:|" * (len(sets) * len(METRICS)))
    for label in results["codebase"]:
        cells = " | ".join(f"{results[s][label][m]:.3f}" for s in sets for m in METRICS)
        print(f"| {label} | {cells} |")


if __name__ == "__main__":
    main()
