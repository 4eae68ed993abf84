"""Access control: RAGSPACE_AUTH logins and RAGSPACE_READ_ONLY, in the UI, the HTTP API and MCP."""

import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import quote

import gradio as gr
import httpx
import pytest
from gradio_client import Client
from pydantic import SecretStr

from ragspace.access import AUTH_HEADER, Credentials, parse_auth
from ragspace.actions import Actions
from ragspace.embedding.embedders import Embedder
from ragspace.errors import ConfigError, ReadOnlyError
from ragspace.eval.runner import RERANK, EvalReport, ModeResult
from ragspace.ingestion.worker import Ingestor
from ragspace.models import GithubOptions, SearchQuery, SourceKind
from ragspace.runtime import build_actions
from ragspace.settings import Settings, load_settings
from ragspace.sources.files import UploadedFile
from ragspace.store import Store
from ragspace_ui.app import READ_ONLY_BANNER, UPLOAD_CACHE_SWEEP, build_ui
from ragspace_ui.error_messages import ERROR_CLASS
from ragspace_ui.guard import MAX_FORM_BYTES
from ragspace_ui.mcp_tools import READ_TOOLS
from tests.ui.test_mcp import call, error_text, result_json, with_mcp

GUIDE = b"# Guide\n\n## Polishing\n\nPolish widgets with a soft cloth.\n"


# RAGSPACE_AUTH parsing


def test_auth_pairs_are_parsed() -> None:
    credentials = parse_auth(SecretStr(" alice:s3cret , bob:pa:ss:word "))
    assert credentials is not None
    assert credentials.pairs == (("alice", "s3cret"), ("bob", "pa:ss:word"))
    assert credentials.verify("alice", "s3cret") and credentials.verify("bob", "pa:ss:word")
    assert not credentials.verify("alice", "pa:ss:word") and not credentials.verify("eve", "")
    assert credentials.verify_header("alice:s3cret")
    assert not credentials.verify_header("alice:wrong") and not credentials.verify_header(None)
    assert "s3cret" not in repr(credentials) and "alice" in repr(credentials)
    assert parse_auth(None) is None and parse_auth(SecretStr("  ")) is None


@pytest.mark.parametrize(
    ("value", "entry"),
    [("hunter2", 1), ("alice:hunter2,bob", 2), ("alice:hunter2,:pw", 2), ("alice:", 1)],
)
def test_malformed_auth_names_the_entry_not_the_secret(value: str, entry: int) -> None:
    with pytest.raises(ConfigError, match=f"entry {entry} ") as caught:
        parse_auth(SecretStr(value))
    assert "hunter2" not in str(caught.value) and "user:password" in str(caught.value)


def test_duplicate_user_is_refused() -> None:
    with pytest.raises(ConfigError, match="'alice' twice"):
        parse_auth(SecretStr("alice:a,alice:b"))


def test_settings_read_access_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGSPACE_AUTH", "alice:s3cret")
    monkeypatch.setenv("RAGSPACE_READ_ONLY", "true")
    settings = load_settings(env_file=None)
    assert settings.access.read_only and settings.access.mcp_server
    assert "s3cret" not in repr(settings)
    assert parse_auth(settings.access.auth) == Credentials((("alice", "s3cret"),))


# Read-only mode


@pytest.fixture
def read_only(
    service: Actions,
    ingestor: Ingestor,
    settings: Settings,
    store: Store,
    embedder: Embedder,
) -> Actions:
    """A read-only service over a database that already holds DocSet `docs` with one file."""
    service.docsets.create("docs", "The guide")
    service.sources.add_files("docs", [UploadedFile("guide.md", GUIDE)])
    ingestor.process_all()
    return build_actions(settings.replace(read_only=True), store, embedder)


def snapshot(service: Actions) -> Any:
    """Everything a change could touch."""
    return (
        [
            (d.name, d.description, d.document_count, d.chunk_count, d.rerank)
            for d in service.docsets.all()
        ],
        [(d.path, d.embedding_status, d.updated_at) for d in service.documents.all()],
        service.sources.all("docs"),
    )


