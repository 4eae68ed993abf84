"""A local GitHub REST fake on 127.0.0.1: repository, commits, git trees, contents, tarball."""

import base64
import hashlib
import io
import json
import tarfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.fakes.serving import serving


def blob_sha(data: bytes) -> str:
    """The git blob id of the bytes, as GitHub reports it."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


@dataclass
class FakeRepo:
    """A repository: refs pointing at commits, each commit a full snapshot of files."""

    owner: str
    name: str
    default_branch: str
    refs: dict[str, str] = field(default_factory=dict)
    snapshots: dict[str, dict[str, bytes]] = field(default_factory=dict)

    def commit(self, files: dict[str, bytes], ref: str | None = None) -> str:
        """Record a snapshot under `ref` (default branch if None); returns its commit SHA."""
        digest = hashlib.sha1(f"{self.name}{len(self.snapshots)}".encode())
        for path in sorted(files):
            digest.update(path.encode() + blob_sha(files[path]).encode())
        sha = digest.hexdigest()
        self.snapshots[sha] = dict(files)
        self.refs[ref or self.default_branch] = sha
        return sha


class FakeGithub:
    """The server's state and the requests it received."""

    def __init__(self) -> None:
        self.repos: dict[str, FakeRepo] = {}
        self.requests: list[str] = []
        self.rate_limited_paths: tuple[str, ...] = ()  # path prefixes answered with 403
        self.secondary_limited_paths: tuple[str, ...] = ()  # answered 429 with Retry-After
        self.failing_paths: dict[str, int] = {}  # path prefix -> 401/403/404/500 as GitHub says
        self.delay_seconds = 0.0  # before every answer (timeouts)
        self.authorizations: list[str] = []  # Authorization headers received
        self.reset_at = int(time.time()) + 1800
        self.base_url = ""

    def add_repo(self, owner: str, name: str, default_branch: str = "trunk") -> FakeRepo:
        """A new empty repository."""
        repo = FakeRepo(owner, name, default_branch)
        self.repos[f"{owner}/{name}"] = repo
        return repo

    def count(self, prefix: str = "") -> int:
        """Requests received whose path starts with the prefix."""
        return sum(1 for path in self.requests if path.startswith(prefix))


@contextmanager
def running_github() -> Iterator[FakeGithub]:
    """Start the fake on a free port; `base_url` is what PyGithub gets as API URL."""
    state = FakeGithub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    with serving(server):
        yield state


