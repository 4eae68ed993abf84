"""Where does the keyword side lose to semble's BM25 on code, and what closes it? (issue 68)

Over the chunks a set's database already holds (bench/semble_dev.py's data folders), each
variant of the chunks' full-text vector is computed by Postgres itself (`to_tsvector` over
another text: the path's words, identifiers kept whole...), and the keyword side's BM25 is
replayed in Python over every chunk with the variant's parameters and term choice, so what
the SQL change would give is measured before it is made. Scores semble's chunk NDCG@10 per
set (docs-dev: page MRR@10) of the keyword side alone, and per question beside semble's own
BM25 (`semble_peer_queries.py`'s output, `--peer`).

    python bench/experiments/code_keywords.py --work /work/semble-pool [--sets a,b] \
        [--variants today,paths] [--peer peer-questions.jsonl] [--per-question]
"""

import argparse
import json
import math
import pickle
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
from app_harness import default_eval_dir  # noqa: E402

SEMBLE_DEV = default_eval_dir() / "semble-dev"
sys.path.insert(0, str(SEMBLE_DEV))
from score_semble import load_questions, semble_ndcg  # noqa: E402

K = 10

# The chunk text each variant feeds `to_tsvector('english', ...)`: SQL over chunks c and
# documents d. `today` is migration 20261201100000's trigger.
TODAY = "c.header || ' ' || c.content || ' ' || identifier_words(c.header || ' ' || c.content)"
# the file's stem twice and its last three directories' words (semble's enrich_for_bm25)
PATH_WORDS = (
    "repeat(regexp_replace(regexp_replace(d.path, '^.*/', ''), '\\.[^.]*$', '') || ' ', 2)"
    " || array_to_string((string_to_array(d.path, '/'))"
    "[greatest(2, cardinality(string_to_array(d.path, '/')) - 3):"
    "cardinality(string_to_array(d.path, '/')) - 1], ' ')"
)
PATH_TEXT = f"{PATH_WORDS} || ' ' || identifier_words({PATH_WORDS})"
# snake_case identifiers also whole (`my_func` -> `myfunc`), as camelCase ones already are
SNAKE_WHOLE = (
    "coalesce((select string_agg(replace(m[1], '_', ''), ' ') from regexp_matches("
    "c.content, '([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)', 'g') as m), '')"
)
# migration 20261206000000_code_path_words.sql's path_words(): the last three directories
LAST_DIRS = (
    "repeat(regexp_replace(regexp_replace(d.path, '^.*/', ''), '\\.[^.]*$', '') || ' ', 2)"
    " || array_to_string((string_to_array(d.path, '/'))"
    "[greatest(1, cardinality(string_to_array(d.path, '/')) - 3):"
    "cardinality(string_to_array(d.path, '/')) - 1], ' ')"
)
VARIANTS = {
    "last dirs": f"{TODAY} || ' ' || {LAST_DIRS} || ' ' || identifier_words({LAST_DIRS})",
    "today": TODAY,
    "paths": f"{TODAY} || ' ' || {PATH_TEXT}",
    "paths+snake": f"{TODAY} || ' ' || {PATH_TEXT} || ' ' || {SNAKE_WHOLE}",
    "no header": "c.content || ' ' || identifier_words(c.content)",
}


@dataclass
class Chunks:
    """One set's chunks under one variant: each chunk's lexeme counts and its place."""

    ids: list[int]
    places: list[tuple[str, int, int]]  # path, start line, end line
    counts: list[dict[str, int]]
    df: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        for chunk in self.counts:
            self.df.update(chunk.keys())
        self.lengths = [sum(c.values()) for c in self.counts]
        self.average = sum(self.lengths) / max(len(self.lengths), 1)
        self.postings: dict[str, list[int]] = {}
        for index, chunk in enumerate(self.counts):
            for lexeme in chunk:
                self.postings.setdefault(lexeme, []).append(index)