def test_read_only_service_refuses_every_change_and_still_answers(
    read_only: Actions,
) -> None:
    before = snapshot(read_only)
    [document] = read_only.documents.all("docs")
    attempts: list[Callable[[], object]] = [
        lambda: read_only.docsets.create("new"),
        lambda: read_only.docsets.rename("docs", "renamed"),
        lambda: read_only.docsets.describe("docs", "changed"),
        lambda: read_only.docsets.choose_rerank("docs", False, "evaluated today"),
        lambda: read_only.docsets.delete("docs"),
        lambda: read_only.sources.add_files("docs", [UploadedFile("b.md", b"# B\n")]),
        lambda: read_only.sources.preview(SourceKind.WEB, "https://example.com/"),
        lambda: read_only.sources.add("docs", SourceKind.GITHUB_REPO, "acme/widgets"),
        lambda: read_only.sources.resync(1),
        lambda: read_only.documents.reembed([document.id]),
        lambda: read_only.documents.reembed_failed("docs"),
        lambda: read_only.documents.reembed_docset("docs"),
    ]
    for attempt in attempts:
        with pytest.raises(ReadOnlyError, match="read-only: you can search and chat"):
            attempt()
    assert snapshot(read_only) == before
    assert (
        read_only.search.hits(SearchQuery(question="soft cloth", docsets=("docs",), floor=False))[
            0
        ].path
        == "guide.md"
    )
    assert (
        read_only.answers.answer(SearchQuery(question="How do I polish?")).citations[0].path
        == "guide.md"
    )


def _handler(demo: gr.Blocks, name: str) -> Callable[..., Any]:
    [fn] = [f.fn for f in demo.fns.values() if getattr(f.fn, "__name__", "") == name]
    assert fn is not None
    return fn


def _refusal(handler: Callable[..., Any], args: tuple[Any, ...]) -> str:
    """The message a refused handler shows: raised as a toast, or inline beside its form."""
    try:
        result = handler(*args)
    except gr.Error as exc:
        assert "Traceback" not in exc.message
        return str(exc.message)
    values = result if isinstance(result, tuple) else (result,)
    messages = [v for v in values if isinstance(v, str) and ERROR_CLASS in v]
    assert len(messages) == 1, values
    # inputs kept, nothing pending, another panel's message cleared
    kept_or_cleared = (gr.update(), None, gr.update(visible=False), "")
    assert all(v in kept_or_cleared for v in values if v is not messages[0]), values
    return messages[0]


def _reranked_report(docset: str) -> EvalReport:
    """An evaluation that measured reranking (as one with a chat model does)."""
    scores = {"recall@5": 0.5, "recall@10": 1.0, "mrr@10": 0.5}
    modes = [
        ModeResult(mode=mode, chunk=scores, file=scores, p50_ms=1, p95_ms=1, p99_ms=1)
        for mode in ("hybrid", RERANK)
    ]
    return EvalReport(dataset="q", docset=docset, questions=1, k=10, modes=modes, outcomes=[])


def test_read_only_ui_handlers_refuse_and_change_controls_are_hidden(
    read_only: Actions, tmp_path: Path
) -> None:
    upload = tmp_path / "b.md"
    upload.write_text("# B\n")
    demo = build_ui(read_only)
    [document] = read_only.documents.all("docs")
    before = snapshot(read_only)
    calls: dict[str, tuple[Any, ...]] = {
        "on_create": ("new", ""),
        "on_upload": ("docs", [str(upload)]),
        "on_rename": ("docs", "renamed"),
        "on_describe": ("docs", "changed"),
        "on_delete": ("docs",),
        "on_gh_preview": ("acme/widgets", "", "", ""),
        "on_web_preview": ("https://example.com/", 1, 5, ""),
        "on_confirm": ("docs", (SourceKind.GITHUB_REPO, "acme/widgets", GithubOptions())),
        "on_resync": ("docs", 1),
        "on_selected": ([f"#{document.id} guide.md (docs)"],),
        "on_failed": ("docs",),
        "on_docset": ("docs",),
        "on_apply_rerank": (_reranked_report("docs"),),
    }
    for name, args in calls.items():
        assert "read-only" in _refusal(_handler(demo, name), args), name
    assert snapshot(read_only) == before

    config = demo.get_config_file()
    props = {c["id"]: c.get("props", {}) for c in config["components"]}
    assert any(p.get("value") == READ_ONLY_BANNER for p in props.values())
    hidden = [p for p in props.values() if p.get("visible") is False]
    assert any(p.get("label") == "Re-embed" for p in hidden)
    assert len(hidden) >= 3  # create/upload/rename row, sources column, re-embed accordion


