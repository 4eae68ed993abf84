"""semble-dev (and docs-dev) indexed as a user would, scored with semble's NDCG@10 (issue 68).

Three steps, each resumable:

    python bench/semble_dev.py index --work DIR        # keyword-searchable first, then vectors
    python bench/semble_dev.py candidates --work DIR   # every question's candidates, saved
    python bench/semble_dev.py evaluate --work DIR [--peer PEER.json] [--write]

`index` unpacks each semble-dev tarball (and each docs-dev site's) and, in a fresh data folder
per set, runs the real CLI: `ragspace docset create` and `ragspace add dir --wait`. Every set
is made keyword-searchable first (the `add dir` is stopped once `ragspace status --json`
counts every document keyword-searchable), then each set's vectors are embedded with
`ragspace status NAME --wait`, so keyword-side work can start while the vectors embed (about
20 chunks/s here). `candidates` saves each question's candidates per side from the set's own
database (bench/quality_pool.py's `save_candidates`: the query the app runs); it can run
after the keyword phase (`--phase keywords`: the vector side then offers nothing) and again
once the vectors are in. `evaluate` ranks the saved candidates (ragspace/ranking/) as the
app's keyword, vector and hybrid modes and as a keyword-only search given the full ranking,
and scores them with semble's definition (chunk-level NDCG@10 = `score_semble.semble_ndcg`;
docs-dev: page-level MRR and Recall@5), per repository and per language, beside
`published.json` and `semble_peer.py`'s figures (`--peer`, its `--json` output).
`--write` saves bench/results/semble_dev.json.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
from app_harness import default_eval_dir  # noqa: E402

from bench.pool.scoring import keyword_sides  # noqa: E402
from bench.pool.semble import language_table, repo_table  # noqa: E402

SHARED = default_eval_dir()
SEMBLE = SHARED / "semble-dev"
DOCS = SHARED / "docs-dev"
RESULTS = ROOT / "bench" / "results" / "semble_dev.json"
POLL_SECONDS = 5.0
K = 10


@dataclass(frozen=True)
class TarballSet:
    """A corpus shipped as a tarball of `<name>/...` with a JSONL question set."""

    name: str
    tarball: Path
    questions: Path
    kind: str  # "code" (semble-dev) or "docs" (docs-dev, a guard)
    language: str = ""

    @property
    def docset(self) -> str:
        return self.name


def semble_sets() -> list[TarballSet]:
    published = json.loads((SEMBLE / "published.json").read_text())["repos"]
    return [
        TarballSet(
            name,
            SEMBLE / f"{name}.tar.gz",
            SEMBLE / f"{name}.jsonl",
            "code",
            published[name]["language"],
        )
        for name in sorted(published)
    ]


def docs_sets() -> list[TarballSet]:
    return [
        TarballSet(n, DOCS / f"{n}.tar.gz", DOCS / f"{n}.jsonl", "docs")
        for n in ("fastapi", "vite")
    ]


def all_sets() -> list[TarballSet]:
    return semble_sets() + docs_sets()


def chosen(names: str | None) -> list[TarballSet]:
    wanted = names.split(",") if names else None
    return [s for s in all_sets() if wanted is None or s.name in wanted]


def data_dir(work: Path, one: TarballSet) -> Path:
    return work / f"data-{one.name}"


# Step 1: index


def cli(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "ragspace_cli", *arguments]


def set_env(work: Path, one: TarballSet) -> dict[str, str]:
    return {**os.environ, "RAGSPACE_DATA_DIR": str(data_dir(work, one))}


def tiers(env: dict[str, str], docset: str) -> dict[str, int]:
    done = subprocess.run(
        cli("status", docset, "--json"), env=env, capture_output=True, text=True, check=True
    )
    counts: dict[str, int] = json.loads(done.stdout)["tiers"]
    return counts


def index_keywords(work: Path, one: TarballSet) -> None:
    """Create the DocSet, add the unpacked tarball with `add dir --wait`, and stop it once
    every document is keyword-searchable (its vectors follow in index_vectors)."""
    folder = data_dir(work, one)
    if (folder / "keywords").exists():
        return
    with tarfile.open(one.tarball) as archive:
        archive.extractall(work / "src", filter="data")
    env = set_env(work, one)
    log = (work / f"index-{one.name}.log").open("a")
    started = time.perf_counter()
    if not (folder / "created").exists():
        subprocess.run(cli("docset", "create", one.docset), env=env, stdout=log, check=True)
        (folder / "created").touch()
    adding = subprocess.Popen(
        cli("add", "dir", one.docset, str(work / "src" / one.name), "--wait"),
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    seen: dict[str, int] = {}
    while adding.poll() is None:
        time.sleep(POLL_SECONDS)
        counts = tiers(env, one.docset)
        searchable = {key: counts[key] for key in ("documents", "keywords")}
        if counts["documents"] and counts["keywords"] == counts["documents"] and searchable == seen:
            break
        seen = searchable
    seconds = time.perf_counter() - started
    if adding.poll() is None:
        adding.send_signal(signal.SIGTERM)  # the CLI closes its database and leases
        adding.wait()
    (folder / "keywords").write_text(json.dumps({**seen, "seconds": round(seconds, 1)}))
    print(f"{one.name}: keyword-searchable {seen} in {seconds:.0f} s", file=sys.stderr)


def index_vectors(work: Path, one: TarballSet) -> None:
    """Embed the set's remaining vectors (`ragspace status NAME --wait`)."""
    folder = data_dir(work, one)
    if (folder / "indexed").exists():
        return
    env = set_env(work, one)
    started = time.perf_counter()
    with (work / f"index-{one.name}.log").open("a") as log:
        subprocess.run(
            cli("status", one.docset, "--wait"),
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            check=True,
        )
    seconds = time.perf_counter() - started
    counts = tiers(env, one.docset)
    (folder / "indexed").write_text(json.dumps({**counts, "seconds": round(seconds, 1)}))
    print(f"{one.name}: vectors {counts} in {seconds:.0f} s", file=sys.stderr)


