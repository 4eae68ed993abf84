"""Typed source options: stored as the same JSON as before, and old rows still load."""

from typing import Any

import pytest
from psycopg.types.json import Jsonb

from ragspace.actions.source_requests import github_request, globs, web_request
from ragspace.errors import ValidationError
from ragspace.models import FolderOptions, GithubOptions, SourceKind, WebOptions
from ragspace.sources.sync import options_for
from ragspace.store import Store


def _stored(store: Store, source_id: int) -> dict[str, Any]:
    with store.pool.connection() as conn:
        row = conn.execute("select options from sources where id = %s", (source_id,)).fetchone()
    assert row is not None
    return dict(row[0])


def test_front_end_options_round_trip_as_the_json_stored_before(store: Store) -> None:
    docset = store.docsets.create("d", "", "m", 384)
    cases: list[tuple[SourceKind, str, Any, dict[str, Any]]] = [
        (
            *github_request("acme/widgets", " v1 ", "docs/**, *.md", "tests/**"),
            {"ref": "v1", "include": ["docs/**", "*.md"], "exclude": ["tests/**"]},
        ),
        (*github_request("acme/widgets", "", "", ""), {"include": [], "exclude": []}),
        (
            *web_request("https://d.example/", 1, 10, "/docs/"),
            {"depth": 1, "max_pages": 10, "path_prefix": "/docs/"},
        ),
        (*web_request("https://d.example/", None, None, ""), {"depth": 2, "max_pages": 50}),
        (
            SourceKind.UPLOAD,
            "flask",
            FolderOptions(include=["src/**"]),
            {"folder": True, "include": ["src/**"], "exclude": []},
        ),
        (SourceKind.UPLOAD, "notes.md", None, {}),
    ]
    for kind, location, options, stored in cases:
        source = store.sources.create(docset.id, kind, location, options)
        assert _stored(store, source.id) == stored  # unset values are left out, as before
        assert source.options == options
        assert store.sources.get(source.id).options == options


def test_rows_stored_by_earlier_versions_still_load(store: Store) -> None:
    docset = store.docsets.create("d", "", "m", 384)
    rows = [
        ("github_repo", {"include": ["src/**"], "exclude": [], "ref": "v1", "old": 1}),
        ("github_file", {"include": None, "exclude": None}),
        ("github_repo", {}),
        ("web", {"depth": 3, "max_pages": 20, "path_prefix": "/docs/", "retired": True}),
        ("web", {}),
        ("upload", {"folder": True, "include": ["a/**"], "exclude": ["b/**"]}),
        ("upload", {}),
    ]
    with store.pool.connection() as conn:
        for kind, options in rows:
            conn.execute(
                "insert into sources (docset_id, kind, location, options) values (%s, %s, 'x', %s)",
                (docset.id, kind, Jsonb(options)),
            )
    loaded = [s.options for s in store.sources.of_docset(docset.id)]
    assert loaded == [
        GithubOptions(ref="v1", include=["src/**"]),
        GithubOptions(),
        GithubOptions(),
        WebOptions(depth=3, max_pages=20, path_prefix="/docs/"),
        WebOptions(),
        FolderOptions(include=["a/**"], exclude=["b/**"]),
        None,
    ]
    sources = store.sources.of_docset(docset.id)
    assert [s.is_folder for s in sources] == [False] * 5 + [True, False]
    assert sources[0].github_options.ref == "v1" and sources[3].web_options.depth == 3


def test_a_kind_takes_its_own_options() -> None:
    assert options_for(SourceKind.WEB, None) == WebOptions()
    assert options_for(SourceKind.GITHUB_FILE, None) == GithubOptions()
    with pytest.raises(ValidationError, match="A web source takes WebOptions, not GithubOptions"):
        options_for(SourceKind.WEB, GithubOptions())


def test_every_door_reads_globs_and_defaults_the_same_way() -> None:
    # the web form's text, the MCP tools' comma lists and the CLI's repeated flags
    typed = github_request(" acme/widgets ", None, "docs/**,\n*.md", ["tests/**", "a, b"])
    assert typed.kind is SourceKind.GITHUB_REPO and typed.location == "acme/widgets"
    assert typed.options == GithubOptions(
        include=["docs/**", "*.md"], exclude=["tests/**", "a", "b"]
    )
    assert github_request("https://github.com/a/b/blob/main/x.md", "", None, None).kind is (
        SourceKind.GITHUB_FILE
    )
    crawl = web_request("https://d.example/ ", 0, None, None)
    assert crawl.options == WebOptions(depth=0, max_pages=50)
    assert globs(None) == [] and globs(" , \n") == []