class BrowserSession:
    """Calls events the way the browser does (queue join + SSE), even those of hidden buttons."""

    def __init__(self, url: str, client: httpx.Client | None = None) -> None:
        self._client = client or httpx.Client(base_url=url, timeout=30)
        self._session = uuid.uuid4().hex
        config = self._client.get("/config").json()
        self._index = {d.get("api_name"): d["id"] for d in config["dependencies"]}

    def close(self) -> None:
        """Close the HTTP connection."""
        self._client.close()

    def join(self, name: str, data: list[Any]) -> httpx.Response:
        """Queue the event handled by the function `name` (the answer to the join itself)."""
        return self._client.post(
            "/gradio_api/queue/join",
            json={
                "data": data,
                "fn_index": self._index[name],
                "session_hash": self._session,
                "trigger_id": None,
            },
        )

    def call(self, name: str, data: list[Any]) -> dict[str, Any]:
        """Run the event handled by the function `name`; returns the completion message."""
        joined = self.join(name, data)
        assert joined.status_code == 200, joined.text
        return self.completion(name)

    def completion(self, name: str) -> dict[str, Any]:
        """The completion message of the event `name` this session joined last."""
        params = {"session_hash": self._session}
        with self._client.stream("GET", "/gradio_api/queue/data", params=params) as sse:
            for line in sse.iter_lines():
                if line.startswith("data:"):
                    message = json.loads(line[5:])
                    if message.get("msg") == "process_completed":
                        return dict(message)
        raise AssertionError(f"{name} never completed")


def test_read_only_http_api_and_mcp_refuse_changes(
    read_only: Actions, launch_app: Callable[..., str]
) -> None:
    url = launch_app(read_only)
    before = snapshot(read_only)
    [document] = read_only.documents.all("docs")
    browser = BrowserSession(url)
    # what a page load does: fill the DocSet and document pickers of this session
    assert browser.call("refresh_docset_lists", [None, [], None])["success"]
    assert browser.call("load", ["All", "All", []])["success"]
    # a client can post to the events behind hidden buttons; the service still refuses
    for name, data in [
        ("on_create", ["new", ""]),
        ("on_delete", ["docs"]),
        ("on_docset", ["docs"]),
        ("on_selected", [[f"#{document.id} guide.md (docs)"]]),
        ("on_upload", ["docs", None]),
        ("on_web_preview", ["https://example.com/", 1, 5, ""]),
    ]:
        result = browser.call(name, data)
        if result["success"]:  # shown inline beside the form, every other output unchanged
            assert "read-only" in json.dumps(result["output"]["data"]), (name, result)
        else:
            assert "read-only" in result["output"]["error"], (name, result)
    browser.close()
    assert snapshot(read_only) == before

    # the public API and MCP offer only the reading tools
    endpoints = Client(url, verbose=False).view_api(print_info=False, return_format="dict")
    assert set(endpoints["named_endpoints"]) == {f"/{name}" for name in READ_TOOLS}

    async def list_tools(session: Any) -> set[str]:
        return {tool.name for tool in (await session.list_tools()).tools}

    assert with_mcp(url, list_tools) == set(READ_TOOLS)
    for tool, arguments in [
        ("create_docset", {"name": "new"}),
        ("add_github_source", {"docset": "docs", "location": "acme/widgets"}),
        ("sync_source", {"source_id": 1}),
        ("remove_documents", {"docset": "docs", "paths": ["guide.md"]}),
    ]:
        assert "Unknown tool" in error_text(call(url, tool, arguments))
    assert snapshot(read_only) == before
    hits = result_json(call(url, "search", {"query": "soft cloth"}))["hits"]
    assert hits[0]["path"] == "guide.md"


# RAGSPACE_AUTH on the running app


