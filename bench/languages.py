"""Every language RAGSpace recognises: how (grammar, line patterns, both) and how fast.

    python bench/languages.py              # measure, write bench/results/languages.json
    python bench/languages.py --report     # the table docs/benchmarks.md shows

For each language `ragspace.text.languages` names, its suffixes and whether a tree-sitter grammar
(shipped in a wheel) and/or line patterns find its definitions; then, for each language with
a real sample file in the repository's test data (tests/data/syntax, tests/data/code; small
real-world files, one per language), the sample's size, its chunks, and the throughput
(MB/s, median of --runs) of the chunker with the parse (`Chunker.split_file`, what ingestion
runs: chunks, scope chains and the symbol table's definitions and references) and of the
tree-sitter parse alone. Small files make per-file overheads visible: the figures are for
files of that size, not a language's asymptotic speed.
"""

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from app_harness import commit_id

from ragspace.chunking.chunker import Chunker
from ragspace.chunking.code import has_patterns
from ragspace.chunking.grammars import GRAMMARS, grammar_for
from ragspace.settings import load_settings
from ragspace.text.languages import _BY_SUFFIX, detect_language_of, is_prose

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = [ROOT / "tests" / "data" / "syntax", ROOT / "tests" / "data" / "code"]
RESULTS = Path(__file__).parent / "results" / "languages.json"
MIN_SECONDS = 0.2  # each timing repeats a file until it has run this long


def recognition(language: str) -> str:
    """How a language's definitions are found."""
    grammar = language in GRAMMARS or (language == "ts" and "tsx" in GRAMMARS)
    patterns = has_patterns(language)
    if grammar and patterns:
        return "grammar + patterns"
    if grammar:
        return "grammar"
    if patterns:
        return "patterns"
    return "prose" if is_prose(language) else "lines (no definitions)"


def rate(work: Callable[[], object], size: int, runs: int) -> float:
    """MB/s of `work` on `size` bytes: the median of `runs` timings, each repeated to
    MIN_SECONDS."""
    timings = []
    for _ in range(runs):
        repeats, started = 0, time.perf_counter()
        while time.perf_counter() - started < MIN_SECONDS:
            work()
            repeats += 1
        timings.append((time.perf_counter() - started) / repeats)
    return size / statistics.median(timings) / 1e6


def measure(runs: int) -> dict[str, Any]:
    """The table's rows, by language, and the samples measured."""
    settings = load_settings(env_file=None).chunking
    chunker = Chunker(settings.code_chunk_size, settings.prose_chunk_size, settings.chunk_overlap)
    suffixes: dict[str, list[str]] = {}
    for suffix, language in _BY_SUFFIX.items():
        suffixes.setdefault(language, []).append(suffix)
    rows: dict[str, dict[str, Any]] = {
        language: {"suffixes": found, "recognised_by": recognition(language)}
        for language, found in sorted(suffixes.items())
    }
    for folder in SAMPLES:
        for path in sorted(folder.iterdir()):
            text = path.read_text(encoding="utf-8")
            language = detect_language_of(path.name, text)
            if language is None or is_prose(language) or "sample" in rows.get(language, {}):
                continue
            rows.setdefault(language, {"suffixes": [], "recognised_by": recognition(language)})
            rows[language] |= sample_figures(chunker, path, text, language, runs)
    return rows


def sample_figures(
    chunker: Chunker, path: Path, text: str, language: str, runs: int
) -> dict[str, Any]:
    """One sample file's size, chunks and throughput (chunker with the parse; parse alone)."""
    size = len(text.encode())
    grammar = grammar_for(language, path.name)
    parse = None
    if grammar in GRAMMARS:
        lines = text.count("\n") + 1
        parse = rate(partial(chunker.syntax.symbols, text, grammar, lines, True), size, runs)
    chunked = partial(chunker.split_file, text, language, path.name)
    return {
        "sample": path.relative_to(ROOT).as_posix(),
        "bytes": size,
        "chunks": len(chunked().chunks),
        "chunker_mb_s": round(rate(chunked, size, runs), 2),
        "parse_mb_s": None if parse is None else round(parse, 2),
    }


def report(results: Path) -> str:
    """The languages table from the results file."""
    data = json.loads(results.read_text())
    lines = [
        "| language | suffixes | definitions found by | sample | KB | chunks "
        "| chunker + parse MB/s | parse only MB/s |",
        "|---|---|---|---|---:|---:|---:|---:|",
    ]
    for language, row in data["languages"].items():
        sample = row.get("sample")
        figures = (
            f"`{Path(sample).name}` | {row['bytes'] / 1024:.1f} | {row['chunks']} "
            f"| {row['chunker_mb_s']} | {row['parse_mb_s'] if row['parse_mb_s'] else '-'}"
            if sample
            else "- | | | |"
        )
        suffixes = " ".join(row["suffixes"][:4]) + (" ..." if len(row["suffixes"]) > 4 else "")
        suffixes = suffixes or "told by content"
        lines.append(f"| {language} | {suffixes} | {row['recognised_by']} | {figures} |")
    lines.append("")
    lines.append(
        f"Median of {data['runs']} timings per file; {data['date']}, commit {data['commit']}, "
        f"load {data['load_before']} before."
    )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--report", action="store_true", help="print the table and stop")
    args = parser.parse_args()
    if args.report:
        print(report(args.results), end="")
        return
    load_before = round(os.getloadavg()[0], 2)
    result = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit_id(),
        "load_before": load_before,
        "runs": args.runs,
        "languages": measure(args.runs),
    }
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(result, indent=1) + "\n")
    print(report(args.results), end="")


if __name__ == "__main__":
    main()
