"""Local folders and checkouts: one classification for uploads, folders and GitHub."""

import codecs
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from ragspace.actions import Actions
from ragspace.errors import ValidationError
from ragspace.ingestion.worker import Ingestor
from ragspace.models import EmbeddingStatus, FolderOptions, SearchQuery, SkippedItem, UploadedFile
from ragspace.sources.classify import BINARY, EMPTY, NOT_UTF8, SECRET, SVG_IMAGE
from ragspace.sources.classify import content_skip_reason as reason
from ragspace.sources.extract import extract
from ragspace.sources.files import classify_bytes
from ragspace.sources.filters import FileFilter
from ragspace.sources.folder import (
    GIT_DIR,
    IGNORED,
    NOT_REGULAR,
    SYMLINK,
    FolderListing,
    read_folder,
    select_files,
)
from ragspace_cli.main import main

pytestmark = pytest.mark.slow  # ingests a 259-file checkout

CHECKOUT = Path(__file__).parent.parent / "data" / "checkout"
TEMPLATE = "examples/tutorial/flaskr/templates/auth/login.html"


# classification


def test_binary_is_recognised_by_content_not_by_name() -> None:
    png = (CHECKOUT / "docs/tutorial/flaskr_login.png").read_bytes()
    assert reason("logo.png", png) == BINARY
    assert reason("data.txt", png) == BINARY  # the name does not make it text
    assert reason("weird.xyz", b"plain words in a file with an unknown suffix\n") is None
    assert reason("notes.txt", "caf\xe9\n".encode("latin-1")) == NOT_UTF8
    assert reason("utf16.txt", codecs.BOM_UTF16_LE + "hi\n".encode("utf-16-le")) is None
    svg = (CHECKOUT / "docs/_static/flask-icon.svg").read_bytes()
    assert reason("icon.svg", svg) == SVG_IMAGE


def test_empty_and_secret_looking_files_are_skipped_by_reason() -> None:
    assert reason("src/flask/py.typed", b"") == EMPTY
    assert reason("pkg/__init__.py", b"\n  \n") == EMPTY
    pem = (CHECKOUT / "tests/certs/valid/server/server.pem").read_bytes()
    assert pem.startswith(b"-----BEGIN")  # text, yet never indexed
    for name in ("server.pem", "server.key", "client.csr", "ca.crt", ".env"):
        assert reason(f"x/{name}", pem) == SECRET, name
    assert FileFilter().skip_reason("certs/ca-private.key", 100) == SECRET


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("docs/Makefile", "makefile"),
        ("docs/make.bat", "batch"),
        ("setup.cfg", "ini"),
        ("tox.ini", "ini"),
        ("pyproject.toml", "toml"),
        ("tests/certs/valid/ca/ca.cnf", "ini"),
        ("MANIFEST.in", "text"),
        ("Cargo.lock", "toml"),
        ("templates/page.jinja", "template"),
    ],
)
def test_repository_text_formats_are_indexed(path: str, language: str) -> None:
    found = classify_bytes(path, b"key = value\nother = 2\n", 1 << 20, in_tree=True)
    assert not isinstance(found, SkippedItem)
    assert found.error_message is None and found.language == language


def test_html_in_a_tree_is_a_template_but_an_uploaded_page_is_extracted() -> None:
    data = (CHECKOUT / TEMPLATE).read_bytes()
    in_tree = extract(TEMPLATE, data, in_tree=True)
    assert in_tree.language == "template" and in_tree.text == data.decode()
    page = b"<html><body><main><h1>Guide</h1><p>Polish widgets daily.</p></main></body></html>"
    uploaded = extract("guide.html", page)
    assert uploaded.language == "markdown" and uploaded.text.startswith("# Guide")