def test_login_is_required_for_the_app_its_api_and_mcp(
    service: Actions, ingestor: Ingestor, launch_app: Callable[..., str]
) -> None:
    service.docsets.create("docs")
    service.sources.add_files("docs", [UploadedFile("guide.md", GUIDE)])
    ingestor.process_all()
    url = launch_app(service, parse_auth(SecretStr("alice:s3cret,bob:pw")))

    with httpx.Client(base_url=url, timeout=10) as anonymous:
        wrong = anonymous.post("/login", data={"username": "alice", "password": "nope"})
        assert wrong.status_code == 400 and not wrong.cookies
        assert anonymous.get("/config").status_code == 401
        refused = anonymous.post("/gradio_api/call/search", json={"data": ["soft cloth"]})
        assert refused.status_code == 401
    with httpx.Client(base_url=url, timeout=10) as user:
        right = user.post("/login", data={"username": "bob", "password": "pw"})
        assert right.status_code == 200 and right.json() == {"success": True}
        assert any(name.startswith("access-token") for name in right.cookies)
        assert user.get("/config").status_code == 200

    # a logged-in API client (cookie) may use the tools
    client = Client(url, auth=("alice", "s3cret"), verbose=False)
    hits = json.loads(client.predict("soft cloth", None, 3, None, api_name="/search"))["hits"]
    assert hits[0]["path"] == "guide.md"

    # Gradio's login does not guard MCP; the guard in front of it asks for the header
    for headers in [{}, {AUTH_HEADER: "alice:wrong"}, {AUTH_HEADER: "mallory:s3cret"}]:
        refused = httpx.post(
            f"{url}gradio_api/mcp/", json=TOOLS_LIST, headers={**MCP_HEADERS, **headers}
        )
        assert refused.status_code == 401 and "requires a login" in refused.text
    assert [d.name for d in service.docsets.all()] == ["docs"]
    good = {AUTH_HEADER: "alice:s3cret"}
    found = result_json(call(url, "search", {"query": "soft cloth"}, good))["hits"]
    assert found[0]["path"] == "guide.md"
    assert result_json(call(url, "create_docset", {"name": "x"}, good))["name"] == "x"


TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


def test_with_logins_on_only_the_login_page_answers_an_anonymous_client(
    service: Actions, launch_app: Callable[..., str], tmp_path: Path
) -> None:
    url = launch_app(service, parse_auth(SecretStr("alice:s3cret")))
    secret = tmp_path / "notes.md"
    secret.write_text("# Notes\n")
    requests: list[tuple[str, str, dict[str, Any]]] = [
        ("POST", "gradio_api/mcp/", {"json": TOOLS_LIST, "headers": MCP_HEADERS}),
        ("GET", "gradio_api/mcp/schema", {}),
        ("POST", "gradio_api/cancel", {"json": {"session_hash": "x", "fn_index": 0}}),
        ("POST", "gradio_api/reset", {"json": {"session_hash": "x", "fn_index": 0}}),
        ("POST", "gradio_api/upload", {"files": {"files": ("a.md", b"# A\n")}}),
        ("GET", f"gradio_api/file={secret}", {}),
        ("GET", "gradio_api/info", {}),
        ("GET", "gradio_api/heartbeat/x", {}),
        ("GET", "monitoring/x", {}),
        ("GET", "gradio_api/run-history/buckets", {}),
    ]
    with httpx.Client(base_url=url, timeout=10) as anonymous:
        assert anonymous.get("/").status_code == 200  # the login page itself
        for method, path, options in requests:
            answer = anonymous.request(method, path, **options)
            assert answer.status_code == 401, (path, answer.status_code, answer.text[:200])
            assert "requires a login" in answer.text, path
    with httpx.Client(base_url=url, timeout=10) as user:  # a signed-in browser gets through
        assert user.post("/login", data={"username": "alice", "password": "s3cret"}).is_success
        assert user.get("gradio_api/mcp/schema").status_code == 200
        uploaded = user.post("gradio_api/upload", files={"files": ("a.md", b"# A\n")})
        assert uploaded.status_code == 200 and uploaded.json()[0].endswith("a.md")
    listed = httpx.post(
        f"{url}gradio_api/mcp/",
        json=TOOLS_LIST,
        headers={**MCP_HEADERS, AUTH_HEADER: "alice:s3cret"},
        timeout=10,
    )
    assert listed.status_code != 401 and "search" in listed.text


def _upload_answer(
    url: str, name: str = "big.md", data: bytes = b"# Big\n" * 1000
) -> httpx.Response:
    return httpx.post(f"{url}gradio_api/upload", files={"files": (name, data)}, timeout=10)


def test_read_only_refuses_uploads_before_they_reach_the_disk(
    read_only: Actions,
    service: Actions,
    launch_app: Callable[..., str],
    settings: Settings,
) -> None:
    writable = _upload_answer(launch_app(service))
    assert writable.status_code == 200  # the route Gradio opens for its File component
    stored = Path(writable.json()[0])
    assert stored.read_bytes() == b"# Big\n" * 1000
    cache = stored.parent.parent
    # Gradio's upload cache is one folder for every process on the machine (the other test
    # process, another test session): the refused upload is told apart by a name and content
    # of its own, not by comparing the whole folder before and after
    marker = uuid.uuid4().hex
    refused = _upload_answer(
        launch_app(read_only, settings_override=settings.replace(read_only=True)),
        f"refused-{marker}.md",
        f"# {marker}\n".encode() * 1000,
    )
    assert refused.status_code == 403 and "read-only" in refused.text
    written = [
        path
        for path in cache.rglob("*")
        if marker in path.name or (path.is_file() and marker.encode() in path.read_bytes())
    ]
    assert written == []  # not in Gradio's upload cache, under its name or any other


