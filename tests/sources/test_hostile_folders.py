"""Folders built to hurt: paths too long to store, trees too deep to walk, .gitignore files
too costly to match. Each is an attack on the real `ragspace add dir` (and, for archives, on
the real app's upload), with the real database behind it."""

import io
import os
import random
import zipfile
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import httpx
import pytest

from ragspace.actions import Actions
from ragspace.sources.path_limits import MAX_DEPTH, MAX_PATH_BYTES, TOO_DEEP, TOO_LONG
from ragspace.sources.patterns import MAX_GITIGNORE_PATTERNS
from tests.cli.test_cli import Run, cli  # noqa: F401 (the `cli` fixture)
from tests.ui.test_access import BrowserSession

DOCSET = "tree"


def _letters(count: int, seed: int) -> str:
    """Letters that do not compress: Postgres would shrink a repetitive index row."""
    rng = random.Random(seed)
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(count))


def _siblings(root: Path) -> None:
    (root / "README.md").write_text("# Tree\n\nThe sibling that must survive.\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def polish():\n    return 'shine'\n")


def _stored(service: Actions) -> set[str]:
    return {d.path for d in service.documents.all(DOCSET)}


# paths too long to store (a b-tree index row is at most ~2,700 bytes)


@pytest.mark.parametrize("length", [MAX_PATH_BYTES + 1, 3_800], ids=["just-over", "4k"])
def test_a_path_too_long_to_store_is_a_skip_and_its_siblings_are_added(
    cli: Run,  # noqa: F811
    service: Actions,
    tmp_path: Path,
    length: int,
) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    _siblings(root)
    folders = [_letters(240, seed) for seed in range(length // 241)]
    deep = root.joinpath(*folders)
    deep.mkdir(parents=True)
    name = _letters(max(1, length - len("tree/") - 241 * len(folders)), 99) + ".md"
    long_file = deep / name
    long_file.write_text("# Far away\n")
    stored_path = f"tree/{long_file.relative_to(root).as_posix()}"
    assert len(stored_path.encode()) > MAX_PATH_BYTES
    service.docsets.create(DOCSET)

    added = cli("add", "dir", DOCSET, str(root))

    assert added.code == 0, added.err
    assert _stored(service) == {"tree/README.md", "tree/src/app.py"}
    [source] = service.sources.all(DOCSET)
    reasons = {s["path"]: s["reason"] for s in source.sync_state["skipped"]}
    shown_folder = next(path for path, reason in reasons.items() if reason == TOO_LONG)
    assert stored_path.startswith(shown_folder.rstrip("/"))  # the folder, or the file itself
    assert TOO_LONG in added.out


def test_no_folder_source_is_left_without_documents(
    cli: Run,  # noqa: F811
    service: Actions,
    tmp_path: Path,
) -> None:
    """The 4,027-character member that failed a whole folder left an empty source behind."""
    root = tmp_path / "tree"
    root.mkdir()
    _siblings(root)
    deep = root.joinpath(*[_letters(240, seed) for seed in range(16)])
    deep.mkdir(parents=True)
    (deep / "far.md").write_text("# Far away\n")
    service.docsets.create(DOCSET)
    cli("add", "dir", DOCSET, str(root))
    for source in service.sources.all(DOCSET):
        assert [d for d in service.documents.all(DOCSET) if d.source_id == source.id]


def test_an_uploaded_archive_with_a_4k_member_name_keeps_its_siblings(
    service: Actions, launch_app: Callable[..., str]
) -> None:
    """Through the real app, as a browser sends it: the upload, then the upload event."""
    long_name = "docs/" + "/".join(_letters(200, seed) for seed in range(20)) + ".md"
    assert len(long_name) >= 4_027
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("docs/guide.md", "# Guide\n\nPolish the widgets weekly.\n")
        archive.writestr(long_name, "# Hidden far away\n")
        archive.writestr("docs/faq.md", "# FAQ\n\nAsk the sprocket team.\n")
    service.docsets.create(DOCSET)
    url = launch_app(service)
    client = httpx.Client(base_url=url, timeout=60)
    with closing(client):
        uploaded = client.post(
            "/gradio_api/upload", files={"files": ("bundle.zip", buffer.getvalue())}
        )
        [path] = uploaded.json()
        session = BrowserSession(url, client)
        file_data = {"path": path, "orig_name": "bundle.zip", "meta": {"_type": "gradio.FileData"}}
        session.call("refresh_docset_lists", [None, [], None])
        result = session.call("on_upload", [DOCSET, [file_data]])
    assert result["success"], result
    documents = {d.path: d for d in service.documents.all(DOCSET)}
    assert {"bundle.zip/docs/guide.md", "bundle.zip/docs/faq.md"} <= set(documents)
    assert len(documents) == 2  # the member is refused with its reason, not stored
    shown = str(result["output"]["data"])
    assert TOO_LONG in shown and "bundle.zip/docs/" in shown


# trees too deep to walk (os.walk recurses once per level)


def _nested(root: Path, depth: int) -> None:
    """`root/d/d/.../d/leaf.md`, made one level at a time (pathlib recurses to make them)."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            deeper = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = deeper
        leaf = os.open("leaf.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(leaf, b"# The bottom\n")
        os.close(leaf)
    finally:
        os.close(fd)


def _remove_nested(root: Path, depth: int) -> None:
    """Undo `_nested` bottom-up (shutil.rmtree recurses too, and pytest cleans with it)."""
    fds = [os.open(root, os.O_RDONLY)]
    for _ in range(depth):
        fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
    os.unlink("leaf.md", dir_fd=fds[-1])
    for level in range(depth, 0, -1):
        os.close(fds[level])
        os.rmdir("d", dir_fd=fds[level - 1])
    os.close(fds[0])


@pytest.fixture
def deep_tree(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "tree"
    root.mkdir()
    _siblings(root)
    (root / "nest").mkdir()
    _nested(root / "nest", 1_100)
    yield root
    _remove_nested(root / "nest", 1_100)


def test_1100_nested_folders_are_pruned_with_a_reason_and_the_rest_is_added(
    cli: Run,  # noqa: F811
    service: Actions,
    deep_tree: Path,
) -> None:
    service.docsets.create(DOCSET)

    preview = cli("add", "dir", DOCSET, str(deep_tree), "--dry-run")
    assert preview.code == 0, preview.err
    assert f": {TOO_DEEP}" in preview.out
    added = cli("add", "dir", DOCSET, str(deep_tree))

    assert added.code == 0, added.err
    assert _stored(service) == {"tree/README.md", "tree/src/app.py"}
    [source] = service.sources.all(DOCSET)
    [pruned] = [s for s in source.sync_state["skipped"] if s["reason"] == TOO_DEEP]
    assert pruned["path"] == "tree/" + "/".join(["nest", *["d"] * (MAX_DEPTH - 1)]) + "/"


def test_a_folder_just_within_the_depth_limit_is_indexed_whole(
    cli: Run,  # noqa: F811
    service: Actions,
    tmp_path: Path,
) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    _nested(root, MAX_DEPTH - 1)  # tree/d/.../d/leaf.md: MAX_DEPTH folders in its path
    service.docsets.create(DOCSET)
    added = cli("add", "dir", DOCSET, str(root))
    assert added.code == 0, added.err
    assert _stored(service) == {"tree/" + "d/" * (MAX_DEPTH - 1) + "leaf.md"}
    _remove_nested(root, MAX_DEPTH - 1)


# .gitignore files too costly to match


def _crafted_gitignore(seed: int = 5, size: int = 4_800) -> str:
    """Wildcard lines that make the RE2 set's DFA thrash: ~0.5 s per 1 KB path here."""
    rng = random.Random(seed)
    alphabet = "abcdefgh"
    lines: list[str] = []
    while sum(len(line) + 1 for line in lines) < size:
        a, b, c, d = (rng.choice(alphabet) for _ in range(4))
        lines.append(f"*{a}?{b}*{c}??{d}*z")
    return "\n".join(lines) + "\n"


def test_a_gitignore_too_costly_to_match_is_refused_with_what_to_do(
    cli: Run,  # noqa: F811
    service: Actions,
    tmp_path: Path,
) -> None:
    """200+ crafted lines (4.8 KB) and 21 files with 1 KB paths: 56 s for `add dir` before."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / ".gitignore").write_text(_crafted_gitignore())
    rng = random.Random(7)
    for number in range(21):
        folders = ["".join(rng.choice("abcdefgh") for _ in range(230)) for _ in range(4)]
        folder = root.joinpath(*folders)
        folder.mkdir(parents=True)
        (folder / f"{number}.md").write_text(f"# Page {number}\n")
    service.docsets.create(DOCSET)

    refused = cli("add", "dir", DOCSET, str(root), "--dry-run")

    assert refused.code == 1
    assert "tree/.gitignore are too complex to match quickly" in refused.err
    assert "a path" in refused.err and "Simplify them" in refused.err


def test_more_gitignore_patterns_than_the_cap_are_refused_naming_the_file(
    cli: Run,  # noqa: F811
    service: Actions,
    tmp_path: Path,
) -> None:
    root = tmp_path / "tree"
    (root / "sub").mkdir(parents=True)
    _siblings(root)
    half = MAX_GITIGNORE_PATTERNS // 2 + 1
    (root / ".gitignore").write_text("".join(f"*.tmp{n}\n" for n in range(half)))
    (root / "sub" / ".gitignore").write_text(
        "# generated\n" + "".join(f"x{n}/\n" for n in range(half))
    )
    service.docsets.create(DOCSET)
    refused = cli("add", "dir", DOCSET, str(root))
    assert refused.code == 1
    assert "tree/sub/.gitignore" in refused.err
    assert f"more than {MAX_GITIGNORE_PATTERNS:,} patterns" in refused.err
    assert _stored(service) == set() and service.sources.all(DOCSET) == []