def _handler(state: FakeGithub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

        def do_GET(self) -> None:
            """Route a GET like api.github.com (and codeload) would."""
            url = urlsplit(self.path)
            state.requests.append(url.path)
            state.authorizations.append(self.headers.get("Authorization", ""))
            time.sleep(state.delay_seconds)
            failing = [s for p, s in state.failing_paths.items() if url.path.startswith(p)]
            if failing:
                self._json(failing[0], {"message": _FAILURES.get(failing[0], "Error")})
                return
            if any(url.path.startswith(p) for p in state.rate_limited_paths):
                self._rate_limited()
                return
            if any(url.path.startswith(p) for p in state.secondary_limited_paths):
                message = "You have exceeded a secondary rate limit. Please wait a few minutes."
                self._json(429, {"message": message}, {"Retry-After": "120"})
                return
            parts = url.path.strip("/").split("/")
            if parts[0] == "codeload":
                self._tarball(parts[1], parts[2], parts[4])
                return
            if parts[0] != "repos" or len(parts) < 3 or f"{parts[1]}/{parts[2]}" not in state.repos:
                self._json(
                    404, {"message": "Not Found", "documentation_url": "https://docs.github.com"}
                )
                return
            repo = state.repos[f"{parts[1]}/{parts[2]}"]
            rest = parts[3:]
            query = parse_qs(url.query)
            if not rest:
                self._json(200, _repo_json(state, repo))
            elif rest[0] == "commits" and len(rest) == 2:
                self._commit(repo, rest[1])
            elif rest[:2] == ["git", "trees"] and len(rest) == 3:
                self._tree(repo, rest[2])
            elif rest[0] == "tarball" and len(rest) == 2:
                target = (
                    f"{state.base_url}/codeload/{repo.owner}/{repo.name}/legacy.tar.gz/{rest[1]}"
                )
                self.send_response(302)
                self.send_header("Location", target)
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif rest[0] == "contents":
                self._contents(repo, "/".join(rest[1:]), query.get("ref", [""])[0])
            else:
                self._json(404, {"message": "Not Found"})

        def _commit(self, repo: FakeRepo, ref: str) -> None:
            sha = repo.refs.get(ref, ref)
            if sha not in repo.snapshots:
                self._json(422, {"message": f"No commit found for SHA: {ref}"})
                return
            api = f"{state.base_url}/repos/{repo.owner}/{repo.name}"
            self._json(
                200,
                {
                    "sha": sha,
                    "node_id": "C_" + sha[:10],
                    "url": f"{api}/commits/{sha}",
                    "html_url": f"https://github.com/{repo.owner}/{repo.name}/commit/{sha}",
                    "commit": {
                        "message": "snapshot",
                        "author": {
                            "name": "A",
                            "email": "a@example.com",
                            "date": "2026-11-01T00:00:00Z",
                        },
                        "tree": {"sha": sha, "url": f"{api}/git/trees/{sha}"},
                    },
                    "parents": [],
                    "files": [],
                },
            )

        def _tree(self, repo: FakeRepo, sha: str) -> None:
            files = repo.snapshots.get(sha)
            if files is None:
                self._json(404, {"message": "Not Found"})
                return
            api = f"{state.base_url}/repos/{repo.owner}/{repo.name}"
            folders = sorted(
                {"/".join(p.split("/")[:n]) for p in files for n in range(1, p.count("/") + 1)}
            )
            tree: list[dict[str, Any]] = [
                {
                    "path": f,
                    "mode": "040000",
                    "type": "tree",
                    "sha": blob_sha(f.encode()),
                    "url": f"{api}/git/trees/x",
                }
                for f in folders
            ]
            tree += [
                {
                    "path": path,
                    "mode": "100644",
                    "type": "blob",
                    "sha": blob_sha(data),
                    "size": len(data),
                    "url": f"{api}/git/blobs/{blob_sha(data)}",
                }
                for path, data in sorted(files.items())
            ]
            self._json(
                200, {"sha": sha, "url": f"{api}/git/trees/{sha}", "tree": tree, "truncated": False}
            )

        def _contents(self, repo: FakeRepo, path: str, ref: str) -> None:
            files = repo.snapshots.get(repo.refs.get(ref, ref), {})
            if path not in files:
                self._json(404, {"message": "Not Found"})
                return
            data = files[path]
            api = f"{state.base_url}/repos/{repo.owner}/{repo.name}"
            self._json(
                200,
                {
                    "type": "file",
                    "encoding": "base64",
                    "size": len(data),
                    "name": path.rsplit("/", 1)[-1],
                    "path": path,
                    "content": base64.encodebytes(data).decode(),
                    "sha": blob_sha(data),
                    "url": f"{api}/contents/{path}?ref={ref}",
                    "html_url": f"https://github.com/{repo.owner}/{repo.name}/blob/{ref}/{path}",
                },
            )

        def _tarball(self, owner: str, name: str, sha: str) -> None:
            repo = state.repos[f"{owner}/{name}"]
            buffer = io.BytesIO()
            with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
                root = f"{owner}-{name}-{sha[:7]}"
                folder = tarfile.TarInfo(root)
                folder.type = tarfile.DIRTYPE
                tar.addfile(folder)
                for path, data in sorted(repo.snapshots[sha].items()):
                    info = tarfile.TarInfo(f"{root}/{path}")
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
            body = buffer.getvalue()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _rate_limited(self) -> None:
            self._json(
                403,
                {
                    "message": "API rate limit exceeded for 127.0.0.1. (But here's the good news: "
                    "Authenticated requests get a higher rate limit.)",
                    "documentation_url": "https://docs.github.com/rest/overview/rate-limits",
                },
                {
                    "X-RateLimit-Limit": "60",
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset": str(state.reset_at),
                    "X-RateLimit-Used": "60",
                },
            )

        def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

    return Handler


_FAILURES = {
    401: "Bad credentials",
    403: "Resource not accessible by personal access token",
    404: "Not Found",
    500: "Server Error",
    502: "Bad Gateway",
}


def _repo_json(state: FakeGithub, repo: FakeRepo) -> dict[str, Any]:
    full = f"{repo.owner}/{repo.name}"
    return {
        "id": abs(hash(full)) % 10**8,
        "node_id": "R_" + repo.name,
        "name": repo.name,
        "full_name": full,
        "private": False,
        "owner": {"login": repo.owner, "id": 1, "type": "Organization"},
        "html_url": f"https://github.com/{full}",
        "url": f"{state.base_url}/repos/{full}",
        "default_branch": repo.default_branch,
        "size": 10,
    }
