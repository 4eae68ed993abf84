"""What does the app cost while nobody uses it? (2026-11-28: Gradio's queue polled every 1 ms)

Starts the app as the README does (`python app.py`, local model, a fresh data folder), waits
until it answers and has settled, then reads its own process's CPU time (user + system, the
embedded Postgres not included: a process of its own) over `--windows` windows of
`--seconds` each, and prints the median share of one core as a JSON line with the commit.

Usage (from the repository root; run it on each commit to compare, one at a time):
    python bench/experiments/idle_cpu.py [--seconds 20] [--windows 3] [--settle 10]
"""

import argparse
import datetime
import json
import os
import statistics
import sys
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from app_harness import commit_id, running_app


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--seconds", type=float, default=20.0, help="length of a window")
    options.add_argument("--windows", type=int, default=3, help="windows measured")
    options.add_argument("--settle", type=float, default=10.0, help="wait before measuring")
    args = options.parse_args()
    with running_app("local") as app:
        assert app.app is not None
        process = psutil.Process(app.app.pid)
        time.sleep(args.settle)  # start-up work (migrations, first polls) ends
        shares = []
        for _ in range(args.windows):
            before, started = process.cpu_times(), time.perf_counter()
            time.sleep(args.seconds)
            after, elapsed = process.cpu_times(), time.perf_counter() - started
            used = (after.user - before.user) + (after.system - before.system)
            shares.append(used / elapsed)
    print(
        json.dumps(
            {
                "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                "commit": commit_id(),
                "load": round(os.getloadavg()[0], 2),
                "idle app, share of one core (median)": round(statistics.median(shares), 4),
                "windows": [round(s, 4) for s in shares],
            }
        )
    )


if __name__ == "__main__":
    main()