def test_an_added_upload_leaves_gradios_cache(service: Actions, tmp_path: Path) -> None:
    service.docsets.create("docs")
    upload = tmp_path / "guide.md"
    upload.write_bytes(GUIDE)
    demo = build_ui(service)
    assert demo.delete_cache == UPLOAD_CACHE_SWEEP  # leftovers are swept too
    _handler(demo, "on_upload")("docs", [str(upload)])
    assert [d.path for d in service.documents.all("docs")] == ["guide.md"]
    assert not upload.exists()  # no longer served through /gradio_api/file=


def test_an_upload_is_readable_only_by_the_account_that_uploaded_it(
    service: Actions, launch_app: Callable[..., str]
) -> None:
    url = launch_app(service, parse_auth(SecretStr("alice:s3cret,bob:pw")))
    clients = {}
    for user, password in [("alice", "s3cret"), ("bob", "pw")]:
        clients[user] = httpx.Client(base_url=url, timeout=10)
        signed_in = clients[user].post("/login", data={"username": user, "password": password})
        assert signed_in.is_success
    uploaded = clients["alice"].post(
        "gradio_api/upload", files={"files": ("diary.md", b"# Alice's notes\n")}
    )
    [path] = uploaded.json()
    assert clients["alice"].get(f"gradio_api/file={path}").content == b"# Alice's notes\n"
    stolen = clients["bob"].get(f"gradio_api/file={path}")
    assert stolen.status_code == 404 and b"Alice" not in stolen.content
    by_header = httpx.get(f"{url}gradio_api/file={path}", headers={AUTH_HEADER: "bob:pw"})
    assert by_header.status_code == 404
    # the other spellings of the same file: Gradio's older route, a doubled slash, a
    # path through /proc/self/root, HEAD, percent-encoding
    for other in (
        f"gradio_api/file/{path.lstrip('/')}",
        f"gradio_api/file/{path}",
        f"gradio_api/file=/{path}",
        f"gradio_api/file=/proc/self/root{path}",
        f"gradio_api/file={quote(path)}",
        f"gradio_api/file=/tmp/../{path.lstrip('/')}",
        f"gradio_api/file={path}%00",
    ):
        for method in ("GET", "HEAD"):
            stolen = clients["bob"].request(method, other)
            assert stolen.status_code in (403, 404, 405), (method, other, stolen.status_code)
            assert b"Alice" not in stolen.content, (method, other)
    for client in clients.values():
        client.close()


def _signed_in(url: str, user: str, password: str) -> httpx.Client:
    client = httpx.Client(base_url=url, timeout=10)
    assert client.post("/login", data={"username": user, "password": password}).is_success
    return client


def test_an_upload_left_in_the_cache_by_an_earlier_run_is_served_to_no_one(
    service: Actions, launch_app: Callable[..., str]
) -> None:
    accounts = parse_auth(SecretStr("alice:s3cret,bob:pw"))
    with closing(_signed_in(launch_app(service, accounts), "alice", "s3cret")) as alice:
        uploaded = alice.post("gradio_api/upload", files={"files": ("diary.md", b"# Alice\n")})
        [path] = uploaded.json()
    # a new run (a restart after a crash) on the same upload cache, knowing no owners
    url = launch_app(service, accounts)
    with (
        closing(_signed_in(url, "bob", "pw")) as bob,
        closing(_signed_in(url, "alice", "s3cret")) as again,
    ):
        assert Path(path).read_bytes() == b"# Alice\n"  # still on disk
        for client in (bob, again):
            for route in (f"gradio_api/file={path}", f"gradio_api/file/{path.lstrip('/')}"):
                left = client.get(route)
                assert left.status_code == 404 and b"Alice" not in left.content, route
        header = httpx.get(f"{url}gradio_api/file={path}", headers={AUTH_HEADER: "bob:pw"})
        assert header.status_code == 404
        # what the app itself put in the cache this run is still served: the sample set
        sample = _served_sample(bob)
        assert sample.status_code == 200 and b"question" in sample.content
        # and this run's uploads to their owner
        fresh = bob.post("gradio_api/upload", files={"files": ("b.md", b"# Bob\n")}).json()[0]
        assert bob.get(f"gradio_api/file={fresh}").content == b"# Bob\n"


