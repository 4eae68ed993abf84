"""`ragspace eval`: score retrieval modes (and answers) on an evaluation set."""

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ragspace.settings import load_settings
from ragspace_cli.support import Subcommands, UsageError, note

if TYPE_CHECKING:  # the runner pulls in the actions and the models; `--help` should be instant
    from ragspace.actions import Actions
    from ragspace.eval.evaluation import Dataset
    from ragspace.eval.runner import EvalReport
    from ragspace.models import DocSet
    from ragspace.runtime import Runtime
    from ragspace.settings import Settings

ALL_MODES = ("vector", "keyword", "hybrid", "hybrid+rerank")  # eval_runner.ALL_MODES
EVAL_DATA_FOLDER = "eval"

DESCRIPTION = """\
Score retrieval on an evaluation set: Recall@5/10, MRR@10, nDCG@10 and Hit@5/10 at chunk
and file level, and latency percentiles, for each mode (vector, keyword, hybrid, and
hybrid+rerank when an API key is configured); with a key, answers are also graded by
the chat model. DATASET is a folder in one of the shared formats (corpus.json with
queries.json or queries.jsonl; its corpus is ingested into DocSet eval-<name>, or reused),
or a JSONL question set asked of an existing DocSet (--docset; format in docs/evaluation.md).
Exit status: 0 done, 1 failed, 2 bad usage."""


def _modes(text: str) -> tuple[str, ...]:
    modes = tuple(m.strip() for m in text.split(",") if m.strip())
    unknown = [m for m in modes if m not in ALL_MODES]
    if unknown or not modes:
        raise argparse.ArgumentTypeError(
            f"unknown mode {', '.join(unknown) or text!r}; choose from {', '.join(ALL_MODES)}"
        )
    return modes


