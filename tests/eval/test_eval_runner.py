"""`ragspace eval` and Actions.evaluate on the real store and local embedder."""

import json
from pathlib import Path

import pytest

from ragspace.actions import Actions, corpora
from ragspace.embedding.embedders import Embedder
from ragspace.errors import ConflictError, NotFoundError, ReadOnlyError, ValidationError
from ragspace.eval.datasets import load_dataset, parse_question_set
from ragspace.eval.runner import (
    ALL_MODES,
    MODES,
    RERANK,
    EvalOptions,
    metric_rows,
    question_rows,
)
from ragspace.ingestion.worker import Ingestor
from ragspace.runtime import build_actions
from ragspace.settings import Settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from ragspace_cli import evaluate as cli_eval
from ragspace_cli.evaluate import corpus_docset
from ragspace_cli.main import main
from tests.eval.test_evaluation import write_eval_docs

QUESTIONS = """\
{"question": "How do I install the tool on Windows?", "answer": "Run the MSI installer.",
 "relevant": ["install.md#L7-L10"]}
""".replace("\n ", " ")


def handbook_docset(service: Actions, ingestor: Ingestor) -> None:
    """DocSet `handbook` with small install and billing guides, embedded."""
    service.docsets.create("handbook")
    install = (
        "# Install\n\n## Linux\n\nInstall with apt-get install tool on Debian.\n\n"
        "## Windows\n\nDownload the MSI installer and run it.\nReboot afterwards.\n"
    )
    billing = "# Billing\n\n## Invoices\n\nInvoices are emailed on the first day of each month.\n"
    service.sources.add_files(
        "handbook",
        [
            UploadedFile("install.md", install.encode()),
            UploadedFile("billing.md", billing.encode()),
        ],
    )
    ingestor.process_all()


def test_evaluate_scores_every_mode_at_chunk_and_file_level(
    service: Actions, ingestor: Ingestor
) -> None:
    """A question set asked of a DocSet: each mode finds the gold lines; no key, no rerank."""
    handbook_docset(service, ingestor)
    questions = parse_question_set(
        QUESTIONS
        + '{"question": "When are invoices emailed?", "relevant": [{"path": "billing.md"}]}\n',
        "handbook-questions",
    )
    report = service.evaluation.run("handbook", questions, EvalOptions(k=5))
    assert [m.mode for m in report.modes] == list(MODES)
    assert report.questions == 2
    for result in report.modes:
        assert result.chunk["hit@5"] == 1.0
        assert result.file["recall@5"] == 1.0
        assert 0 < result.p50_ms <= result.p95_ms <= result.p99_ms
    hybrid = [o for o in report.outcomes if o.mode == "hybrid"]
    assert hybrid[0].rank == 1
    assert hybrid[0].top[0].startswith("install.md:")
    assert report.grading is None
    assert any(n.startswith(f"{RERANK} skipped") for n in report.notes)
    assert any(n.startswith("Answer grading skipped") for n in report.notes)
    assert len(metric_rows(report)) == 2 * len(MODES)
    assert question_rows(report, "keyword")[1][:3] == ["When are invoices emailed?", "yes", 1]


def test_a_question_whose_gold_is_missing_scores_zero(service: Actions, ingestor: Ingestor) -> None:
    """Gold in a file the DocSet does not hold: no hit, rank None, and a note says so; when
    no question's file is there, the run is refused (all zeros would say nothing)."""
    handbook_docset(service, ingestor)
    lines = [
        '{"question": "install", "relevant": ["other.md"]}',
        '{"question": "invoices", "relevant": ["billing.md"]}',
    ]
    options = EvalOptions(modes=("keyword",), grade=False)
    report = service.evaluation.run("handbook", parse_question_set("\n".join(lines), "q"), options)
    assert report.outcomes[0].rank is None
    assert report.notes[0].startswith("1 of the 2 files the questions point to are not in")
    assert "(other.md)" in report.notes[0]
    with pytest.raises(ValidationError, match=r"None of the files .* \(other.md\) is in DocSet"):
        service.evaluation.run("handbook", parse_question_set(lines[0], "q"), options)


def test_evaluate_refuses_unknown_and_empty_docsets(service: Actions) -> None:
    """Errors name the DocSet."""
    questions = parse_question_set(QUESTIONS, "q")
    with pytest.raises(NotFoundError):
        service.evaluation.run("nope", questions)
    service.docsets.create("empty")
    with pytest.raises(ValidationError, match="'empty' has no embedded chunks"):
        service.evaluation.run("empty", questions)