# Step 2: candidates


def pool_set(one: TarballSet) -> Any:
    from quality_pool import PoolSet

    return PoolSet(one.name, one.questions, one.docset, one.tarball)


def candidates_path(work: Path, one: TarballSet, phase: str) -> Path:
    return work / f"{phase}-{one.name}"  # quality_pool adds candidates-<name>.jsonl beside it


def dump_candidates(work: Path, sets: Sequence[TarballSet], phase: str) -> None:
    from quality_pool import load_questions, save_candidates

    for one in sets:
        marker = "indexed" if phase == "full" else "keywords"
        if not (data_dir(work, one) / marker).exists():
            print(f"{one.name}: not {marker} yet", file=sys.stderr)
            continue
        queries = load_questions(pool_set(one)).queries
        save_candidates(data_dir(work, one), one.docset, queries, candidates_path(work, one, phase))


# Step 3: evaluate


def load(work: Path, one: TarballSet, phase: str) -> list[Any]:
    from quality_pool import candidates_file, load_questions_with_candidates

    path = candidates_path(work, one, phase)
    if not candidates_file(path).exists():
        return []
    return list(load_questions_with_candidates(path, pool_set(one)))


def set_scores(
    questions: Sequence[Any], ranking: Callable[[Any], list[Any]], one: TarballSet
) -> dict[str, float]:
    """Code: semble's chunk NDCG@10 (= the product's chunk nDCG@10) and MRR@10; docs: the
    page-level MRR and Recall@5 of docs-mcp-server's benchmark."""
    from ragspace.eval.evaluation import match_hits, score_query, whole_files

    totals: dict[str, float] = {}
    for question in questions:
        hits = ranking(question)
        if one.kind == "docs":
            gold = whole_files(question.query).gold
            figures = score_query(match_hits(hits[:5], gold), len(gold))
            wanted = {"recall@5": figures["recall@5"], "mrr@10": figures["mrr@10"]}
        else:
            gold = question.query.gold
            figures = score_query(match_hits(hits[:K], gold), len(gold))
            wanted = {"ndcg@10": figures["ndcg@10"], "mrr@10": figures["mrr@10"]}
        for key, value in wanted.items():
            totals[key] = totals.get(key, 0.0) + value
    return {key: value / len(questions) for key, value in totals.items()}


