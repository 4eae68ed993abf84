"""The answer a user reads, scored against the shared sets' reference answers (issue 69).

    python bench/answer_quality.py run --work /work/pool --label NAME [--sets a,b] [--write]
    python bench/answer_quality.py report

`run` asks every question of each shared set through the app's own answer path
(`AnswerActions.answer`, the chat tab's and `ragspace ask`'s), in the set's data folder that
`bench/quality_pool.py index` filled (no set shares a database), and scores what the answer
quotes, with no LLM judge:

- **gold quoted**: a line the answer quotes lies in a gold span (the reference answer's line
  range, the golden chunk, or the docs section), as `ragspace eval` matches a hit;
- **key terms**: the share of the reference answer's identifiers and numbers (backticked
  names, `snake_case`, `CamelCase`, dotted names, numbers that are not line numbers) that the
  answer's text holds;
- **boilerplate**: the share of quoted lines that are a heading, markup, licence text, a bare
  `def`/`class` line or a docstring opener (`boilerplate_kind`);
- **nothing found**: every shared question has its answer in the corpus, so "nothing found"
  is always wrong here.

Questions are split by whether a gold span is among the first five passages (the answer's own
fault when it misses) or not (retrieval's). `--write` adds (or replaces) the run `--label` in
bench/results/answer_quality.json; `report` renders every run as docs/benchmarks.md shows it.
With no `OPENAI_API_KEY` the answer is the extractive one; set `OPENAI_BASE_URL` and a key to
score a chat model (a local llama.cpp server, say) on the same questions.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from statistics import median
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: bench.pool

from bench.pool.sets import SETS, PoolSet, chosen_sets, data_dir, load_questions

RESULTS = Path(__file__).resolve().parent / "results" / "answer_quality.json"
TOP = 5  # passages in which a gold span makes a miss the answer's own fault

_BACKTICKED = re.compile(r"`([^`\n]{2,80})`")
_IDENTIFIER = re.compile(
    r"\b(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*\b|\b[a-z]+_\w+\b|\b_\w+\b|\b[A-Z][a-z0-9]+[A-Z]\w*\b|"
    r"\b[a-z]+[A-Z]\w*\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"
)
_LINE_NUMBERS = re.compile(r"\b(?:lines?|L)\s*\d+(?:\s*[-/\u2013]\s*L?\d+)*", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
_NOT_TERMS = {"e.g", "i.e", "etc", "vs"}
_FILE_LIKE = re.compile(r"/|\.(py|md|rst|txt|toml|cfg|ini|json|yaml|yml|rs|js|ts|html)$")


def key_terms(reference: str) -> set[str]:
    """The identifiers and numbers a reference answer names (lower case), file paths and
    line numbers left out: what an answer to the same question should mention."""
    text = _LINE_NUMBERS.sub(" ", reference)
    found = set(_BACKTICKED.findall(text))
    unquoted = _BACKTICKED.sub(" ", text)
    found |= set(_IDENTIFIER.findall(unquoted)) | set(_NUMBER.findall(unquoted))
    kept = set()
    for term in found:
        term = term.split("(", 1)[0].strip().strip("\"'").strip()
        wordy = len(term) < 2 or " " in term or _FILE_LIKE.search(term)
        if not wordy and term.lower() not in _NOT_TERMS:
            kept.add(term.lower())
    return kept


@dataclass(frozen=True)
class QuotedSpan:
    """Lines of a document an answer quotes, shaped as a hit for `Gold.matches`."""

    path: str
    start_line: int
    end_line: int
    metadata: dict[str, Any]


@dataclass
class Scored:
    """One question's answer, scored."""

    question: str
    gold_in_top: bool
    gold_quoted: bool
    lead_gold: bool  # the answer's first quote is in a gold span
    quotes: int
    quoted_lines: int
    boilerplate_lines: int
    boilerplate: dict[str, int]
    terms: int
    terms_found: int
    nothing_found: bool
    seconds: float
    citations: int = 0
    verification: dict[str, int] | None = None  # a chat model's quotes, by label
    fell_back: bool = False  # a chat model's answer replaced or joined by the extractive one
    error: str = ""  # the answer path raised (always a defect)