def connect(folder: Path) -> Any:
    import psycopg

    from ragspace.store.database import EmbeddedPostgres

    server = EmbeddedPostgres(folder)
    return server, psycopg.connect(server.start())


def load_chunks(folder: Path, variant: str, cache: Path) -> Chunks:
    if cache.exists():
        loaded: Chunks = pickle.loads(cache.read_bytes())
        return loaded
    server, conn = connect(folder)
    try:
        rows = conn.execute(
            "select c.id, d.path, c.start_line, c.end_line from chunks c"
            " join documents d on d.id = c.document_id order by c.id"
        ).fetchall()
        counts: dict[int, dict[str, int]] = {row[0]: {} for row in rows}
        expression = VARIANTS[variant]
        for chunk, lexeme, n in conn.execute(
            "select c.id, u.lexeme, coalesce(array_length(u.positions, 1), 1)"
            " from chunks c join documents d on d.id = c.document_id,"
            f" unnest(to_tsvector('english', {expression})) u"
        ):
            counts[chunk][lexeme] = n
    finally:
        conn.close()
        server.stop()
    chunks = Chunks(
        [r[0] for r in rows], [(r[1], r[2], r[3]) for r in rows], [counts[r[0]] for r in rows]
    )
    cache.write_bytes(pickle.dumps(chunks))
    return chunks


def query_lexemes(
    folder: Path, questions: Sequence[str], cache: Path, split: bool = False
) -> dict[str, list[str]]:
    """Each question's lexemes as the keyword side makes them (keyword_terms, then
    to_tsvector), in one connection; with `split`, its identifiers' words too
    (`StrAppend` -> str, append, as semble's query tokens)."""
    if cache.exists():
        loaded: dict[str, list[str]] = json.loads(cache.read_text())
        return loaded
    from ragspace.search.retrieval import keyword_terms

    server, conn = connect(folder)
    try:
        found = {
            q: list(
                conn.execute(
                    "select coalesce(array_agg(distinct lexeme), '{}') from"
                    " unnest(tsvector_to_array(to_tsvector('english', %s || ' ' ||"
                    " case when %s then identifier_words(%s) else '' end))) lexeme",
                    (" ".join(keyword_terms(q)), split, q),
                ).fetchone()[0]
            )
            for q in questions
        }
    finally:
        conn.close()
        server.stop()
    cache.write_text(json.dumps(found))
    return found


@dataclass(frozen=True)
class Bm25:
    """The keyword side's scoring: BM25's constants and how the query's terms are chosen."""

    k1: float = 2.0
    b: float = 0.6
    max_terms: int | None = 8  # None: every term (semble)
    max_matches: int = 2_000


def chosen_terms(chunks: Chunks, lexemes: Sequence[str], bm25: Bm25) -> list[str]:
    """KEYWORD_TERMS' choice: the rarest lexemes, up to max_terms and max_matches chunks,
    none in more than half the chunks unless nothing rarer matched."""
    present = sorted((chunks.df[x], x) for x in lexemes if chunks.df[x] > 0)
    if bm25.max_terms is None:
        return [x for _, x in present]
    kept, matched = [], 0
    for rarity, (df, lexeme) in enumerate(present, 1):
        matched += df
        if rarity == 1 or (
            rarity <= bm25.max_terms and matched <= bm25.max_matches and df <= len(chunks.ids) / 2
        ):
            kept.append(lexeme)
    return kept


def ranked(chunks: Chunks, lexemes: Sequence[str], bm25: Bm25, depth: int = K) -> list[int]:
    n = len(chunks.ids)
    scores: dict[int, float] = {}
    for lexeme in chosen_terms(chunks, lexemes, bm25):
        df = chunks.df[lexeme]
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for index in chunks.postings[lexeme]:
            tf = chunks.counts[index][lexeme]
            norm = 1 - bm25.b + bm25.b * chunks.lengths[index] / chunks.average
            scores[index] = scores.get(index, 0.0) + idf * tf * (bm25.k1 + 1) / (
                tf + bm25.k1 * norm
            )
    order = sorted(scores, key=lambda i: (-scores[i], chunks.ids[i]))
    return order[:depth]


