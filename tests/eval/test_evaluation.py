"""Evaluation harness: metrics against hand-computed values, loaders, and a real run."""

import json
import math
from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.actions.corpora import ingest
from ragspace.chunking.chunker import Chunker
from ragspace.eval.evaluation import (
    EvalQuery,
    PageRef,
    Span,
    evaluate,
    file_level,
    first_relevant_rank,
    hit_at_k,
    load_claude_docs,
    load_codebase,
    match_hits,
    mrr_at_k,
    ndcg_at_k,
    recall_at_k,
    score_query,
    whole_files,
)
from ragspace.eval.runner import mean_scores, percentiles_ms
from ragspace.ingestion.worker import Ingestor
from ragspace.models import Hit, SearchQuery
from ragspace.store import Store

# Results 1..5: miss, gold 0, miss, gold 1, gold 0 again; three gold items in all.
RANKED = [set(), {0}, set(), {1}, {0}]


def test_recall_counts_distinct_gold_items_found() -> None:
    """Recall@k = share of gold items hit within the first k results."""
    assert recall_at_k(RANKED, 3, 1) == 0.0
    assert recall_at_k(RANKED, 3, 2) == pytest.approx(1 / 3)
    assert recall_at_k(RANKED, 3, 5) == pytest.approx(2 / 3)
    assert recall_at_k([], 3, 5) == 0.0


def test_hit_and_mrr() -> None:
    """Hit@k is 1 when anything relevant is in the top k; MRR is 1 / first relevant rank."""
    assert hit_at_k(RANKED, 1) == 0.0
    assert hit_at_k(RANKED, 2) == 1.0
    assert mrr_at_k(RANKED, 10) == 0.5
    assert mrr_at_k(RANKED, 1) == 0.0
    assert mrr_at_k([{0}], 10) == 1.0


def test_ndcg_credits_each_gold_item_once() -> None:
    """DCG = 1/log2(3) + 1/log2(5); ideal = 1 + 1/log2(3) + 1/log2(4)."""
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 + 1 / math.log2(3) + 0.5
    assert ndcg_at_k(RANKED, 3, 10) == pytest.approx(dcg / ideal)
    assert ndcg_at_k(RANKED, 3, 10) == pytest.approx(0.49819, abs=1e-5)
    assert ndcg_at_k([{0}, {1}], 2, 10) == pytest.approx(1.0)


def test_ndcg_at_10_ignores_results_past_10_and_caps_the_ideal_at_10() -> None:
    """Gold at ranks 3 and 11 of 12 results, 2 gold items: only rank 3 counts.

    DCG@10 = 1/log2(4) = 0.5; ideal = 1 + 1/log2(3) = 1.63093; nDCG = 0.30657.
    """
    ranked = [set(), set(), {0}, *[set()] * 7, {1}, set()]
    assert ndcg_at_k(ranked, 2, 10) == pytest.approx(0.5 / (1 + 1 / math.log2(3)))
    assert ndcg_at_k(ranked, 2, 10) == pytest.approx(0.30657, abs=1e-5)
    # 12 gold items but only 10 slots: the ideal is 10 hits, so 10 distinct hits score 1
    assert ndcg_at_k([{i} for i in range(10)], 12, 10) == pytest.approx(1.0)
    assert ndcg_at_k([], 2, 10) == 0.0
    assert ndcg_at_k([{0}], 0, 10) == 0.0


def test_hit_at_k_and_first_relevant_rank() -> None:
    """Hit@5 of a list whose first relevant result is 6th is 0; Hit@10 is 1."""
    ranked = [set(), set(), set(), set(), set(), {0}, {1}]
    assert (hit_at_k(ranked, 5), hit_at_k(ranked, 10)) == (0.0, 1.0)
    assert first_relevant_rank(ranked) == 6
    assert first_relevant_rank([set(), set()]) is None
    scores = score_query(ranked, 2)
    assert scores["recall@5"] == 0.0 and scores["recall@10"] == 1.0
    assert scores["mrr@10"] == pytest.approx(1 / 6)


def _hit(path: str, start: int, end: int, **metadata: str) -> Hit:
    return Hit(
        chunk_id=start,
        document_id=1,
        docset_name="d",
        path=path,
        title=path,
        ordinal=0,
        content="",
        start_line=start,
        end_line=end,
        metadata=metadata,
        score=1.0,
    )


