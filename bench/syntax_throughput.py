"""Chunking with and without tree-sitter scope chains, side by side in one run (issue 40).

Three passes over the same files, interleaved so machine load hits them alike:
`patterns` (today's chunker, no parse), `chunker+parse` (the chunker with scope chains) and
`parse only` (tree-sitter parse + definition query, no chunking). Reports MB/s (median of
`--runs`) per corpus and per language, and what the parse adds to chunking.

Usage (from the repository root):
    python bench/syntax_throughput.py [--runs 5] [--checkout pytest] [--json PATH]
"""

import argparse
import datetime
import io
import json
import os
import statistics
import subprocess
import tarfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from ragspace.chunking.chunker import Chunker
from ragspace.chunking.grammars import Grammars
from ragspace.chunking.syntax import SyntaxParser
from ragspace.eval.evaluation import load_codebase
from ragspace.settings import load_settings
from ragspace.text.languages import detect_language_of, is_prose

EVAL_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "eval"
Document = tuple[str, str, str]  # path, language, text


def checkout(name: str) -> list[Document]:
    """The code files of a SWE-QA pool checkout (`pytest`, `sphinx`, `pylint`)."""
    [archive] = (EVAL_DIR / "sweqa-dev").glob(f"{name}-*.tar.gz")
    documents = []
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            extracted = tar.extractfile(member) if member.isfile() else None
            if extracted is None:
                continue
            text = io.TextIOWrapper(extracted, encoding="utf-8", errors="replace").read()
            language = detect_language_of(member.name, text)
            if language and not is_prose(language):
                documents.append((member.name, language, text))
    return documents


def timed(work: Callable[[Document], object], documents: list[Document]) -> float:
    started = time.perf_counter()
    for document in documents:
        work(document)
    return time.perf_counter() - started


def compare(label: str, documents: list[Document], runs: int) -> dict[str, float]:
    settings = load_settings(env_file=None)
    sizes = (
        settings.chunking.code_chunk_size,
        settings.chunking.prose_chunk_size,
        settings.chunking.chunk_overlap,
    )
    plain = Chunker(*sizes, syntax=SyntaxParser(Grammars({})))
    parser = SyntaxParser()
    full = Chunker(*sizes, syntax=parser)
    passes: dict[str, Callable[[Document], object]] = {
        "patterns": lambda d: plain.split(d[2], d[1], d[0]),
        "chunker+parse": lambda d: full.split(d[2], d[1], d[0]),
        "parse only": lambda d: parser.symbols(d[2], d[1], d[2].count("\n") + 1),
    }
    for work in passes.values():  # load every grammar before timing
        timed(work, documents)
    seconds: dict[str, list[float]] = defaultdict(list)
    for _ in range(runs):
        for name, work in passes.items():
            seconds[name].append(timed(work, documents))
    megabytes = sum(len(d[2].encode("utf-8")) for d in documents) / 1e6
    median = {name: statistics.median(values) for name, values in seconds.items()}
    print(f"{label}: {len(documents)} files, {megabytes:.2f} MB, median of {runs} runs")
    for name, value in median.items():
        print(f"  {name:14} {megabytes / value:6.2f} MB/s  {len(documents) / value:8.0f} files/s")
    added = median["chunker+parse"] / median["patterns"] - 1
    print(f"  the parse adds {added:.0%} to chunking time")
    rates = {f"{name} MB/s": round(megabytes / value, 3) for name, value in median.items()}
    return {"files": len(documents), "MB": round(megabytes, 3), **rates}


def main() -> None:
    """Print the three passes for the code evaluation set, a checkout and each language."""
    options = argparse.ArgumentParser()
    options.add_argument("--runs", type=int, default=5)
    options.add_argument("--checkout", default="pytest")
    options.add_argument("--json", default="bench/results/syntax_throughput.json")
    args = options.parse_args()
    results: dict[str, dict[str, float]] = {}
    # languages as ingestion sees them (a `.h` told apart as C or C++ by its content)
    loaded = load_codebase(EVAL_DIR / "codebase").documents
    codebase = [
        (d.path, detect_language_of(d.path, d.content) or "text", d.content) for d in loaded
    ]
    results["codebase"] = compare("codebase (code evaluation set)", codebase, args.runs)
    sweqa = checkout(args.checkout)
    results[args.checkout] = compare(f"SWE-QA {args.checkout} checkout", sweqa, args.runs)
    by_language: dict[str, list[Document]] = defaultdict(list)
    for document in codebase:
        by_language[document[1]].append(document)
    for language, documents in sorted(by_language.items()):
        results[f"codebase {language}"] = compare(f"codebase, {language}", documents, args.runs)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    record = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": commit.stdout.strip(),
        "load average before": os.getloadavg()[0],
        "runs": args.runs,
        "results": results,
    }
    Path(args.json).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