def _served_sample(client: httpx.Client) -> httpx.Response:
    """The sample question set's copy in Gradio's cache, found through the page's config."""
    config = client.get("config").json()
    [value] = [
        c["props"]["value"]
        for c in config["components"]
        if c.get("props", {}).get("elem_id") == "sample-questions"
    ]
    return client.get(f"gradio_api/file={value['path']}")


def test_read_only_lets_no_body_larger_than_a_form_field_reach_any_route(
    read_only: Actions, launch_app: Callable[..., str], settings: Settings
) -> None:
    url = launch_app(read_only, settings_override=settings.replace(read_only=True))
    blob = b"\0" * (MAX_FORM_BYTES + 1)
    for route in ("gradio_api/component_server", "gradio_api/process_recording", "x/any"):
        small = httpx.post(f"{url}{route}", files={"data": ("a.wav", b"RIFF")}, timeout=30)
        assert small.status_code == 403 and "read-only" in small.text, route
        big = httpx.post(f"{url}{route}", files={"data": ("a.wav", blob)}, timeout=30)
        assert big.status_code in (403, 413) and "read-only" in big.text, route
        body = (
            b'--x\r\nContent-Disposition: form-data; name="data"; filename="a"\r\n\r\n'
            b"A\r\n--x--\r\n"
        )
        for kind in ("Multipart/Form-Data; boundary=x", "MULTIPART/form-data;boundary=x"):
            spelled = httpx.post(
                f"{url}{route}", content=body, headers={"content-type": kind}, timeout=30
            )
            assert spelled.status_code == 403 and "read-only" in spelled.text, (route, kind)

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"data": ["'
        for _ in range(8):
            yield b"a" * (MAX_FORM_BYTES // 4)
        yield b'"]}'

    streamed = httpx.post(
        f"{url}gradio_api/queue/join",
        content=chunks(),
        headers={"content-type": "application/json"},
        timeout=30,
    )
    assert streamed.status_code == 413 and "read-only" in streamed.text
    declared = httpx.post(
        f"{url}gradio_api/queue/join", content=blob, headers={"content-type": "text/plain"}
    )
    assert declared.status_code == 413
    # an ordinary request still reaches the app
    assert httpx.get(f"{url}config", timeout=30).status_code == 200


def test_an_event_cannot_take_another_accounts_upload_as_its_input(
    service: Actions, launch_app: Callable[..., str]
) -> None:
    """Bob knows the path of Alice's pending upload and hands it to the upload and folder
    handlers as their file input, the way the browser sends a file (also spelled through
    `..` and nested deeper): refused before any handler reads it, nothing of Alice's is
    indexed into Bob's DocSet, and her file stays where it was."""
    service.docsets.create("bobs")  # before the page is built: the pickers list them
    service.docsets.create("alices")
    url = launch_app(service, parse_auth(SecretStr("alice:s3cret,bob:pw")))
    alice, bob = _signed_in(url, "alice", "s3cret"), _signed_in(url, "bob", "pw")
    [path] = alice.post("gradio_api/upload", files={"files": ("diary.md", b"# Alice\n")}).json()
    file_data = {"path": path, "orig_name": "diary.md", "meta": {"_type": "gradio.FileData"}}
    session = BrowserSession(url, bob)
    session.call("refresh_docset_lists", [None, [], None])  # the page load: pickers filled
    for name, data in (
        ("on_upload", ["bobs", [file_data]]),
        ("on_add_folder", ["bobs", [file_data], '[["diary/diary.md", 8]]', "", ""]),
        ("on_upload", ["bobs", [{**file_data, "path": f"/tmp/../{path.lstrip('/')}"}]]),
        ("on_upload", ["bobs", [{"nested": [[{**file_data}]]}]]),
    ):
        refused = session.join(name, data)
        assert refused.status_code == 403, (name, refused.text)
        assert "another account" in refused.json()["error"]
    assert service.documents.all("bobs") == []
    assert Path(path).read_bytes() == b"# Alice\n"  # not consumed by Bob's handler
    # the same call by Alice herself adds it: the refusal above is the owner check's
    own = BrowserSession(url, alice)
    own.call("refresh_docset_lists", [None, [], None])
    own.call("on_upload", ["alices", [file_data]])
    assert [d.path for d in service.documents.all("alices")] == ["diary.md"]
    session.close()
    own.close()