def test_a_binary_uploaded_on_its_own_says_why_it_is_not_indexed() -> None:
    found = classify_bytes("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 1 << 20)
    assert found == SkippedItem(path="logo.png", reason=BINARY)


# the folder walk


def test_folder_walk_honours_gitignore_git_dir_symlinks_and_filters(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("x = 1\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def run():\n    return 1\n")
    (root / "src" / "debug.log").write_text("noise\n")
    (root / "src" / ".gitignore").write_text("*.tmp\n")
    (root / "src" / "scratch.tmp").write_text("scratch\n")
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("# Guide\n")
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    (root / "link.py").symlink_to(root / "src" / "app.py")

    listing = read_folder(root, FileFilter(exclude=["docs/**"]))
    assert {f.name for f in listing.files} == {
        "proj/.gitignore",
        "proj/src/.gitignore",
        "proj/src/app.py",
    }
    assert {(s.path, s.reason) for s in listing.skipped} == {
        ("proj/.git/", GIT_DIR),
        ("proj/build/", IGNORED),  # pruned: listed once, never read
        ("proj/src/debug.log", IGNORED),
        ("proj/src/scratch.tmp", IGNORED),  # a nested .gitignore applies below its folder
        ("proj/link.py", SYMLINK),
        ("proj/docs/guide.md", "excluded by filter docs/**"),
    }
    uploaded = [UploadedFile(f"{p}", b"x = 1\n") for p in ("a.py", "build/b.py", ".git/HEAD")]
    uploaded.append(UploadedFile(".gitignore", b"build/\n"))
    chosen = select_files("up", uploaded, FileFilter())
    assert [f.name for f in chosen.files] == ["up/.gitignore", "up/a.py"]
    assert {s.reason for s in chosen.skipped} == {IGNORED, GIT_DIR}
    with pytest.raises(ValidationError) as missing:
        read_folder(tmp_path / "absent", FileFilter())
    assert "absent" in str(missing.value)


def _within(limit: float, run: Callable[[], FolderListing]) -> FolderListing:
    """`run()` in a daemon thread; the test fails if it has not returned after `limit`
    seconds (a walk blocked on a FIFO never returns; the thread dies with the process)."""
    result: list[FolderListing] = []
    thread = threading.Thread(target=lambda: result.append(run()), daemon=True)
    thread.start()
    thread.join(limit)
    if thread.is_alive():
        pytest.fail("read_folder blocked on a special file")
    return result[0]


def test_only_regular_files_are_read_from_a_folder(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    (root / "app.py").write_text("def run():\n    return 1\n")
    os.mkfifo(root / ".gitignore")  # would block open() until a writer comes
    os.mkfifo(root / "notes.md")
    (root / "sub" / ".gitignore").symlink_to("/dev/zero")  # endless bytes
    (root / "sub" / "guide.md").write_text("# Guide\n")

    listing = _within(20, lambda: read_folder(root, FileFilter()))
    assert [f.name for f in listing.files] == ["proj/app.py", "proj/sub/guide.md"]
    assert {(s.path, s.reason) for s in listing.skipped} == {
        ("proj/.gitignore", NOT_REGULAR),
        ("proj/notes.md", NOT_REGULAR),
        ("proj/sub/.gitignore", SYMLINK),
    }


AWS_KEY = "AKIA" + "IOSFODNN7EXAMPLE"  # split: this file must not look like a secret itself
GH_TOKEN = "ghp_" + "R7x2ZkP9qLm4Tn8Vb1Yc6Wd3Hf5Gj0Ks2Ae9"
KEY_BLOCK = (
    "-----BEGIN OPENSSH "
    + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"
)
SECRET_FILES = {
    ".env.production": "DATABASE_URL=postgres://app:pw@db/app\n",
    ".env.local": "API_KEY=abc123\n",
    "config/credentials": "[default]\naws_secret_access_key = wJalrXUtnFEMI\n",
    ".npmrc": "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnop\n",
    ".git-credentials": "https://bob:token123@github.com\n",
    "keys/deploy_key": "not really a key but named like one\n",
    ".pypirc": "[pypi]\npassword = pypi-token\n",
    ".netrc": "machine api.example.com login me password hunter2\n",
    "certs/server.pem": "certificate text\n",
    "certs/tls.key": "key text\n",
    "deploy/service-account.json": '{"type": "service_account", "project_id": "p",'
    ' "private_key_id": "1", "client_email": "a@p.iam.gserviceaccount.com"}\n',
}


def test_a_secrets_laden_checkout_indexes_no_secret(service: Actions, tmp_path: Path) -> None:
    root = tmp_path / "app"
    for name, text in SECRET_FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "README.md").write_text(
        f"# App\n\nDeploy with the key {AWS_KEY} set.\nToken: {GH_TOKEN}\nThe end.\n"
    )
    (root / "setup.py").write_text(f'KEY = """\n{KEY_BLOCK}\n"""\nprint("ok")\n')
    (root / ".env.example").write_text("API_KEY=\n")  # a template: kept

    service.docsets.create("app")
    report = service.sources.add_folder("app", root)
    indexed = {d.path for d in service.documents.all("app")}
    assert indexed == {"app/README.md", "app/setup.py", "app/.env.example"}
    reasons = {item.path: item.reason for item in report.skipped}
    for name in SECRET_FILES:
        assert "looks like a secret" in reasons[f"app/{name}"], name
    readme = service.documents.read("app", "app/README.md").text
    assert AWS_KEY not in readme and GH_TOKEN not in readme
    assert readme.splitlines()[0] == "# App" and readme.splitlines()[4] == "The end."
    setup = service.documents.read("app", "app/setup.py").text
    assert "b3BlbnNzaC1rZXktdjEAAAAA" not in setup and 'print("ok")' in setup
    assert len(setup.splitlines()) == 6  # lines redacted, not removed: citations stay right
    assert "line 3 redacted: looks like a secret" in reasons["app/README.md#L3"]
    assert "line 4 redacted: looks like a secret" in reasons["app/README.md#L4"]
    assert "app/setup.py#L3" in reasons


# the service on a real checkout


def test_service_ingests_the_checkout_with_skips_and_searchable_templates(
    service: Actions, ingestor: Ingestor
) -> None:
    service.docsets.create("flask")
    preview = service.sources.preview_folder(
        CHECKOUT, FolderOptions(include=["examples/**", "tests/certs/**"])
    )
    assert f"checkout/{TEMPLATE}" in preview.items
    assert preview.skipped_counts[SECRET] == 15

    report = service.sources.add_folder(
        "flask", CHECKOUT, FolderOptions(include=["examples/**", "tests/certs/**"])
    )
    assert report.errors == [] and f"checkout/{TEMPLATE}" in report.changed
    skipped = {item.path: item.reason for item in report.skipped}
    assert skipped["checkout/tests/certs/valid/server/server.key"] == SECRET
    assert skipped["checkout/README.md"] == "not matched by the include filters"
    ingestor.process_all()
    documents = service.documents.all("flask")
    assert documents and all(d.embedding_status is EmbeddingStatus.DONE for d in documents)
    source = service.sources.all("flask")[0]
    assert source.sync_state["skipped_counts"][SECRET] == 15

    hits = service.search.hits(
        SearchQuery(
            question="Log In form username password", docsets=("flask",), limit=10, floor=False
        )
    )
    hit = next(h for h in hits if h.path == f"checkout/{TEMPLATE}")
    lines = (CHECKOUT / TEMPLATE).read_text().splitlines()
    assert hit.content.strip() == "\n".join(lines[hit.start_line - 1 : hit.end_line]).strip()
    assert "{% block content %}" in hit.content


# the command line on the whole checkout


def test_cli_add_dir_ingests_the_whole_checkout_with_exit_code_0(
    database_url: str,
    service: Actions,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("RAGSPACE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    service.docsets.create("flask")

    assert main(["add", "dir", "flask", str(CHECKOUT), "--dry-run"]) == 0
    dry = capsys.readouterr().out
    assert "checkout/tests/certs/valid/server/server.pem: looks like a secret" in dry
    assert service.documents.all("flask") == []  # a dry run stores nothing

    # no --wait: the test is about what is added and skipped; embedding the 2,600 chunks of
    # this tree took 3-11 minutes of the suite (the service test above embeds a subset)
    code = main(["add", "dir", "flask", str(CHECKOUT)])
    out, err = capsys.readouterr()
    assert code == 0, err
    files = sorted(p for p in CHECKOUT.rglob("*") if p.is_file())
    assert len(files) >= 150
    documents = service.documents.all("flask")
    assert documents and all(d.embedding_status is EmbeddingStatus.PENDING for d in documents)
    skipped = service.sources.all("flask")[0].sync_state["skipped"]
    assert {s["path"] for s in skipped} | {d.path for d in documents} == {
        f"checkout/{p.relative_to(CHECKOUT).as_posix()}" for p in files
    }  # every file is a document or a listed skip
    for item in skipped:
        assert f"  {item['path']}: {item['reason']}" in out  # each skip printed with its reason
    reasons = {s["path"].removeprefix("checkout/"): s["reason"] for s in skipped}
    assert reasons["docs/tutorial/flaskr_login.png"] == BINARY
    assert reasons["tests/certs/mtls/client/client.key"] == SECRET
    assert reasons["src/flask/py.typed"] == EMPTY
    assert reasons["tests/test_apps/cliapp/__init__.py"] == EMPTY
    assert reasons["server.log"] == IGNORED
    by_path = {d.path.removeprefix("checkout/"): d for d in documents}
    assert by_path["docs/make.bat"].language == "batch"
    assert by_path["tests/certs/valid/server/cert.cnf"].language == "ini"
    assert by_path["examples/tutorial/flaskr/templates/base.html"].language == "template"

    # the sources table calls a folder a folder (it is stored as an upload)
    assert main(["status", "flask"]) == 0
    assert "  #1 folder checkout  synced " in capsys.readouterr().out
