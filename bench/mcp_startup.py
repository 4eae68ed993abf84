"""How fast does `ragspace mcp` start, and how long does a `search` take over stdio?

Run: python bench/mcp_startup.py [--runs 5] [--json bench/results/mcp_startup.json]

A throwaway data folder gets a DocSet of two documents (tests/data's deployment guide and
glossary), embedded by the local model. Then `ragspace mcp` is spawned `--runs` times as an
agent does (the real `mcp` client over stdio) while the embedded Postgres is up (this process
keeps it running), and `--runs` times after it stopped (the command starts it): time to the
`initialize` answer, to the first `search` answer (it loads the embedding model), and the
median of 10 more searches. Times are wall clock on this machine with whatever else it runs.
"""

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from app_harness import commit_id
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from ragspace.runtime import open_runtime
from ragspace.settings import load_settings
from ragspace.sources.files import UploadedFile

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
SCRIPT = str(Path(sys.executable).parent / "ragspace")
QUESTION = "How do I roll back a deployment?"


def prepare(data_dir: Path) -> Any:
    """The DocSet, embedded; returns the open runtime (it keeps the database up)."""
    settings = load_settings(env_file=None, data_dir=data_dir)
    runtime = open_runtime(settings, worker_threads=0)
    runtime.actions.docsets.create("handbook")
    files = [
        UploadedFile(n, (DATA / n).read_bytes()) for n in ("deployment-guide.md", "glossary.rst")
    ]
    runtime.actions.sources.add_files("handbook", files)
    runtime.ingestor.process_all()
    return runtime


async def one_run(data_dir: Path) -> dict[str, float]:
    """Spawn `ragspace mcp`, initialise, search 11 times; the times in seconds."""
    env = dict(os.environ, RAGSPACE_DATA_DIR=str(data_dir))
    env.pop("DATABASE_URL", None)
    params = StdioServerParameters(command=SCRIPT, args=["mcp"], env=env)
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        initialized = time.perf_counter() - started
        before = time.perf_counter()
        first = await session.call_tool("search", {"query": QUESTION, "k": 5})
        assert not first.isError, first.content
        first_search = time.perf_counter() - before
        later = []
        for _ in range(10):
            before = time.perf_counter()
            await session.call_tool("search", {"query": QUESTION, "k": 5})
            later.append(time.perf_counter() - before)
    return {
        "initialize_s": round(initialized, 3),
        "first_search_s": round(first_search, 3),
        "search_median_s": round(statistics.median(later), 4),
    }


def summary(runs: list[dict[str, float]]) -> dict[str, Any]:
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]} | {"runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ragspace-bench-mcp-"))
    data_dir = folder / "data"
    try:
        runtime = prepare(data_dir)
        up = [asyncio.run(one_run(data_dir)) for _ in range(args.runs)]
        runtime.close()  # the embedded Postgres stops with its last user
        down = [asyncio.run(one_run(data_dir)) for _ in range(args.runs)]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result = {
        "benchmark": "mcp_startup",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": commit_id(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cores": os.cpu_count(),
        "database_up": summary(up),
        "database_down": summary(down),
    }
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
