"""Load: concurrent users searching and asking over the HTTP API while an ingestion runs.

Run: python bench/load_test.py [--users 20] [--duration 60] [--ask-share 0.2] [--json out.json]

Starts the real app (`python app.py`) on 127.0.0.1 on a free port with a temporary data
folder and, by default, a fake OpenAI-compatible API (bench/fake_openai.py: streamed chat
with a simulated model latency, hashed-word embeddings) as OPENAI_BASE_URL. From this
process it then (1) uploads the `codebase` evaluation corpus into a DocSet and waits until
it is embedded, (2) uploads the `claude-docs` corpus into a second DocSet and keeps the
app's ingestion workers busy for the whole run (forced re-embeds of it, round after round,
as soon as a round ends), and (3) runs N simulated users for the duration: each calls
`list_docsets` once, then `search` or `ask` (share --ask-share) on the codebase DocSet
with real evaluation questions, waiting an exponentially distributed think time between
calls (--think, 0 for back to back). Calls go through Gradio's HTTP API like curl and
gradio_client (--protocol call: POST + SSE through Gradio's queue), or --protocol run
(one POST, endpoint run directly). Prints throughput, latency percentiles and errors.
Only 127.0.0.1 is contacted; the app, the fake API, the embedded Postgres and the
temporary folder are stopped and removed at the end.
"""

