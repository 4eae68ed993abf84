"""Memory of the app: idle after start, and peak during an ingestion with queries.

Run: python bench/memory.py [--backend local] [--users 8] [--interval 0.2] [--json out.json]

Starts the real app (`python app.py`) on 127.0.0.1 with a temporary data folder; by default
as on a fresh machine (no keys: local embedding model, extractive answers), or with
--backend fake-openai (bench/fake_openai.py as OPENAI_BASE_URL). Samples, every --interval
seconds, RSS, PSS and USS (psutil; PSS/USS read /proc/<pid>/smaps_rollup) of the app's
process and, separately, of the embedded Postgres server (postmaster and all its children,
summed). Phases: idle after start; after one search and one ask (models loaded); peak while
the `codebase` corpus (90 files) is uploaded and embedded by the app's worker and --users
users search and ask over the HTTP API without pause (until the ingestion ends and at
least --query-seconds); idle again after that. RSS sums count memory shared between
processes (Postgres's shared buffers) once per process; PSS shares it out, so the PSS sum
is the fair total, USS what each process alone holds.
"""

import argparse
import asyncio
import json
import os
import statistics
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import httpx
import psutil
from app_harness import (
    BACKENDS,
    AppUnderTest,
    Backend,
    GradioApi,
    SideActions,
    commit_id,
    corpus_files,
    default_eval_dir,
    eval_datasets,
    running_app,
)
from load_test import OpStats, user

MiB = 1024 * 1024
METRICS = ("rss", "pss", "uss")
DOCSET = "codebase"


def measure(processes: list[psutil.Process]) -> dict[str, float]:
    """RSS, PSS and USS (MiB) summed over the live processes, and how many there are."""
    totals = dict.fromkeys(METRICS, 0.0)
    alive = 0
    for process in processes:
        try:
            info = process.memory_full_info()
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            continue
        alive += 1
        for name in METRICS:
            totals[name] += getattr(info, name, 0) / MiB
    return {**totals, "processes": alive}


@dataclass
class Sampler:
    """Samples both process groups every `interval` seconds and keeps the maxima."""

    app: AppUnderTest
    interval: float
    peak: dict[str, dict[str, float]] = field(default_factory=dict)
    samples: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    def sample(self) -> dict[str, dict[str, float]]:
        """One reading of every group (the Postgres children change, so look again)."""
        return {name: measure(group) for name, group in self.app.processes().items()}

    def run(self) -> None:
        while not self.stop.is_set():
            for name, values in self.sample().items():
                peak = self.peak.setdefault(name, dict.fromkeys(values, 0.0))
                for key, value in values.items():
                    peak[key] = max(peak[key], value)
            self.samples += 1
            self.stop.wait(self.interval)


def steady(sampler: Sampler, seconds: float) -> dict[str, dict[str, float]]:
    """The median of each figure over a few seconds of samples."""
    readings = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        readings.append(sampler.sample())
        time.sleep(sampler.interval)
    return {
        group: {
            key: statistics.median(r[group][key] for r in readings) for key in readings[0][group]
        }
        for group in readings[0]
    }


async def queries(
    app: AppUnderTest, questions: list[str], args: argparse.Namespace, done: threading.Event
) -> dict[str, OpStats]:
    """Users searching and asking until the ingestion is done and --query-seconds passed."""
    stats = {name: OpStats() for name in ("list_docsets", "search", "ask")}
    limits = httpx.Limits(max_connections=args.users * 2 + 10)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        api = GradioApi(client, app.url)
        started = time.monotonic()
        while not done.is_set() or time.monotonic() - started < args.query_seconds:
            rounds = argparse.Namespace(ask_share=args.ask_share, think=0.0)
            deadline = time.monotonic() + 5
            await asyncio.gather(
                *(user(api, questions, rounds, stats, deadline, n) for n in range(args.users))
            )
    return stats