def test_file_level_metrics_credit_any_chunk_of_a_gold_file() -> None:
    """Gold: a.py lines 10-20 and b.py lines 1-5; results: a.py 30-40, b.py 50-60, c.py.

    Chunk level nothing overlaps (recall 0); file level both files are found at
    ranks 1 and 2: Recall@5 1, MRR 1, nDCG 1; a duplicate gold file counts once.
    """
    query = EvalQuery("q", (Span("a.py", 10, 20), Span("b.py", 1, 5), Span("a.py", 50, 60)))
    hits = [_hit("a.py", 30, 40), _hit("b.py", 50, 60), _hit("c.py", 1, 9)]
    chunk = score_query(match_hits(hits, query.gold), len(query.gold))
    assert chunk["recall@10"] == 0.0 and chunk["hit@10"] == 0.0
    files = whole_files(query)
    assert len(files.gold) == 2
    whole = score_query(match_hits(hits, files.gold), len(files.gold))
    assert whole == {
        "recall@5": 1.0,
        "recall@10": 1.0,
        "mrr@10": 1.0,
        "ndcg@10": pytest.approx(1.0),
        "hit@5": 1.0,
        "hit@10": 1.0,
    }


def test_mean_scores_average_each_metric_over_questions() -> None:
    """Two questions, one perfect, one empty: every mean is 0.5."""
    perfect = score_query([{0}], 1)
    empty = score_query([set()], 1)
    assert mean_scores([perfect, empty]) == dict.fromkeys(perfect, 0.5)


def test_latency_percentiles_interpolate_between_samples() -> None:
    """1..100 ms: p50 50.5, p95 95.05, p99 99.01 (linear interpolation), rounded to 0.1 ms."""
    samples = [n / 1000 for n in range(1, 101)]
    assert percentiles_ms(samples) == (50.5, 95.0, 99.0)
    assert percentiles_ms([0.004]) == (4.0, 4.0, 4.0)
    assert percentiles_ms([]) == (0.0, 0.0, 0.0)


def test_page_refs_match_their_page_and_section() -> None:
    """URLs compare without scheme, www, trailing slash; an anchor narrows to a section."""
    section = PageRef("https://www.docs.example.com/guide/", "retries")
    page_hit = _hit("https://docs.example.com/guide", 1, 9, anchor="retries")
    assert section.matches(page_hit)
    assert not section.matches(_hit("https://docs.example.com/guide", 1, 9, anchor="setup"))
    assert section.whole().matches(_hit("http://docs.example.com/guide#x", 1, 9))
    assert not section.whole().matches(_hit("https://docs.example.com/other", 1, 9))
    assert Span("src/x.py", 1, 5).matches(_hit("repo/src/x.py", 3, 4))
    assert not Span("x.py", 1, 5).matches(_hit("repo/src/xx.py", 3, 4))


def test_spans_overlap_on_shared_lines_of_the_same_file() -> None:
    """Line ranges are inclusive; other files never overlap."""
    span = Span("a.py", 10, 20)
    assert span.overlaps("a.py", 20, 30)
    assert span.overlaps("a.py", 1, 10)
    assert not span.overlaps("a.py", 21, 30)
    assert not span.overlaps("b.py", 10, 20)


def write_eval_docs(folder: Path) -> None:
    """A tiny docs evaluation set (corpus and questions) in the shared sets' format."""
    corpus = [
        {
            "chunk_link": "https://docs.example.com/en/install#linux",
            "chunk_heading": "Linux",
            "text": "Linux\n\n\nInstall with apt-get install tool on Debian or Ubuntu.",
        },
        {
            "chunk_link": "https://docs.example.com/en/install#windows",
            "chunk_heading": "Windows",
            "text": "Windows\n\nDownload the MSI installer and run it.\nReboot afterwards.",
        },
        {
            "chunk_link": "https://docs.example.com/en/billing#invoices",
            "chunk_heading": "Invoices",
            "text": "Invoices\n\nInvoices are emailed on the first day of each month.",
        },
    ]
    queries = [
        {
            "id": "q1",
            "question": "How do I install the tool on Windows?",
            "correct_chunks": ["https://docs.example.com/en/install#windows"],
            "correct_answer": "Run the MSI installer.",
        },
        {
            "id": "q2",
            "question": "When are invoices sent?",
            "correct_chunks": ["https://docs.example.com/en/billing#invoices"],
            "correct_answer": "On the first of the month.",
        },
    ]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    (folder / "queries.json").write_text(json.dumps(queries), encoding="utf-8")