def with_vectors_of(question: Any, full: Any) -> Any:
    """`question`'s keyword-side candidates (saved before a keyword-side change) with the
    vector side of `full` (saved after it): the hybrid search as it was before the change.
    A chunk is matched by its place (path and lines): the vector pass stores a document's
    chunks again, under new ids."""
    import dataclasses

    from ragspace.ranking.candidates import Candidate, Side

    def place(c: Any) -> tuple[str, int, int]:
        return (c.hit.path, c.hit.start_line, c.hit.end_line)

    merged = {place(c): c for c in keyword_sides(question).candidates}
    for c in full.candidates:
        vector = c.evidence.get(Side.VECTOR)
        if vector is None:
            continue
        known = merged.get(place(c))
        evidence = {**(known.evidence if known else {}), Side.VECTOR: vector}
        merged[place(c)] = Candidate(known.hit if known else c.hit, evidence)
    return dataclasses.replace(question, candidates=list(merged.values()), parts=[])


# (mode, phase of the candidates, how they are ranked): `keywords` is the keyword phase
# before the path words (today's keyword side), `paths` the same phase after them, `full`
# the candidates with the vectors in (after them), `before` today's keyword side with the
# vectors of `full`
MODES = (
    ("keyword (today)", "keywords", "side"),
    ("keyword", "paths", "side"),
    ("keyword-only ranking", "paths", "keyword-only"),
    ("vector", "full", "vector"),
    ("hybrid (today)", "before", "hybrid"),
    ("hybrid", "full", "hybrid"),
)


def ranking_of(how: str, depth: int) -> Callable[[Any], list[Any]]:
    from quality_pool import at_depth, ranked, side_alone

    from bench.pool.scoring import keyword_only
    from ragspace.ranking.candidates import Side
    from ragspace.ranking.options import RankingOptions

    if how == "side":
        return at_depth(side_alone(Side.KEYWORD), depth)
    if how == "vector":
        return at_depth(side_alone(Side.VECTOR), depth)
    if how == "keyword-only":
        return at_depth(keyword_only, depth)
    return at_depth(lambda q: ranked(q, RankingOptions()), depth)


def phase_questions(work: Path, one: TarballSet, phase: str) -> list[Any]:
    if phase != "before":
        return load(work, one, phase)
    before, full = load(work, one, "keywords"), load(work, one, "full")
    if not before or not full:
        return []
    by_text = {q.text: q for q in full}
    return [with_vectors_of(q, by_text[q.text]) for q in before]


def evaluate(
    work: Path, sets: Sequence[TarballSet], depth: int, peer: Path | None, folds: Path | None
) -> dict[str, Any]:
    published = json.loads((SEMBLE / "published.json").read_text())["repos"]
    peer_rows = {r["repo"]: r for r in json.loads(peer.read_text())["rows"]} if peer else {}
    held_out = json.loads(folds.read_text())["folds"] if folds else {}
    rows = []
    for one in sets:
        row: dict[str, Any] = {"set": one.name, "kind": one.kind, "language": one.language}
        row["modes"] = {}
        for mode, phase, how in MODES:
            questions = phase_questions(work, one, phase)
            if questions:
                row["questions"] = len(questions)
                row["modes"][mode] = set_scores(questions, ranking_of(how, depth), one)
        if one.name in held_out:
            row["modes"]["keyword-only ranking, held out"] = held_out[one.name]["scores"]
        if not row["modes"]:
            continue
        if one.kind == "code":
            methods = published[one.name]["methods"]
            row["published"] = {m: v["ndcg10"] if v else None for m, v in methods.items()}
            if one.name in peer_rows:
                row["peer"] = peer_rows[one.name]["ndcg@10"]
        rows.append(row)
    return {"depth": depth, "rows": rows}


