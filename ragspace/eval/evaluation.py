"""Retrieval evaluation: load the shared data sets, ingest them, score search results."""

import ast
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ragspace.models import Hit
from ragspace.text.languages import detect_language_of

WHOLE_FILE_END = 2**31 - 1


class Gold(Protocol):
    """Something a question's answer lives in: a line range, or a web page (section)."""

    def matches(self, hit: Hit) -> bool:
        """True when the retrieved chunk lies (partly) inside this item."""
        ...

    def whole(self) -> "Gold":
        """The same item widened to its whole file or page (file-level scoring)."""
        ...


@dataclass(frozen=True)
class Span:
    """A 1-based inclusive line range inside one document."""

    path: str
    start_line: int
    end_line: int

    def overlaps(self, path: str, start_line: int, end_line: int) -> bool:
        """True when the given range lies in the same document and shares a line."""
        return path == self.path and start_line <= self.end_line and end_line >= self.start_line

    def matches(self, hit: Hit) -> bool:
        """True when the hit is in this file (exact path, or a path ending in `/path`)."""
        same_file = hit.path == self.path or hit.path.endswith(f"/{self.path}")
        return same_file and hit.start_line <= self.end_line and hit.end_line >= self.start_line

    def whole(self) -> "Span":
        """Every line of the file."""
        return Span(self.path, 1, WHOLE_FILE_END)


def normalize_url(url: str) -> str:
    """A URL compared without scheme, `www.`, trailing slash or case of the host."""
    rest = url.split("://", 1)[-1].split("#", 1)[0].rstrip("/")
    host, slash, path = rest.partition("/")
    return host.lower().removeprefix("www.") + slash + path


@dataclass(frozen=True)
class PageRef:
    """A web page, or one section of it when `anchor` is set."""

    url: str
    anchor: str = ""

    def matches(self, hit: Hit) -> bool:
        """True when the hit comes from this page (and section, if an anchor is given)."""
        page = str(hit.metadata.get("url") or hit.path)
        if normalize_url(page) != normalize_url(self.url):
            return False
        return not self.anchor or hit.metadata.get("anchor") == self.anchor

    def whole(self) -> "PageRef":
        """The whole page."""
        return PageRef(self.url)


@dataclass(frozen=True)
class EvalDocument:
    """A document of an evaluation corpus, ingested under `path`."""

    path: str
    language: str
    content: str


@dataclass(frozen=True)
class EvalQuery:
    """A question, the items that answer it, and optionally a reference answer."""

    text: str
    gold: tuple[Gold, ...]
    answer: str = ""


@dataclass(frozen=True)
class Dataset:
    """Documents plus the questions asked of them."""

    name: str
    documents: tuple[EvalDocument, ...]
    queries: tuple[EvalQuery, ...]
    skipped_gold: int = 0


def files_missing(dataset: Dataset, paths: Sequence[str]) -> tuple[list[str], int]:
    """The files a question set's line ranges point to that none of `paths` (a DocSet's
    documents) is, as `Span.matches` compares them, and how many files it points to."""
    wanted = sorted({g.path for q in dataset.queries for g in q.gold if isinstance(g, Span)})
    held = set(paths)
    suffixes = {p.split("/", i)[-1] for p in held for i in range(1, p.count("/") + 1)}
    return [w for w in wanted if w not in held and w not in suffixes], len(wanted)


@dataclass
class Scores:
    """Mean metrics over all queries of one run."""

    values: dict[str, float] = field(default_factory=dict)
    queries: int = 0


# Loaders


def load_claude_docs(folder: Path) -> Dataset:
    """The documentation set: sections regrouped into pages, gold = section line ranges."""
    sections = json.loads((folder / "corpus.json").read_text(encoding="utf-8"))
    pages: dict[str, list[str]] = {}
    spans: dict[str, Span] = {}
    for section in sections:
        url, _, _anchor = section["chunk_link"].partition("#")
        path = _page_path(url)
        lines = pages.setdefault(path, [])
        block = _section_markdown(section["chunk_heading"], section["text"])
        start = len(lines) + 1
        lines.extend(block)
        spans[section["chunk_link"]] = Span(path, start, start + len(block) - 1)
        lines.append("")
    documents = tuple(
        EvalDocument(path, "markdown", "\n".join(lines).rstrip("\n") + "\n")
        for path, lines in pages.items()
    )
    raw_queries = json.loads((folder / "queries.json").read_text(encoding="utf-8"))
    queries = tuple(
        EvalQuery(
            q["question"],
            tuple(spans[link] for link in q["correct_chunks"]),
            str(q.get("correct_answer") or ""),
        )
        for q in raw_queries
    )
    return Dataset("claude-docs", documents, queries)


def _page_path(url: str) -> str:
    path = url.split("://", 1)[-1].rstrip("/")
    return f"{path}.md"


def _section_markdown(heading: str, text: str) -> list[str]:
    """The section as markdown lines: its heading as `##`, then its body."""
    body = text.strip("\n")
    if body.startswith(heading):
        body = body[len(heading) :].lstrip("\n")
    return [f"## {heading}", "", *body.split("\n")]