def test_docs_loader_rebuilds_pages_and_maps_sections_to_lines(tmp_path: Path) -> None:
    """Sections join into pages as `##` headings; gold spans cover exactly their section."""
    write_eval_docs(tmp_path)
    dataset = load_claude_docs(tmp_path)
    pages = {d.path: d.content for d in dataset.documents}
    assert sorted(pages) == ["docs.example.com/en/billing.md", "docs.example.com/en/install.md"]
    lines = pages["docs.example.com/en/install.md"].split("\n")
    windows = dataset.queries[0].gold[0]
    assert windows.path == "docs.example.com/en/install.md"
    assert lines[windows.start_line - 1] == "## Windows"
    assert lines[windows.end_line - 1] == "Reboot afterwards."
    chunks = Chunker(1200, 100, 0).split(pages[windows.path], "markdown", windows.path)
    assert [c.metadata["anchor"] for c in chunks] == ["linux", "windows"]


def test_codebase_loader_locates_golden_chunks_in_files(tmp_path: Path) -> None:
    """`meta` (a Python-literal string) names each file; golden text becomes a line range."""
    content = 'use std::io;\n\nfn main() {\n    println!("hi");\n}\n'
    corpus = [{"doc_id": "doc_1", "original_uuid": "u1", "content": content, "chunks": []}]
    golden = [{"doc_uuid": "u1", "index": 0, "content": 'fn main() {\n    println!("hi");\n}'}]
    query = {
        "query": "What does main print?",
        "answer": "hi",
        "golden_doc_uuids": "['u1']",
        "golden_chunk_uuids": "[['u1', 0]]",
        "golden_chunks": repr(golden),
        "meta": "{'relative_path': '/src/main.rs', 'repo_name': 'acme/hello'}",
    }
    (tmp_path / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text(json.dumps(query) + "\n", encoding="utf-8")
    dataset = load_codebase(tmp_path)
    assert [(d.path, d.language) for d in dataset.documents] == [("acme/hello/src/main.rs", "rust")]
    assert dataset.queries[0].gold == (Span("acme/hello/src/main.rs", 3, 5),)
    assert file_level(dataset).queries[0].gold[0].overlaps("acme/hello/src/main.rs", 1, 1)


def test_codebase_loader_labels_a_header_by_its_text_as_a_source_does(tmp_path: Path) -> None:
    """A `.h` holding C++ is C++ (parsed with the C++ grammar, its classes found), as
    `ragspace add dir` labels it; a plain C header stays C."""
    headers = {
        "u1": ("/columns/tuple.h", "#pragma once\nnamespace ch {\nclass ColumnTuple {\n};\n}\n"),
        "u2": ("/base/bytes.h", "#include <stdint.h>\nint read_bytes(void *into, int n);\n"),
    }
    corpus = [
        {"doc_id": uuid, "original_uuid": uuid, "content": text, "chunks": []}
        for uuid, (_, text) in headers.items()
    ]
    queries = [
        {
            "query": f"What is in {path}?",
            "golden_doc_uuids": repr([uuid]),
            "golden_chunk_uuids": repr([[uuid, 0]]),
            "golden_chunks": repr([{"doc_uuid": uuid, "index": 0, "content": text.strip()}]),
            "meta": repr({"relative_path": path, "repo_name": "acme/db"}),
        }
        for uuid, (path, text) in headers.items()
    ]
    (tmp_path / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text("\n".join(map(json.dumps, queries)), encoding="utf-8")
    dataset = load_codebase(tmp_path)
    assert {(d.path, d.language) for d in dataset.documents} == {
        ("acme/db/columns/tuple.h", "cpp"),
        ("acme/db/base/bytes.h", "c"),
    }


def test_evaluation_runs_end_to_end_on_the_real_store(
    tmp_path: Path, store: Store, ingestor: Ingestor, service: Actions
) -> None:
    """Ingest through the store and worker, search through the service, score the hits."""
    write_eval_docs(tmp_path)
    dataset = load_claude_docs(tmp_path)
    service.docsets.create("eval-docs")
    assert ingest(store, ingestor, "eval-docs", dataset) == 2
    scores = evaluate(
        lambda query: service.search.hits(
            SearchQuery(question=query, docsets=("eval-docs",), limit=10, floor=False)
        ),
        [dataset],
    )["claude-docs"]
    assert scores.queries == 2
    assert scores.values["recall@10"] == 1.0
    assert scores.values["mrr@10"] > 0.0