import argparse
import asyncio
import json
import os
import random
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import httpx
import numpy as np
import psutil
from app_harness import (
    BACKENDS,
    ApiError,
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

SEARCH_DOCSET = "codebase"
INGEST_DOCSET = "ingest-docs"


@dataclass
class OpStats:
    """Latencies (ms) of successful calls and the errors of one operation."""

    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    empty: int = 0
    messages: dict[str, int] = field(default_factory=dict)

    def error(self, exc: BaseException) -> None:
        self.errors += 1
        text = f"{type(exc).__name__}: {exc}"[:200]
        self.messages[text] = self.messages.get(text, 0) + 1

    def summary(self, seconds: float) -> dict[str, Any]:
        values = self.latencies

        def pct(q: float) -> float:
            return float(np.percentile(values, q)) if values else float("nan")

        return {
            "ok": len(values),
            "errors": self.errors,
            "empty": self.empty,
            "per_second": len(values) / seconds,
            "p50_ms": pct(50),
            "p95_ms": pct(95),
            "p99_ms": pct(99),
            "max_ms": max(values) if values else float("nan"),
            "error_messages": self.messages,
        }


@dataclass
class Ingestion:
    """Keeps the app's workers busy: an upload, then forced re-embeds round after round."""

    side: SideActions
    files: int = 0
    rounds: int = 0
    documents: int = 0
    chunks: float = 0.0
    stop: threading.Event = field(default_factory=threading.Event)
    failure: str = ""

    def run(self) -> None:
        try:
            self._rounds()
        except Exception as exc:  # reported with the results, never hides the run
            self.failure = f"{type(exc).__name__}: {exc}"

    def _rounds(self) -> None:
        actions = self.side.actions
        while not self.stop.is_set():
            finished, total, chunks = self.side.progress(INGEST_DOCSET)
            if total and finished == total:
                self.rounds += 1
                self.documents += total
                self.chunks += chunks
                actions.documents.reembed_docset(INGEST_DOCSET)
            self.stop.wait(0.25)
        finished, total, chunks = self.side.progress(INGEST_DOCSET)
        if total and finished < total:  # the round under way when the run ended
            self.documents += finished
            self.chunks += chunks * finished / total


async def user(
    api: GradioApi,
    questions: list[str],
    args: argparse.Namespace,
    stats: dict[str, OpStats],
    deadline: float,
    seed: int,
) -> None:
    """One user: list the DocSets, then search or ask until the deadline."""
    rng = random.Random(seed)
    await timed(stats["list_docsets"], api("list_docsets"))
    while time.monotonic() < deadline:
        question = rng.choice(questions)
        if rng.random() < args.ask_share:
            await timed(stats["ask"], api("ask", question, [SEARCH_DOCSET], 6, None, None))
        else:
            await timed(stats["search"], api.search(question, [SEARCH_DOCSET], 8))
        if args.think > 0:
            pause = min(rng.expovariate(1 / args.think), deadline - time.monotonic())
            await asyncio.sleep(max(0.0, pause))


async def timed(stats: OpStats, call: Any) -> None:
    """Await one API call, recording its latency or its error."""
    started = time.perf_counter()
    try:
        result = await call
    except (httpx.HTTPError, ApiError, ValueError, KeyError) as exc:
        stats.error(exc)
        return
    stats.latencies.append((time.perf_counter() - started) * 1000)
    # search answers {"hits": [...]}, ask {"answer": ..., "citations": [...]}
    if not result or (
        isinstance(result, dict) and not (result.get("hits") or result.get("citations"))
    ):
        stats.empty += 1


async def drive(app: AppUnderTest, questions: list[str], args: argparse.Namespace) -> Any:
    """Warm up, then run the users; returns the stats and the measured seconds."""
    limits = httpx.Limits(max_connections=args.users * 2 + 10, max_keepalive_connections=None)
    async with httpx.AsyncClient(timeout=args.timeout, limits=limits) as client:
        api = GradioApi(client, app.url, args.protocol)
        for question in questions[:3]:  # warm up the routes, the caches and the model path
            await api.search(question, [SEARCH_DOCSET], 8)
        await api("ask", questions[0], [SEARCH_DOCSET], 6, None, None)
        stats = {name: OpStats() for name in ("list_docsets", "search", "ask")}
        started = time.monotonic()
        deadline = started + args.duration
        await asyncio.gather(
            *(user(api, questions, args, stats, deadline, n) for n in range(args.users))
        )
        return stats, time.monotonic() - started


def cpu_seconds(processes: list[psutil.Process]) -> float:
    """User + system CPU time of the processes still alive."""
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The whole benchmark: start, pre-ingest, load, measure, stop."""
    docs, code = eval_datasets(args.eval_dir)
    questions = [q.text for q in code.queries]
    extra_env = dict(item.split("=", 1) for item in args.env)
    if args.backend == "fake-openai":
        extra_env["BENCH_FAKE_ARGS"] = (
            f"--first-token {args.llm_first_token} --piece-interval {args.llm_piece_interval}"
        )
    with running_app(cast(Backend, args.backend), extra_env, args.app_log) as app:
        side = SideActions(app.settings())
        try:
            started = time.monotonic()
            side.actions.docsets.create(SEARCH_DOCSET, "codebase evaluation corpus")
            side.actions.sources.add_files(SEARCH_DOCSET, corpus_files(code))
            side.wait_embedded(SEARCH_DOCSET, timeout=1800)
            preingest = time.monotonic() - started
            side.actions.docsets.create(INGEST_DOCSET, "claude-docs, re-embedded in rounds")
            ingestion = Ingestion(side, files=len(docs.documents))
            side.actions.sources.add_files(INGEST_DOCSET, corpus_files(docs))
            thread = threading.Thread(target=ingestion.run, daemon=True)
            processes = app.processes()
            cpu_before = {name: cpu_seconds(p) for name, p in processes.items()}
            load_before = os.getloadavg()
            thread.start()
            stats, seconds = asyncio.run(drive(app, questions, args))
            cpu = {name: cpu_seconds(p) - cpu_before[name] for name, p in processes.items()}
            load_after = os.getloadavg()
            ingestion.stop.set()
            thread.join(30)
        finally:
            side.close()
    return {
        "date": datetime.now().isoformat(timespec="seconds"),
        "commit": commit_id(),
        "settings": {k: v for k, v in vars(args).items() if k != "eval_dir"},
        "preingest_seconds": preingest,
        "seconds": seconds,
        "operations": {name: s.summary(seconds) for name, s in stats.items()},
        "ingestion": {
            "documents": ingestion.documents,
            "chunks": round(ingestion.chunks),
            "chunks_per_second": ingestion.chunks / seconds,
            "rounds_completed": ingestion.rounds,
            "failure": ingestion.failure,
        },
        "cpu_seconds": cpu,
        "loadavg_before": load_before,
        "loadavg_after": load_after,
    }


def print_report(result: dict[str, Any]) -> None:
    """The results as a markdown table and a few lines of context."""
    settings = result["settings"]
    print(
        f"{settings['users']} users, {result['seconds']:.0f} s, ask share "
        f"{settings['ask_share']}, think {settings['think']} s, protocol "
        f"{settings['protocol']}, backend {settings['backend']}"
    )
    print()
    print("| operation | calls | per second | p50 ms | p95 ms | p99 ms | max ms | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, op in result["operations"].items():
        print(
            f"| {name} | {op['ok']} | {op['per_second']:.2f} | {op['p50_ms']:.0f} | "
            f"{op['p95_ms']:.0f} | {op['p99_ms']:.0f} | {op['max_ms']:.0f} | {op['errors']} |"
        )
    ingestion = result["ingestion"]
    print()
    print(
        f"Ingestion during the run: {ingestion['documents']} documents, ~{ingestion['chunks']} "
        f"chunks embedded ({ingestion['chunks_per_second']:.1f} chunks/s), "
        f"{ingestion['rounds_completed']} rounds completed. {ingestion['failure']}"
    )
    cpu = result["cpu_seconds"]
    print(
        f"CPU during the run: app {cpu['app']:.0f} s, Postgres {cpu['postgres']:.0f} s "
        f"(of {2 * result['seconds']:.0f} core-seconds on 2 cores). Load average "
        f"{result['loadavg_before'][0]:.1f} before, {result['loadavg_after'][0]:.1f} after. "
        f"Pre-ingestion of the search DocSet: {result['preingest_seconds']:.0f} s."
    )
    for name, op in result["operations"].items():
        for message, count in op["error_messages"].items():
            print(f"- {name} error x{count}: {message}")
        if op["empty"]:
            print(f"- {name}: {op['empty']} calls returned no passages")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument("--ask-share", type=float, default=0.2, help="share of calls that ask")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds between calls")
    parser.add_argument("--protocol", choices=["call", "run"], default="call")
    parser.add_argument("--backend", choices=BACKENDS, default="fake-openai")
    parser.add_argument("--llm-first-token", type=float, default=0.3)
    parser.add_argument("--llm-piece-interval", type=float, default=0.01)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per call")
    parser.add_argument(
        "--env", action="append", default=[], help="extra app setting, e.g. RAGSPACE_X=1"
    )
    parser.add_argument("--eval-dir", type=Path, default=default_eval_dir())
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--app-log", type=Path, help="keep a copy of the app's log here")
    args = parser.parse_args()
    result = run(args)
    print_report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, default=str))


if __name__ == "__main__":
    main()