def quoted_spans(answer: Any) -> list[tuple[QuotedSpan, str]]:
    """Each quote of the answer found in its passage, as shown, with the document lines it
    covers: where the quote is found verbatim, else the citation's focus lines (its quote's
    once the quote is verified or paraphrased)."""
    from ragspace.answering.quotes import match_quote

    passages = {p.number: p for p in answer.passages}
    spans = []
    for citation in answer.citations:
        passage = passages.get(citation.number)
        if not citation.quote or passage is None or citation.verification == "unsupported":
            continue
        found = match_quote(citation.quote, passage)
        lines = (citation.focus_start_line, citation.focus_end_line)
        if found.label == "verified":
            lines = (found.start_line, found.end_line)
        spans.append((QuotedSpan(passage.path, *lines, passage.metadata), citation.quote))
    return spans


def score_answer(query: Any, answer: Any, text: str, seconds: float) -> Scored:
    """How the answer to one question reads against its reference answer and gold."""
    from ragspace.answering.answer import MAP_INTRO
    from ragspace.answering.boilerplate import boilerplate_kind
    from ragspace.answering.focus import is_prose_metadata
    from ragspace.answering.quotes import verification_counts

    passages = answer.passages[:TOP]
    gold_in_top = any(g.matches(p) for g in query.gold for p in passages)
    spans = quoted_spans(answer)
    gold_quoted = any(g.matches(span) for g in query.gold for span, _ in spans)
    lines = [
        (line, not is_prose_metadata(span.metadata))
        for span, quote in spans
        for line in quote.split("\n")
        if line.strip()
    ]
    kinds: dict[str, int] = {}
    for line, code in lines:
        kind = boilerplate_kind(line, code)
        if kind is not None:
            kinds[kind] = kinds.get(kind, 0) + 1
    wanted = key_terms(query.answer)
    said = text.lower()
    return Scored(
        question=query.text,
        gold_in_top=gold_in_top,
        gold_quoted=gold_quoted,
        lead_gold=bool(spans) and any(g.matches(spans[0][0]) for g in query.gold),
        quotes=len(spans),
        quoted_lines=len(lines),
        boilerplate_lines=sum(kinds.values()),
        boilerplate=kinds,
        terms=len(wanted),
        terms_found=sum(term in said for term in wanted),
        nothing_found=not answer.passages and not text.startswith(MAP_INTRO),
        seconds=seconds,
        citations=len(answer.citations),
        verification=verification_counts(answer.citations),
        fell_back=any("passages" in note for note in answer.notes),
    )


class RecordingChat:
    """A chat model whose every reply is written down with what kind of request it was
    (answer, rerank, rewrite), for tests to replay real models' outputs."""

    def __init__(self, chat: Any, record: Any) -> None:
        self._chat, self._record = chat, record

    def complete(self, messages: Any, timeout: float | None = None) -> str:
        reply: str = self._chat.complete(messages, timeout=timeout)
        self._write(messages, reply)
        return reply

    def stream(self, messages: Any) -> Iterator[str]:
        pieces = []
        for piece in self._chat.stream(messages):
            pieces.append(piece)
            yield piece
        self._write(messages, "".join(pieces))

    def _write(self, messages: Any, reply: str) -> None:
        from ragspace.answering.prompts import ANSWER_SYSTEM, RERANK_SYSTEM

        system = messages[0]["content"]
        kind = {ANSWER_SYSTEM: "answer", RERANK_SYSTEM: "rerank"}.get(system, "rewrite")
        question = messages[-1]["content"].rsplit("Question: ", 1)[-1][:300]
        self._record.write(json.dumps({"kind": kind, "question": question, "reply": reply}))
        self._record.write("\n")
        self._record.flush()