def _depth(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 50:
        raise argparse.ArgumentTypeError(f"k must be a whole number from 1 to 50, not {text!r}")
    return int(text)


def add_eval_parser(commands: Subcommands) -> None:
    """Register the `eval` subcommand."""
    parser = commands.add_parser(
        "eval",
        help="score retrieval and answers on an evaluation set",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("datasets", nargs="+", type=Path, metavar="DATASET")
    parser.add_argument("--docset", help="DocSet to evaluate (required for a JSONL question set)")
    parser.add_argument("--modes", type=_modes, help=f"comma-separated, from {','.join(ALL_MODES)}")
    parser.add_argument("-k", type=_depth, default=10, help="results retrieved per question")
    parser.add_argument("--limit", type=int, help="only the first N questions of each set")
    parser.add_argument(
        "--no-grade", dest="grade", action="store_false", help="do not grade answers"
    )
    parser.add_argument("--rebuild", action="store_true", help="re-ingest an existing corpus")
    parser.add_argument(
        "--json", nargs="?", const="-", metavar="PATH", help="also write JSON (to stdout: --json)"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help=f"embedded database folder (default: {EVAL_DATA_FOLDER}/ in the app's data folder; "
        "for a JSONL question set, the app's database)",
    )
    parser.set_defaults(run=run_eval)


def run_eval(args: argparse.Namespace) -> int:
    """Load the sets, open the database, evaluate each set, print the results.

    Errors propagate to `ragspace_cli.main`: RagspaceError exits 1, UsageError 2.
    """
    from ragspace.eval.datasets import load_dataset
    from ragspace.runtime import open_runtime

    _check_usage(args)
    datasets = [load_dataset(path) for path in args.datasets]
    runtime = open_runtime(eval_settings(args), worker_threads=0)
    try:
        reports = [_evaluate(runtime, dataset, args) for dataset in datasets]
    finally:
        runtime.close()
    _write(reports, args.json)
    return 0


def eval_settings(args: argparse.Namespace) -> "Settings":
    """Corpora are ingested into their own embedded database (`--data-dir`, by default the
    `eval` folder inside the app's data folder), never the app's; a JSONL question set is
    asked of an existing DocSet, in the app's database unless `--data-dir` is given."""
    settings = load_settings()
    asks_app_docset = any(p.is_file() for p in args.datasets)
    if args.data_dir is None and asks_app_docset:
        return settings
    data_dir = args.data_dir or settings.database.data_dir / EVAL_DATA_FOLDER
    return load_settings(data_dir=data_dir, database_url=None)


def _check_usage(args: argparse.Namespace) -> None:
    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    if args.docset and len(args.datasets) > 1:
        raise UsageError("--docset names one DocSet; give one DATASET with it")
    if any(p.is_file() for p in args.datasets) and not args.docset:
        raise UsageError("a JSONL question set needs --docset (the DocSet to ask it of)")


def _evaluate(runtime: "Runtime", dataset: "Dataset", args: argparse.Namespace) -> "EvalReport":
    from ragspace.eval.runner import EvalOptions

    name = args.docset or f"eval-{dataset.name}"
    if dataset.documents:
        note(f"DocSet {name!r}: checking it holds the {len(dataset.documents)} documents...")
        docset, built = corpus_docset(runtime.actions, name, dataset, args.rebuild)
        note(f"DocSet {name!r} {'built' if built else 'reused'}: {docset.chunk_count} chunks.")
    options = EvalOptions(k=args.k, modes=args.modes, grade=args.grade, limit=args.limit)
    return runtime.actions.evaluation.run(
        name, dataset, options, lambda _fraction, text: note(f"{dataset.name}: {text}")
    )


def corpus_docset(
    actions: "Actions", name: str, dataset: "Dataset", rebuild: bool = False
) -> tuple["DocSet", bool]:
    """The DocSet holding a data set's corpus: reused when complete, else built; (docset, built)."""
    from ragspace.errors import ConflictError
    from ragspace.models import EmbeddingStatus

    paths = {d.path for d in dataset.documents}
    existing = {d.name for d in actions.docsets.all()}
    if name in existing and not rebuild:
        documents = actions.documents.all(name)
        done = {d.path for d in documents if d.embedding_status is EmbeddingStatus.DONE}
        if done == paths and len(documents) == len(paths):
            return actions.docsets.get(name), False
        raise ConflictError(
            f"DocSet {name!r} exists but does not hold the {len(paths)} embedded documents of "
            f"{dataset.name!r} ({len(done)} done); pass --rebuild to replace it, or choose "
            "another name with --docset."
        )
    if name in existing:
        actions.docsets.delete(name)
    actions.docsets.create(name, f"Evaluation corpus {dataset.name}")
    total = len(dataset.documents)
    actions.evaluation.load_corpus(
        name,
        dataset,
        lambda done: note(f"DocSet {name!r}: {done} of {total} documents embedded..."),
    )
    return actions.docsets.get(name), True


def format_report(report: "EvalReport") -> str:
    """The report as markdown: a heading line, the metrics table, grading and notes."""
    from ragspace.eval.runner import METRIC_HEADERS, grading_text, metric_rows

    lines = [
        f"## {report.dataset} · DocSet {report.docset} · {report.questions} questions · "
        f"k = {report.k}",
        "",
        "| " + " | ".join(METRIC_HEADERS) + " |",
        "|" + "---|" * 2 + "---:|" * (len(METRIC_HEADERS) - 2),
    ]
    for row in metric_rows(report):
        cells = [_cell(value, column) for column, value in enumerate(row)]
        lines.append("| " + " | ".join(cells) + " |")
    if report.grading is not None:
        lines += ["", grading_text(report.grading)]
    if report.notes:
        lines += ["", *(f"- Note: {note}" for note in report.notes)]
    return "\n".join(lines) + "\n"


def _cell(value: str | float, column: int) -> str:
    """Metrics with three decimals, latencies as measured (one decimal)."""
    return f"{value:.3f}" if isinstance(value, float) and column < 8 else str(value)


def _write(reports: "list[EvalReport]", json_target: str | None) -> None:
    tables = "\n".join(format_report(r) for r in reports)
    payload = json.dumps({"reports": [r.model_dump(mode="json") for r in reports]}, indent=2)
    if json_target == "-":
        sys.stderr.write(tables)
        sys.stdout.write(payload + "\n")
        return
    sys.stdout.write(tables)
    if json_target:
        Path(json_target).write_text(payload + "\n", encoding="utf-8")