def load_codebase(folder: Path) -> Dataset:
    """The code set: whole files under repo paths, gold = golden chunk line ranges."""
    corpus = json.loads((folder / "corpus.json").read_text(encoding="utf-8"))
    contents = {item["original_uuid"]: item["content"] for item in corpus}
    raw = [
        json.loads(line)
        for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    paths: dict[str, str] = {}
    for item in raw:
        meta = _literal(item["meta"])
        for uuid in _literal(item["golden_doc_uuids"]):
            paths.setdefault(uuid, f"{meta['repo_name']}/{meta['relative_path'].lstrip('/')}")
    queries, skipped = [], 0
    for item in raw:
        gold = []
        for chunk in _literal(item["golden_chunks"]):
            span = _locate_span(paths[chunk["doc_uuid"]], contents[chunk["doc_uuid"]], chunk)
            if span is None:
                skipped += 1
            else:
                gold.append(span)
        if gold:
            queries.append(EvalQuery(item["query"], tuple(gold), str(item.get("answer") or "")))
    documents = tuple(
        # as a source labels it (sources/extract.py): a `.h` by its text, C, C++ or Obj-C
        EvalDocument(path, detect_language_of(path, contents[uuid]) or "text", contents[uuid])
        for uuid, path in sorted(paths.items(), key=lambda pair: pair[1])
    )
    return Dataset("codebase", documents, tuple(queries), skipped)


def _literal(value: Any) -> Any:
    """Fields are sometimes Python-literal strings, sometimes already parsed."""
    return ast.literal_eval(value) if isinstance(value, str) else value


def _locate_span(path: str, content: str, chunk: dict[str, Any]) -> Span | None:
    text = str(chunk["content"])
    found = content.find(text)
    if found == -1:
        text = text.strip()
        found = content.find(text) if text else -1
    if found == -1:
        return None
    start = content.count("\n", 0, found) + 1
    return Span(path, start, start + text.rstrip("\n").count("\n"))


def file_level(dataset: Dataset) -> Dataset:
    """The same questions scored per file: any chunk of a gold file is relevant."""
    queries = tuple(whole_files(q) for q in dataset.queries)
    return Dataset(f"{dataset.name} (file-level)", dataset.documents, queries)


def whole_files(query: EvalQuery) -> EvalQuery:
    """The question with each gold item widened to its file or page (duplicates merged)."""
    return EvalQuery(query.text, tuple(dict.fromkeys(g.whole() for g in query.gold)), query.answer)


# Metrics over one ranked list. `matches[i]` = indices of gold items result i hits.


def recall_at_k(matches: Sequence[set[int]], gold_count: int, k: int) -> float:
    """Share of gold items hit by at least one of the first k results."""
    found: set[int] = set().union(*matches[:k]) if matches[:k] else set()
    return len(found) / gold_count if gold_count else 0.0


def hit_at_k(matches: Sequence[set[int]], k: int) -> float:
    """1.0 when any of the first k results is relevant."""
    return 1.0 if any(matches[:k]) else 0.0


def mrr_at_k(matches: Sequence[set[int]], k: int = 10) -> float:
    """Reciprocal rank of the first relevant result within the first k."""
    for rank, hit in enumerate(matches[:k], start=1):
        if hit:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(matches: Sequence[set[int]], gold_count: int, k: int = 10) -> float:
    """Binary nDCG: a result gains 1 when it hits a gold item not already credited."""
    credited: set[int] = set()
    dcg = 0.0
    for rank, hit in enumerate(matches[:k], start=1):
        new = hit - credited
        if new:
            credited |= new
            dcg += 1.0 / math.log2(rank + 1)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(gold_count, k) + 1))
    return dcg / ideal if ideal else 0.0


def first_relevant_rank(matches: Sequence[set[int]]) -> int | None:
    """1-based rank of the first relevant result, None when none is relevant."""
    return next((rank for rank, hit in enumerate(matches, start=1) if hit), None)


def match_hits(hits: Sequence[Hit], gold: Sequence[Gold]) -> list[set[int]]:
    """For each hit, the gold items it lies in."""
    return [{i for i, item in enumerate(gold) if item.matches(h)} for h in hits]


def score_query(matches: Sequence[set[int]], gold_count: int) -> dict[str, float]:
    """The standard metric set for one ranked list."""
    return {
        "recall@5": recall_at_k(matches, gold_count, 5),
        "recall@10": recall_at_k(matches, gold_count, 10),
        "mrr@10": mrr_at_k(matches, 10),
        "ndcg@10": ndcg_at_k(matches, gold_count, 10),
        "hit@5": hit_at_k(matches, 5),
        "hit@10": hit_at_k(matches, 10),
    }


# Running


def evaluate(search: Callable[[str], list[Hit]], datasets: Sequence[Dataset]) -> dict[str, Scores]:
    """Mean scores per data set; each query is searched once and scored in every view."""
    results: dict[str, Scores] = {}
    cache: dict[str, list[Hit]] = {}
    for dataset in datasets:
        totals: dict[str, float] = {}
        for query in dataset.queries:
            if query.text not in cache:
                cache[query.text] = search(query.text)
            scores = score_query(match_hits(cache[query.text], query.gold), len(query.gold))
            for name, value in scores.items():
                totals[name] = totals.get(name, 0.0) + value
        count = len(dataset.queries)
        results[dataset.name] = Scores({n: v / count for n, v in totals.items()}, count)
    return results