def answer_set(
    work: Path, pool_set: PoolSet, limit: int | None, record: Any = None
) -> list[Scored]:
    """Every question of one set answered in its own data folder, and scored; with a chat
    model configured (OPENAI_API_KEY), its replies written to `record`."""
    from ragspace.answering.answer import without_sources
    from ragspace.models import SearchQuery
    from ragspace.runtime import build_actions, build_chat_model, open_runtime
    from ragspace.settings import load_settings

    queries = [q for q in load_questions(pool_set).queries if q.answer][:limit]
    settings = load_settings(data_dir=data_dir(work, pool_set), database_url=None)
    runtime = open_runtime(settings, worker_threads=0)
    actions, chat = runtime.actions, build_chat_model(settings)
    if chat is not None and record is not None:
        actions = build_actions(
            settings, runtime.store, runtime.embedder, chat=RecordingChat(chat, record)
        )
    scored = []
    try:
        for query in queries:
            started = time.perf_counter()
            asked = SearchQuery(question=query.text, docsets=(pool_set.docset,))
            try:
                answer = actions.answers.answer(asked)
            except Exception as exc:  # an answer path that raises is a defect: count it
                scored.append(_failed(query.text, exc, time.perf_counter() - started))
                continue
            seconds = time.perf_counter() - started
            scored.append(score_answer(query, answer, without_sources(answer.text), seconds))
    finally:
        runtime.close()
    return scored


def _failed(question: str, exc: Exception, seconds: float) -> Scored:
    return Scored(
        question, False, False, False, 0, 0, 0, {}, 0, 0, False, seconds, error=repr(exc)[:300]
    )


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def summary(scored: Sequence[Scored]) -> dict[str, Any]:
    """A set's figures: gold quoted in each group, key terms, boilerplate, refusals, time."""
    top = [s for s in scored if s.gold_in_top]
    rest = [s for s in scored if not s.gold_in_top]
    with_terms = [s for s in scored if s.terms]
    lines = sum(s.quoted_lines for s in scored)
    kinds: dict[str, int] = {}
    for s in scored:
        for kind, count in s.boilerplate.items():
            kinds[kind] = kinds.get(kind, 0) + count
    times = sorted(s.seconds for s in scored)
    return {
        "questions": len(scored),
        "gold in top": len(top),
        "gold quoted, gold in top": _share(sum(s.gold_quoted for s in top), len(top)),
        "lead in gold, gold in top": _share(sum(s.lead_gold for s in top), len(top)),
        "gold quoted, rest": _share(sum(s.gold_quoted for s in rest), len(rest)),
        "key terms": (
            sum(s.terms_found / s.terms for s in with_terms) / len(with_terms)
            if with_terms
            else None
        ),
        "quoted lines": lines,
        "boilerplate": _share(sum(kinds.values()), lines),
        "boilerplate kinds": kinds,
        "no quote": sum(not s.quotes for s in scored),
        "errors": sum(bool(s.error) for s in scored),
        "fell back": sum(s.fell_back for s in scored),
        "quotes by label": _summed(s.verification or {} for s in scored),
        "nothing found": sum(s.nothing_found for s in scored),
        "p50 s": median(times) if times else None,
        "p95 s": times[min(len(times) - 1, int(0.95 * len(times)))] if times else None,
    }