# the columns shown: the "(today)" modes (the keyword side before its path words, issue 68's
# first change) are kept in MODES for a pool that still holds those candidates; the figures of
# that change are in docs/benchmarks-log.md
SHOWN = (
    "keyword",
    "keyword-only ranking, held out",
    "vector",
    "hybrid",
)


def report(results: Path) -> str:
    """The results file as markdown (docs/benchmarks.md's generated section)."""
    saved = json.loads(results.read_text())
    run = saved.get("run", {})
    lines = [
        f"`{run.get('command', 'python bench/semble_dev.py evaluate --write')}` on "
        f"{run.get('date', '-')}, commit {run.get('commit', '-')}; {saved['depth']} candidates "
        "a side, k = 10; semble's chunk NDCG@10 (`score_semble.py`'s definition). "
        "`peer`: `semble_peer.py` (semble 0.7.0's BM25 and code ranking, no dense side) run "
        "on this machine; `semble`, `CRE Hybrid`, `BM25`: `published.json`. `-`: not measured "
        "(vectors not embedded in the run) or not published.",
        "",
        *table(saved),
    ]
    return "\n".join(lines) + "\n"


def table(result: dict[str, Any]) -> list[str]:
    """Per repository, per language and the means, then the docs guards."""
    code = [r for r in result["rows"] if r["kind"] == "code"]
    tables = [*repo_table(code, SHOWN), "", *language_table(code, SHOWN)]
    return [*tables, "", *docs_table(result["rows"])]


def docs_table(rows: Sequence[dict[str, Any]]) -> list[str]:
    docs = [r for r in rows if r["kind"] == "docs"]
    if not docs:
        return []
    lines = ["| docs guard | mode | MRR | Recall@5 |", "|---|---|---:|---:|"]
    for row in docs:
        for mode, figures in row["modes"].items():
            lines.append(
                f"| {row['set']} | {mode} | {figures['mrr@10']:.3f} | {figures['recall@5']:.3f} |"
            )
    return lines


def git_commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return done.stdout.strip()


def main() -> None:
    from ragspace.settings.retrieval import RETRIEVAL_CANDIDATES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("index", "candidates", "evaluate"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/ragspace-semble-dev"))
    parser.add_argument("--sets", help="comma-separated subset (default: every set)")
    # keywords: after the keyword phase; full: with the vectors; any other name: the
    # keyword-phase candidates again under that name (after a change to the keyword side)
    parser.add_argument("--phase", default="full")
    parser.add_argument("--depth", type=int, default=RETRIEVAL_CANDIDATES)
    parser.add_argument("--peer", type=Path, help="semble_peer.py's --json output")
    parser.add_argument("--folds", type=Path, help="keyword_files_spread.py's --json output")
    parser.add_argument("--write", action="store_true", help="save bench/results/semble_dev.json")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    sets = chosen(args.sets)
    if args.step == "index":
        for one in sets:
            index_keywords(args.work, one)
        for one in sorted(sets, key=lambda s: s.tarball.stat().st_size):  # small ones first
            index_vectors(args.work, one)
    elif args.step == "candidates":
        dump_candidates(args.work, sets, args.phase)
    else:
        result = evaluate(args.work, sets, args.depth, args.peer, args.folds)
        print("\n".join(table(result)))
        if args.write:
            result["run"] = {
                "command": "python bench/semble_dev.py evaluate --peer PEER.json --folds "
                "FOLDS.json --write",
                "date": time.strftime("%Y-%m-%d", time.gmtime()),
                "commit": git_commit(),
                "load": os.getloadavg()[0],
            }
            RESULTS.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