def wait_then_set(side: SideActions, done: threading.Event) -> None:
    """Set `done` when the corpus is embedded (or after the 30-minute cap)."""
    try:
        side.wait_embedded(DOCSET, timeout=1800)
    finally:
        done.set()


async def warm_up(app: AppUnderTest, question: str) -> None:
    """One search and one ask, so lazily loaded parts are in memory."""
    async with httpx.AsyncClient(timeout=120) as client:
        api = GradioApi(client, app.url)
        await api.search(question, None, 8)
        await api("ask", question, None, 6, None, None)


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start the app, read memory at idle, under load and idle again."""
    _, code = eval_datasets(args.eval_dir)
    questions = [q.text for q in code.queries]
    phases: dict[str, dict[str, dict[str, float]]] = {}
    extra_env = dict(item.split("=", 1) for item in args.env)
    load_before = os.getloadavg()
    with running_app(cast(Backend, args.backend), extra_env) as app:
        sampler = Sampler(app, args.interval)
        time.sleep(args.settle)
        phases["idle after start"] = steady(sampler, args.steady)
        side = SideActions(app.settings())
        try:
            side.actions.docsets.create(DOCSET, "codebase evaluation corpus")
            asyncio.run(warm_up(app, questions[0]))
            time.sleep(args.settle)
            phases["idle after one search and one ask"] = steady(sampler, args.steady)
            thread = threading.Thread(target=sampler.run, daemon=True)
            thread.start()
            started = time.monotonic()
            side.actions.sources.add_files(DOCSET, corpus_files(code))
            done = threading.Event()
            threading.Thread(target=wait_then_set, args=(side, done), daemon=True).start()
            stats = asyncio.run(queries(app, questions, args, done))
            busy = time.monotonic() - started
            sampler.stop.set()
            thread.join()
            phases["peak during ingestion + queries"] = sampler.peak
            time.sleep(args.settle)
            phases["idle afterwards"] = steady(sampler, args.steady)
        finally:
            side.close()
    return {
        "date": datetime.now().isoformat(timespec="seconds"),
        "commit": commit_id(),
        "loadavg_before": load_before,
        "loadavg_after": os.getloadavg(),
        "settings": {k: str(v) for k, v in vars(args).items()},
        "phases": phases,
        "busy_seconds": busy,
        "samples": sampler.samples,
        "calls": {name: s.summary(busy) for name, s in stats.items()},
    }


def print_report(result: dict[str, Any]) -> None:
    """The figures as a markdown table (MiB)."""
    print(
        "| phase | app RSS | app PSS | app USS | Postgres RSS (sum) | Postgres PSS (sum) | "
        "Postgres USS (sum) | Postgres processes |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for phase, groups in result["phases"].items():
        app, pg = groups["app"], groups["postgres"]
        print(
            f"| {phase} | {app['rss']:.0f} | {app['pss']:.0f} | {app['uss']:.0f} | "
            f"{pg['rss']:.0f} | {pg['pss']:.0f} | {pg['uss']:.0f} | {pg['processes']:.0f} |"
        )
    calls = result["calls"]
    print()
    print(
        f"Load phase: {result['busy_seconds']:.0f} s, {result['samples']} samples; "
        f"{calls['search']['ok']} searches, {calls['ask']['ok']} asks, "
        f"{sum(c['errors'] for c in calls.values())} errors."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", choices=BACKENDS, default="local")
    parser.add_argument("--users", type=int, default=4, help="concurrent query users")
    parser.add_argument("--ask-share", type=float, default=0.2)
    parser.add_argument("--query-seconds", type=float, default=20.0)
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between samples")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds before idle readings")
    parser.add_argument("--steady", type=float, default=3.0, help="seconds of idle samples")
    parser.add_argument(
        "--env", action="append", default=[], help="extra app environment, e.g. RAGSPACE_X=1"
    )
    parser.add_argument("--eval-dir", type=Path, default=default_eval_dir())
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    result = run(args)
    print_report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
