"""Issue 40, step 3: is the parse's scope chain a better chunk header than the line patterns'?

Today a code chunk's header (embedded and keyword-searched with its text) is
`path | class Session / def request`, from the per-language line patterns. The parse's scope
chain for the same chunk is stored beside it (`metadata.scope`, e.g. `["Session", "request"]`).
This rewrites, in a COPY of the quality pool's data folders, every code chunk that has a
parsed scope to carry `path > Session > request` (joined by U+203A) instead, re-embeds
exactly those chunks with the same local model (header, content hash, vector; the keyword
vector follows, recomputed by the chunks' full-text trigger), and leaves every other row alone. Then
`bench/quality_pool.py candidates` and `evaluate --work <copy>` score the variant with the
same protocol as the shipped one.

    cp -a /work/pool /work/pool-scope   # the pool, indexed as shipped (servers stopped)
    python bench/experiments/scope_headers.py --work /work/pool-scope
    python bench/quality_pool.py candidates --work /work/pool-scope
    python bench/quality_pool.py evaluate --work /work/pool-scope
    python bench/experiments/scope_headers.py --compare /work/pool /work/pool-scope

`--compare` scores the app's ranking (`RankingOptions()`, no refit) on each pool's saved
candidates, so the two headers meet with the same options.
"""

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: shared helpers

from quality_pool import SETS, data_dir

from ragspace.runtime import open_runtime
from ragspace.settings import load_settings
from ragspace.text.hashing import content_hash

BATCH = 256
SEPARATOR = " \u203a "  # the issue's `path \u203a Session \u203a request`


def scope_header(header: str, scope: list[str]) -> str:
    """`path > Session > request` (SEPARATOR) from today's `path | class Session / def request`."""
    path = header.split(" | ", 1)[0]
    return SEPARATOR.join([path, *scope])


def rewrite(work: Path, name: str) -> None:
    pool_set = next(s for s in SETS if s.name == name)
    settings = load_settings(data_dir=data_dir(work, pool_set), database_url=None)
    runtime = open_runtime(settings, worker_threads=0)
    try:
        pool, embedder = runtime.store.pool, runtime.embedder
        with pool.connection() as conn:
            rows: list[tuple[Any, ...]] = conn.execute(
                "select id, header, content, metadata -> 'scope' from chunks"
                " where jsonb_typeof(metadata -> 'scope') = 'array' order by id"
            ).fetchall()
        changed = [
            (chunk_id, new, content)
            for chunk_id, header, content, scope in rows
            if scope and (new := scope_header(header, scope)) != header
        ]
        print(f"{name}: {len(changed)} of {len(rows)} scoped chunks change", file=sys.stderr)
        started = time.perf_counter()
        for start in range(0, len(changed), BATCH):
            batch = changed[start : start + BATCH]
            texts = [f"{header}\n\n{content}" for _, header, content in batch]
            vectors = embedder.embed(texts)
            with pool.connection() as conn, conn.cursor() as cursor:
                cursor.executemany(
                    "update chunks set header = %s, content_hash = %s, embedding = %s"
                    " where id = %s",
                    [
                        (header, content_hash(text), vector, chunk_id)
                        for (chunk_id, header, _), text, vector in zip(
                            batch, texts, vectors, strict=True
                        )
                    ],
                )
            done = start + len(batch)
            rate = done / (time.perf_counter() - started)
            print(f"{name}: {done}/{len(changed)} ({rate:.0f} chunks/s)", file=sys.stderr)
    finally:
        runtime.close()


def compare(works: list[Path]) -> None:
    """The app's ranking on each pool's candidates: headline, chunk and file figures."""
    from quality_pool import HEADLINE, K, at_depth, chosen_sets, load_pool, scores

    from ragspace.ranking.options import RankingOptions
    from ragspace.ranking.ranker import rank

    options = RankingOptions()
    for work in works:
        print(f"{work}, RankingOptions():")
        for name, questions in load_pool(work, chosen_sets(None)).items():
            ranking = at_depth(lambda q: rank(q.candidates, options, q.text, K), 50)
            figures = scores(questions, ranking)
            cells = [
                f"{figures[a]:.3f}/{figures[b]:.3f}"
                for a, b in (
                    HEADLINE[name],
                    ("chunk recall@10", "chunk mrr@10"),
                    ("file recall@10", "file mrr@10"),
                )
            ]
            print(f"  {name:12s} headline {cells[0]}  chunk {cells[1]}  file {cells[2]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path)
    parser.add_argument("--sets", nargs="*", default=[s.name for s in SETS])
    parser.add_argument("--compare", type=Path, nargs="+", help="pools to score side by side")
    args = parser.parse_args()
    if args.compare:
        compare(args.compare)
        return
    if args.work is None:
        parser.error("--work is required to rewrite a pool")
    for name in args.sets:
        rewrite(args.work, name)


if __name__ == "__main__":
    main()