def _summed(counts: Iterable[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for one in counts:
        for key, value in one.items():
            total[key] = total.get(key, 0) + value
    return total


def _commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or "unknown"


def run(args: argparse.Namespace) -> None:
    if not os.environ.get("OPENAI_API_KEY"):
        os.environ.pop("OPENAI_BASE_URL", None)  # extractive: no chat model at all
    sets = chosen_sets(args.sets.split(",") if args.sets else None)
    load_before = os.getloadavg()
    per_set: dict[str, Any] = {}
    questions: dict[str, list[dict[str, Any]]] = {}
    replies = None
    if os.environ.get("OPENAI_API_KEY"):
        replies = (args.work / f"answer_quality-{_slug(args.label)}-replies.jsonl").open("a")
    for pool_set in sets:
        scored = answer_set(args.work, pool_set, args.limit, replies)
        per_set[pool_set.name] = summary(scored) | {"commit": _commit()}
        questions[pool_set.name] = [asdict(s) for s in scored]
        print(pool_set.name, json.dumps(per_set[pool_set.name]), file=sys.stderr)
    record = {
        "label": args.label,
        "answerer": _answerer(),
        "command": "python bench/answer_quality.py run " + " ".join(sys.argv[2:]),
        "date": time.strftime("%Y-%m-%dT%H:%M", time.gmtime()),
        "commit": _commit(),
        "load": [round(load_before[0], 1), round(os.getloadavg()[0], 1)],
        "sets": per_set,
    }
    print(report_of([record]))
    if args.write:
        results: Path = args.results
        saved = json.loads(results.read_text()) if results.exists() else {"runs": []}
        earlier = next((r for r in saved["runs"] if r["label"] == args.label), None)
        if earlier is not None:  # a run of more sets: each set keeps the commit it ran at
            record["sets"] = {**earlier["sets"], **record["sets"]}
        saved["runs"] = [r for r in saved["runs"] if r["label"] != args.label] + [record]
        results.write_text(json.dumps(saved, indent=1) + "\n")
        detail = args.work / f"answer_quality-{_slug(args.label)}.jsonl"  # per question
        with detail.open("a") as out:
            for name, rows in questions.items():
                for row in rows:
                    out.write(json.dumps({"set": name, **row}) + "\n")


def _answerer() -> str:
    if not os.environ.get("OPENAI_API_KEY"):
        return "extractive"
    from ragspace.runtime import chat_endpoint
    from ragspace.settings import load_settings

    return chat_endpoint(load_settings(database_url=None))


def _slug(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")


def _cell(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _labels(counts: dict[str, int]) -> str:
    return " / ".join(str(counts.get(k, 0)) for k in ("verified", "paraphrased", "unsupported"))


def report_of(records: Iterable[dict[str, Any]]) -> str:
    """Each run's table: per set, the answer's figures (docs/benchmarks.md)."""
    lines = []
    for record in records:
        lines += [
            f"**{record['label']}** (answerer: {record['answerer']}): "
            f"`{record['command']}`, {record['date'].replace('T', ' ')} UTC, commit "
            f"{record['commit']}, load {record['load'][0]} before, {record['load'][1]} after.",
            "",
            "| set | questions | gold in top 5 | gold quoted (gold in top 5) | first quote in "
            "gold (gold in top 5) | gold quoted (rest) | key terms | boilerplate lines | no "
            "quote | nothing found | errors | fell back | quotes verified / paraphrased / "
            "unsupported | p50 / p95 s |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for name, s in record["sets"].items():
            lines.append(
                f"| {name} | {s['questions']} | {s['gold in top']} | "
                f"{_cell(s['gold quoted, gold in top'])} | "
                f"{_cell(s['lead in gold, gold in top'])} | {_cell(s['gold quoted, rest'])} | "
                f"{_cell(s['key terms'])} | {_cell(s['boilerplate'])} of {s['quoted lines']} | "
                f"{s['no quote']} | {s['nothing found']} | {s.get('errors', 0)} | "
                f"{s.get('fell back', 0)} | {_labels(s.get('quotes by label', {}))} | "
                f"{_cell(s['p50 s'])} / {_cell(s['p95 s'])} |"
            )
        lines.append("")
    return "\n".join(lines)


def report(results: Path = RESULTS) -> str:
    """Every saved run, oldest first (scripts/write_benchmarks.py's generated section)."""
    return report_of(json.loads(results.read_text())["runs"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("run", "report"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/ragspace-pool"))
    parser.add_argument("--label", default="extractive")
    parser.add_argument("--sets", help=f"comma-separated, of {', '.join(s.name for s in SETS)}")
    parser.add_argument("--limit", type=int, help="the first N questions of each set")
    parser.add_argument("--write", action="store_true", help="save the run in --results")
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.step == "report":
        print(report(args.results), end="")
    else:
        run(args)


if __name__ == "__main__":
    main()