def test_corpus_docset_is_built_once_then_reused(
    tmp_path: Path, settings: Settings, store: Store, embedder: Embedder, ingestor: Ingestor
) -> None:
    """Built from the corpus; reused while complete; a different DocSet needs --rebuild."""
    service = build_actions(settings, store, embedder, ingestor=ingestor)
    write_eval_docs(tmp_path)
    dataset = load_dataset(tmp_path)
    docset, built = corpus_docset(service, "eval-docs", dataset)
    assert built and docset.document_count == 2 and docset.chunk_count > 0
    again, built = corpus_docset(service, "eval-docs", dataset)
    assert (again.id, built) == (docset.id, False)
    service.docsets.create("other")
    with pytest.raises(ConflictError, match="pass --rebuild"):
        corpus_docset(service, "other", dataset)
    rebuilt, built = corpus_docset(service, "other", dataset, rebuild=True)
    assert built and rebuilt.document_count == 2


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, settings: Settings, tmp_path: Path) -> None:
    """The CLI reads the environment: point it at the per-test database, no API key."""
    assert settings.database.database_url is not None
    monkeypatch.setenv("DATABASE_URL", settings.database.database_url.get_secret_value())
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env file here


@pytest.mark.usefixtures("cli_env")
def test_cli_eval_prints_a_table_and_writes_json(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    store: Store,
) -> None:
    """Exit 0; a markdown table per mode and level; JSON with the same figures.

    The corpus goes into the eval data folder, not the app's database (DATABASE_URL).
    """
    write_eval_docs(tmp_path / "docs")
    out = tmp_path / "report.json"
    monkeypatch.setattr(corpora, "PROGRESS_EVERY", 1)
    assert main(["eval", str(tmp_path / "docs"), "--json", str(out)]) == 0
    printed = capsys.readouterr()
    assert store.docsets.all() == []  # the app's database is untouched
    assert (tmp_path / ".ragspace" / "eval" / "pgdata").is_dir()
    assert "DocSet 'eval-claude-docs': 1 of 2 documents embedded..." in printed.err
    assert "DocSet 'eval-claude-docs': 2 of 2 documents embedded..." in printed.err
    assert "## claude-docs · DocSet eval-claude-docs · 2 questions · k = 10" in printed.out
    assert "| chunk | hybrid | 1.000 |" in printed.out
    assert "Answer grading skipped" in printed.out
    assert "built: " in printed.err
    report = json.loads(out.read_text())["reports"][0]
    assert report["docset"] == "eval-claude-docs"
    assert [m["mode"] for m in report["modes"]] == list(MODES)
    assert report["modes"][2]["chunk"]["recall@10"] == 1.0
    # a second run reuses the DocSet; --json alone puts only JSON on stdout
    assert main(["eval", str(tmp_path / "docs"), "--modes", "keyword", "--json"]) == 0
    printed = capsys.readouterr()
    assert json.loads(printed.out)["reports"][0]["modes"][0]["mode"] == "keyword"
    assert "reused" in printed.err


@pytest.mark.usefixtures("cli_env")
def test_cli_eval_failures_exit_1_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing DocSet or a broken question set: exit 1 and `ragspace: error: ...`."""
    questions = tmp_path / "q.jsonl"
    questions.write_text(QUESTIONS, encoding="utf-8")
    assert main(["eval", str(questions), "--docset", "missing"]) == 1
    assert "ragspace: error:" in capsys.readouterr().err
    questions.write_text('{"question": "x"}\n', encoding="utf-8")
    assert main(["eval", str(questions), "--docset", "missing"]) == 1
    assert "ragspace: error: Line 1 needs 'relevant'" in capsys.readouterr().err


def test_cli_eval_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bad usage exits with status 2, before anything is opened."""
    questions = tmp_path / "q.jsonl"
    questions.write_text(QUESTIONS, encoding="utf-8")
    for argv, message in (
        (["--modes", "fuzzy"], "unknown mode 'fuzzy'"),
        (["-k", "0"], "k must be a whole number from 1 to 50"),
    ):
        with pytest.raises(SystemExit) as exited:
            main(["eval", str(questions), "--docset", "d", *argv])
        assert exited.value.code == 2
        assert message in capsys.readouterr().err
    assert main(["eval", str(questions)]) == 2
    assert "needs --docset" in capsys.readouterr().err
    assert main(["eval", str(questions), str(questions), "--docset", "d"]) == 2
    assert main(["eval", str(questions), "--docset", "d", "--limit", "0"]) == 2
    assert cli_eval.ALL_MODES == ALL_MODES and set(MODES) < set(ALL_MODES)


def test_a_read_only_app_refuses_evaluations(
    service: Actions,
    ingestor: Ingestor,
    store: Store,
    embedder: Embedder,
    settings: Settings,
) -> None:
    """An evaluation costs thousands of searches (and model calls): not for anonymous users."""
    handbook_docset(service, ingestor)
    public = build_actions(settings.replace(read_only=True), store, embedder)
    with pytest.raises(ReadOnlyError, match="not run evaluations"):
        public.evaluation.run("handbook", parse_question_set(QUESTIONS, "q"))