def set_questions(name: str) -> list[dict[str, Any]]:
    for folder in (SEMBLE_DEV, default_eval_dir() / "docs-dev"):
        if (folder / f"{name}.jsonl").exists():
            return load_questions(folder / f"{name}.jsonl")
    raise SystemExit(f"no questions for {name}")


def question_score(chunks: Chunks, order: Sequence[int], question: dict[str, Any]) -> float:
    hits = [chunks.places[i] for i in order]
    if "library" in question:  # docs-dev: page-level MRR
        pages = [(path, None, None) for path, _, _ in question["targets"]]
        for rank, (path, _s, _e) in enumerate(hits[:K], 1):
            if any(semble_ndcg([(path, 1, 1)], [p], 1) > 0 for p in pages):
                return 1 / rank
        return 0.0
    return semble_ndcg(hits, question["targets"], K)


def evaluate(
    work: Path,
    names: Sequence[str],
    variants: Sequence[str],
    grid: Sequence[Bm25],
    split: bool = False,
) -> dict[tuple[str, str, Bm25], list[float]]:
    """Per (set, variant, BM25 point) the questions' scores."""
    table: dict[tuple[str, str, Bm25], list[float]] = {}
    cache = work / "code-keywords-cache"
    cache.mkdir(exist_ok=True)
    for name in names:
        folder = work / f"data-{name}"
        questions = set_questions(name)
        suffix = ".split" if split else ""
        lexemes = query_lexemes(
            folder, [q["question"] for q in questions], cache / f"{name}.q{suffix}.json", split
        )
        for variant in variants:
            chunks = load_chunks(folder, variant, cache / f"{name}.{variant}.pickle")
            for point in grid:
                table[(name, variant, point)] = [
                    question_score(chunks, ranked(chunks, lexemes[q["question"]], point), q)
                    for q in questions
                ]
        print(name, file=sys.stderr, flush=True)
    return table


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/work/semble-pool"))
    parser.add_argument("--sets", help="comma-separated (default: every indexed set)")
    parser.add_argument("--variants", default="today")
    parser.add_argument("--grid", action="store_true", help="k1, b and term choice too")
    parser.add_argument("--split-query", action="store_true", help="identifiers' words too")
    parser.add_argument("--points", help="k1:b:terms:matches,... (terms 0: every term)")
    args = parser.parse_args()
    names = (
        args.sets.split(",")
        if args.sets
        else sorted(
            p.name.removeprefix("data-")
            for p in args.work.glob("data-*")
            if (p / "keywords").exists()
        )
    )
    variants = args.variants.split(",")
    grid = [Bm25()]
    if args.grid:
        grid = [
            Bm25(k1, b, terms)
            for k1 in (1.2, 1.5, 2.0)
            for b in (0.5, 0.6, 0.75, 0.9)
            for terms in (8, None)
        ]
    if args.points:
        grid = []
        for point in args.points.split(","):
            k1, b, terms, matches = point.split(":")
            grid.append(Bm25(float(k1), float(b), int(terms) or None, int(matches)))
    table = evaluate(args.work, names, variants, grid, args.split_query)
    print("| variant | k1 | b | terms | " + " | ".join(names) + " | mean |")
    for variant in variants:
        for point in grid:
            cells = [mean(table[(n, variant, point)]) for n in names]
            terms = f"{point.max_terms or 'all'}/{point.max_matches}"
            print(
                f"| {variant} | {point.k1} | {point.b} | {terms} | "
                + " | ".join(f"{c:.3f}" for c in cells)
                + f" | {mean(cells):.3f} |"
            )


if __name__ == "__main__":
    main()
