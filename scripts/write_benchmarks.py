"""Write the figures of docs/benchmarks.md and README.md from the results files in bench/results/.

Each generated part sits between `<!-- NAME:begin -->` and `<!-- NAME:end -->`; this script
replaces what is between them by what `TABLES[NAME]` renders from the results file today, so a
figure shown is a figure a benchmark wrote. tests/test_benchmark_figures.py checks that both
pages equal what this renders.

    python scripts/write_benchmarks.py           # rewrite the generated parts of both pages
    python scripts/write_benchmarks.py --check   # exit 1, naming them, if a page differs
"""

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragspace.settings.ingestion import IngestionSettings

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"
BENCHMARKS_PAGE = ROOT / "docs" / "benchmarks.md"
README = ROOT / "README.md"
MODES = ("hybrid", "vector")


def read_json(name: str) -> dict[str, Any]:
    """One JSON results file (`bench/results/NAME`)."""
    data: dict[str, Any] = json.loads((RESULTS / name).read_text(encoding="utf-8"))
    return data


def read_lines(name: str) -> list[dict[str, Any]]:
    """Every record of a JSON-lines results file, oldest first."""
    text = (RESULTS / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _load(data: dict[str, Any]) -> str:
    before, after = data.get("loadavg_before"), data.get("loadavg_after")
    if before and after:
        return f"{before[0]:.1f} before, {after[0]:.1f} after"
    return "not recorded"


def _when(data: dict[str, Any]) -> str:
    return str(data["date"]).replace("T", " ")[:16] + " UTC"


def filtered_search() -> str:
    """bench/filtered_search.py's own report of its results file."""
    return _bench_report("filtered_search", RESULTS / "filtered_search.jsonl")


def load_test() -> str:
    """Calls of the simulated users during an ingestion (bench/results/load_test.json)."""
    data = read_json("load_test.json")
    settings, ingestion = data["settings"], data["ingestion"]
    lines = [
        "| call | calls | errors | p50 ms | p95 ms | p99 ms | date | commit | load |",
        "|---|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for name in ("search", "ask", "list_docsets"):
        op = data["operations"][name]
        lines.append(
            f"| {name} | {op['ok'] + op['errors']:,} | {op['errors']} | {op['p50_ms']:.0f} | "
            f"{op['p95_ms']:.0f} | {op['p99_ms']:.0f} | {_when(data)} | "
            f"{data.get('commit', 'not recorded')} | {_load(data)} |"
        )
    lines.append("")
    lines.append(
        f"{settings['users']} users for {settings['duration']:.0f} s, think time "
        f"{settings['think']} s, {settings['ask_share']:.0%} asks, {settings['backend']} backend; "
        f"{ingestion['chunks']:,} chunks embedded during the run "
        f"({ingestion['chunks_per_second']:.0f} chunks/s)."
    )
    return "\n".join(lines) + "\n"


def memory() -> str:
    """The app's and the embedded Postgres's memory per phase (bench/results/memory.json)."""
    data = read_json("memory.json")
    lines = [
        "| phase | app RSS MiB | app USS MiB | Postgres PSS MiB (processes) | date | commit "
        "| load |",
        "|---|---:|---:|---:|---|---|---|",
    ]
    for phase, sides in data["phases"].items():
        app, postgres = sides["app"], sides["postgres"]
        lines.append(
            f"| {phase} | {app['rss']:.0f} | {app['uss']:.0f} | "
            f"{postgres['pss']:.0f} ({postgres['processes']:.0f}) | {_when(data)} | "
            f"{data.get('commit', 'not recorded')} | {_load(data)} |"
        )
    settings, calls = data["settings"], data["calls"]
    lines.append("")
    lines.append(
        f"{settings['backend']} backend, {settings['users']} users searching and asking during "
        f"the ingestion: {calls['search']['ok']:,} searches and {calls['ask']['ok']:,} asks, "
        f"{sum(c['errors'] for c in calls.values())} errors."
    )
    return "\n".join(lines) + "\n"


def _metrics(record: dict[str, Any], key: str) -> str:
    m = record[key]
    return f"{m['recall@5']:.3f} / {m['recall@10']:.3f} / {m['mrr@10']:.3f}"


def shared_sets() -> str:
    """Both shared sets scored alone and beside 100,000 other chunks (shared_sets_crowded)."""
    lines = [
        "| code | database | docs hybrid R@5 / R@10 / MRR | docs vector | code hybrid | "
        "code vector | date | load |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in read_lines("shared_sets_crowded.jsonl"):
        cells = " | ".join(
            _metrics(r, f"{corpus} {mode}")
            for corpus in ("claude-docs", "codebase")
            for mode in MODES
        )
        date, load = r.get("date", "not recorded"), r.get("load", "not recorded")
        lines.append(f"| {r['code']} | {r['database']} | {cells} | {date} | {load} |")
    return "\n".join(lines) + "\n"


def quality_pool() -> str:
    """bench/quality_pool.py's own report of its results file (the protocol of issue 35)."""
    return _bench_report("quality_pool", RESULTS / "quality_pool.json")


def semble_dev() -> str:
    """bench/semble_dev.py's own report: semble-dev per repository and language, docs-dev."""
    return _bench_report("semble_dev", RESULTS / "semble_dev.json")


def answer_quality() -> str:
    """bench/answer_quality.py's own report: what the answers quote, per run and set."""
    return _bench_report("answer_quality", RESULTS / "answer_quality.json")


def ranking_latency() -> str:
    """filtered_search.py's report of the ranking's side-by-side latency run."""
    return _bench_report("filtered_search", RESULTS / "ranking_latency.jsonl")


def _bench_report(module_name: str, results: Path, function: str = "report") -> str:
    """What a benchmark's own report function renders from its results file."""
    sys.path.insert(0, str(BENCH))
    try:
        module = importlib.import_module(module_name)
        report: str = getattr(module, function)(results)
        return report
    finally:
        sys.path.remove(str(BENCH))
        sys.modules.pop(module_name, None)


def readme_quality() -> str:
    """The README's quality table (bench/quality_pool.py's held-out figures) and its latency,
    load and memory line, from the same files."""
    table = _bench_report("quality_pool", RESULTS / "quality_pool.json", "readme_report")
    return table + _app_defaults_line() + "\n".join(_readme_speed()) + "\n"


def _app_defaults_line() -> str:
    """bench/experiments/fixed_points.py's line on the app's own defaults, when it wrote
    its results file."""
    results = RESULTS / "fixed_points.json"
    if not results.exists():
        return ""
    return _bench_report("experiments.fixed_points", results, "readme_line")


def _readme_speed() -> list[str]:
    cells = read_lines("filtered_search.jsonl")
    latest = [c for c in cells if c["other_chunks"] == 0 and c["target_chunks"] == 100_000][-1]
    load = read_json("load_test.json")
    search = load["operations"]["search"]
    mem = read_json("memory.json")
    idle = mem["phases"]["idle after start"]["app"]["rss"]
    return [
        "Retrieval (query embedding + hybrid search, no LLM) in a DocSet of 100,000 chunks:",
        f"p50 {latest['hybrid_p50_ms']:.0f} ms / p95 {latest['hybrid_p95_ms']:.0f} ms "
        f"({latest['date']}, {latest['commit']}).",
        f"With {load['settings']['users']} users searching and asking during an ingestion "
        f"({load['settings']['backend']} embedder): search p95 {search['p95_ms']:.0f} ms "
        f"({_when(load)}, {load.get('commit', '?')}).",
        *_readme_big_repo_search(),
        f"Memory of the app: {idle:.0f} MiB RSS idle after start ({_when(mem)}, "
        f"{mem.get('commit', '?')}).",
        *_readme_agents_and_workers(),
    ]


def _latest_run_with_users() -> dict[str, Any]:
    """bench/big_repo.py's latest run with users searching during the ingestion, with the
    app's default ingestion threads (what a user of the README gets)."""
    # the field's default, not IngestionSettings(): that reads the environment and .env,
    # and the pages must not depend on who generates them
    default = IngestionSettings.model_fields["worker_threads"].default
    runs = read_lines("big_repo.jsonl")
    return [row for row in runs if row["users"] and row["worker_threads"] == default][-1]


def _readme_big_repo_search() -> list[str]:
    row = _latest_run_with_users()
    return [
        f"With {row['users']} users searching during the ingestion of the "
        f"{row['repository']} checkout with the local model on the same 2 cores: search p50 "
        f"{row['search']['p50_ms']:.0f} ms / p95 {row['search']['p95_ms']:.0f} ms "
        f"({row['date']}, {row['commit']})."
    ]


def _readme_agents_and_workers() -> list[str]:
    mcp = read_json("mcp_startup.json")
    up, down = mcp["database_up"], mcp["database_down"]
    workers = read_json("workers_scale.json")
    runs = {run["processes"]: run for run in workers["runs"]}
    lines = [
        f"`ragspace mcp` over stdio: initialized in {up['initialize_s']:.1f} s with the database "
        f"up ({down['initialize_s']:.1f} s when it starts it), first search "
        f"{up['first_search_s']:.1f} s ({mcp['date'][:10]}, {mcp.get('commit', '?')}).",
    ]
    if 1 in runs and 2 in runs:
        lines.append(
            f"Ingestion with the local model, one inference thread per `ragspace worker`: "
            f"{runs[1]['chunks_per_second']} chunks/s with one process, "
            f"{runs[2]['chunks_per_second']} with two ({runs[2]['speedup']}x; "
            f"{_when(workers)}, {workers['commit']})."
        )
    return lines


def languages() -> str:
    """bench/languages.py's own report: every language, how it is recognised, throughput."""
    return _bench_report("languages", RESULTS / "languages.json")


def big_repo() -> str:
    """bench/big_repo.py's own report: a checkout added as a folder under search load."""
    return _bench_report("big_repo", RESULTS / "big_repo.jsonl") + "\n"


def readme_ingestion() -> str:
    """The README's ingestion sentence: bench/big_repo.py's latest run with users."""
    row = _latest_run_with_users()
    added = "as a folder" if row.get("via", "folder") == "folder" else "from GitHub"
    return (
        f"Measured on a big repository: the {row['repository']} checkout "
        f"({row['documents']:,} files, {row['chunks']:,} chunks), added {added}, had every file "
        f"keyword-searchable after {row['keyword_searchable_s']:.0f} s and full quality after "
        f"{row['full_quality_s'] / 60:.0f} min on 2 cores, while {row['users']} users searched it "
        f"({row['date'][:10]}, {row['commit']}; `bench/big_repo.py`).\n"
    )


def _workers_table(data: dict[str, Any]) -> str:
    lines = [
        "| worker processes | ingestion threads each | inference threads each "
        "| documents (errors) | chunks | seconds from first claim | chunks/s | speed-up "
        "| processes that finished jobs |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in data["runs"]:
        lines.append(
            f"| {run['processes']} | {run.get('worker_threads', 1)} "
            f"| {run['embedding_threads']} | {run['documents']:,} "
            f"({run['errors']}) | {run['chunks']:,} | {run['seconds_from_first_claim']} "
            f"| {run['chunks_per_second']} | {run['speedup']} "
            f"| {run['processes_that_finished_jobs']} |"
        )
    lines.append("")
    lines.append(
        f"`{data['command'].strip()}` on {data['cores']} cores; {_when(data)}, commit "
        f"{data['commit']}, load {_load(data)}."
    )
    return "\n".join(lines) + "\n"


def workers_scale() -> str:
    """bench/workers_scale.py: ingestion chunks/s with 1 and 2 `ragspace worker` processes."""
    return _workers_table(read_json("workers_scale.json"))


def worker_threads() -> str:
    """bench/workers_scale.py: one worker process with 1, 2 and 4 ingestion threads."""
    return _workers_table(read_json("worker_threads.json"))


def _share_range(row: dict[str, Any]) -> str:
    """The runs' lowest and highest added share, where the results file has them."""
    runs = row.get("worker added share per run")
    return f"; runs {min(runs):+.1%} to {max(runs):+.1%}" if runs else ""


def symbol_extraction() -> str:
    """The symbol table's parse, rows and added ingestion share on the SWE-QA checkouts."""
    data = read_json("symbol_extraction.json")
    lines = [
        "| checkout | code files | MB | definitions | references | parse + extract files/s "
        "| added to chunking + storage | worker keyword-searchable s without / with "
        "(paired per document) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, row in data["results"].items():
        worker = (
            f"{row['worker keyword-searchable s (no symbols)']:.1f} / "
            f"{row['worker keyword-searchable s (symbols)']:.1f} "
            f"({row['worker added share']:+.1%}{_share_range(row)})"
            if "worker keyword-searchable s (symbols)" in row
            else "not measured"
        )
        lines.append(
            f"| {name} | {row['files']:,} | {row['MB']} | {row['definitions']:,} "
            f"| {row['references']:,} | {row['parse+extract files/s']:,.0f} "
            f"| {row['added share']:.0%} | {worker} |"
        )
    lines.append("")
    lines.append(
        f"{data['runs']} run(s); {_when(data)}, commit {data['commit']}, load "
        f"{data['load average before']:.1f} before."
    )
    return "\n".join(lines) + "\n"


def eta_estimate() -> str:
    """bench/eta_estimate.py's report: the status tab's ETA error, before and after issue 67."""
    return _bench_report("eta_estimate", RESULTS / "eta_estimate.json")


def searchable_times() -> str:
    """bench/searchable_times.py's report: time to keyword-searchable, before and after."""
    return _bench_report("searchable_times", RESULTS / "searchable_times.json")


def mcp_startup() -> str:
    """`ragspace mcp` over stdio: time to initialize and to the first searches."""
    data = read_json("mcp_startup.json")
    lines = [
        "| database | initialize s | first search s | later searches ms (median) |",
        "|---|---:|---:|---:|",
    ]
    for key, label in (("database_up", "running"), ("database_down", "started by the command")):
        row = data[key]
        lines.append(
            f"| {label} | {row['initialize_s']:.2f} | {row['first_search_s']:.2f} "
            f"| {row['search_median_s'] * 1000:.1f} |"
        )
    lines.append("")
    lines.append(
        f"Median of {len(data['database_up']['runs'])} runs; {data['date']}, commit "
        f"{data.get('commit', 'not recorded')}, load {data['load_average_1m']}."
    )
    return "\n".join(lines) + "\n"


def llms_txt() -> str:
    """A fake documentation site read page by page, through llms.txt and llms-full.txt."""
    data = read_json("llms_txt.json")
    lines = [
        "| mode | requests | bytes served | fetch s | chunks | hit@1 | hit@3 |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for mode, row in data["modes"].items():
        lines.append(
            f"| {mode} | {row['requests']} | {row['bytes_served']:,} "
            f"| {row['fetch_seconds']:.3f} | {row['chunks']} | {row['hit_at_1']:.2f} "
            f"| {row['hit_at_3']:.2f} |"
        )
    lines.append("")
    lines.append(
        f"{data['site']}; {data['date']}, commit {data.get('commit', 'not recorded')}, "
        f"load {data['load_average_1m']}."
    )
    return "\n".join(lines) + "\n"


def secret_redactions() -> str:
    """bench/secret_redactions.py: what the secret detector takes out of checkouts with none."""
    data = read_json("secret_redactions.json")
    lines = [
        "| checkout | files indexed | lines | MB | lines redacted (detector) "
        "| files skipped as secrets by name | detectors' CPU s per MB "
        "| detect-secrets, all default plugins: MB read, findings, CPU s per MB |",
        "|---|---:|---:|---:|---|---:|---:|---|",
    ]
    for name, row in data["results"].items():
        by_kind = ", ".join(f"{n} {kind}" for kind, n in row["redacted by detector"].items())
        full = row.get("detect-secrets")
        sample = (
            f"{full['MB']}, {full['findings']}, {full['s per MB (CPU)']}" if full else "not run"
        )
        lines.append(
            f"| {name} | {row['files indexed']:,} | {row['lines']:,} | {row['MB']} "
            f"| {row['redacted lines']}{f' ({by_kind})' if by_kind else ''} "
            f"| {len(row['files skipped as secrets'])} | {row['scan s per MB (CPU)']} | {sample} |"
        )
    redacted = [r["line"] for row in data["results"].values() for r in row["redacted"]]
    skipped = [p for row in data["results"].values() for p in row["files skipped as secrets"]]
    lines.append("")
    lines.append(f"Redacted: {', '.join(f'`{line}`' for line in redacted) or 'none'}.")
    lines.append(f"Skipped by name: {', '.join(f'`{path}`' for path in skipped) or 'none'}.")
    lines.append(
        f"`{data['command']}`; {data['date'][:16].replace('T', ' ')} UTC, commit "
        f"{data['commit']}, load {data['load average before']:.1f} before, "
        f"{data['load average after']:.1f} after."
    )
    return "\n".join(lines) + "\n"


TABLES: dict[str, Callable[[], str]] = {
    "filtered_search": filtered_search,
    "load_test": load_test,
    "memory": memory,
    "shared_sets": shared_sets,
    "readme_quality": readme_quality,
    "retrieval_quality": quality_pool,
    "semble_dev": semble_dev,
    "answer_quality": answer_quality,
    "ranking_latency": ranking_latency,
    "languages": languages,
    "symbol_extraction": symbol_extraction,
    "eta_estimate": eta_estimate,
    "searchable_times": searchable_times,
    "big_repo": big_repo,
    "workers_scale": workers_scale,
    "worker_threads": worker_threads,
    "readme_ingestion": readme_ingestion,
    "mcp_startup": mcp_startup,
    "llms_txt": llms_txt,
    "secret_redactions": secret_redactions,
}
PAGES = {
    BENCHMARKS_PAGE: (
        "retrieval_quality",
        "semble_dev",
        "answer_quality",
        "load_test",
        "memory",
        "shared_sets",
        "filtered_search",
        "ranking_latency",
        "languages",
        "symbol_extraction",
        "big_repo",
        "workers_scale",
        "worker_threads",
        "eta_estimate",
        "searchable_times",
        "mcp_startup",
        "llms_txt",
        "secret_redactions",
    ),
    README: ("readme_quality", "readme_ingestion"),
}


def markers(name: str) -> tuple[str, str]:
    """The lines around a generated part."""
    return f"<!-- {name}:begin -->\n", f"<!-- {name}:end -->"


def shown(page: str, name: str) -> str:
    """What a page shows between the markers `name`."""
    begin, end = markers(name)
    if begin not in page or end not in page:
        raise ValueError(f"no <!-- {name}:begin/end --> markers")
    return page.split(begin, 1)[1].split(end, 1)[0]


def rendered(path: Path) -> str:
    """The page with every generated part as the results files render it today."""
    page = path.read_text(encoding="utf-8")
    for name in PAGES[path]:
        begin, end = markers(name)
        head, rest = page.split(begin, 1)
        tail = rest.split(end, 1)[1]
        page = f"{head}{begin}{TABLES[name]()}{end}{tail}"
    return page


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say which pages differ")
    args = parser.parse_args()
    stale = []
    for path in PAGES:
        text = rendered(path)
        if text != path.read_text(encoding="utf-8"):
            stale.append(path.relative_to(ROOT).as_posix())
            if not args.check:
                path.write_text(text, encoding="utf-8")
    if args.check and stale:
        print(f"not what bench/results/ holds: {', '.join(stale)}", file=sys.stderr)
        return 1
    print(f"{'rewritten' if stale else 'up to date'}: {', '.join(stale) or 'both pages'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
