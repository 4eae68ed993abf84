"""GitHub repositories and single files, pinned to a commit, in a constant number of requests."""

import io
import re
import tarfile
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any

import httpx

from ragspace.errors import SourceError
from ragspace.settings import Settings
from ragspace.settings.area import default_of
from ragspace.settings.sources import SourceSettings
from ragspace.sources.filters import FileFilter, SkippedItem
from ragspace.sources.netguard import NetGuard, guarded_client, trusted_hosts
from ragspace.sources.network_errors import host_of, network_problem

if TYPE_CHECKING:
    import github

_URL = re.compile(
    r"^(?:https?://)?(?:www\.)?github\.com/(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+?)(?:\.git)?"
    r"(?:/(?P<kind>tree|blob)/(?P<ref>[^/]+)(?:/(?P<path>.+?))?)?/?(?:[?#].*)?$"
)
_SHORT = re.compile(r"^(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+?)(?:\.git)?$")
_SSH = re.compile(r"^git@github\.com:(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+?)(?:\.git)?$")
_BAD_REF = re.compile(r"\.\.|[\s~^:?*\[\\\x00-\x1f\x7f]|^/|/$|@\{")  # git check-ref-format
# GitHub's own rules: a login is 1-39 letters, digits, hyphens (underscores for managed
# users), never starting with a hyphen; a repository name is 1-100 of [A-Za-z0-9._-]
_OWNER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,38}")
_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")
MAX_REF_CHARS = 255


@dataclass(frozen=True)
class GithubConfig:
    """Where the API is, the optional token, and the caps on one repository; the
    configurable ones default to their settings."""

    api_url: str = default_of(SourceSettings, "github_api_url")
    token: str | None = None
    timeout_seconds: float = default_of(SourceSettings, "http_timeout_seconds")
    max_files: int = default_of(SourceSettings, "github_max_files")
    max_file_bytes: int = default_of(SourceSettings, "github_max_file_bytes")
    max_archive_bytes: int = default_of(SourceSettings, "github_max_archive_bytes")
    # the wanted files' bytes together, as read from the archive: a sync reads at most this
    # much text (uploads, folders and crawls have RAGSPACE_UPLOAD_TEXT_BUDGET_BYTES)
    max_text_bytes: int = 256 * 1024 * 1024
    allow_private_urls: bool = default_of(SourceSettings, "allow_private_urls")

    @classmethod
    def from_settings(cls, settings: Settings) -> "GithubConfig":
        """The API, token and caps as configured."""
        sources = settings.sources
        token = sources.github_token.get_secret_value() if sources.github_token else None
        return cls(
            api_url=sources.github_api_url,
            token=token or None,
            timeout_seconds=sources.http_timeout_seconds,
            max_files=sources.github_max_files,
            max_file_bytes=sources.github_max_file_bytes,
            max_archive_bytes=sources.github_max_archive_bytes,
            allow_private_urls=sources.allow_private_urls,
        )


@dataclass(frozen=True)
class GithubLocation:
    """A repository, optionally with a ref and (for a single file) a path."""

    owner: str
    repo: str
    ref: str | None = None
    path: str | None = None

    @property
    def full_name(self) -> str:
        """`owner/repo`."""
        return f"{self.owner}/{self.repo}"


@dataclass(frozen=True)
class RepoFile:
    """A blob in the repository tree."""

    path: str
    sha: str
    size: int


@dataclass
class RepoListing:
    """A repository at a resolved commit: the files kept by the filters and those skipped."""

    full_name: str
    html_url: str
    api_url: str
    ref: str
    commit: str
    files: list[RepoFile] = field(default_factory=list)
    skipped: list[SkippedItem] = field(default_factory=list)

    def cite(self, path: str) -> dict[str, Any]:
        """Chunk metadata that makes a citation link to this file at this commit."""
        return {
            "source": "github",
            "repo": self.full_name,
            "commit": self.commit,
            "repo_path": path,
            "html_url": self.html_url,
        }


def parse_location(text: str, ref: str | None = None) -> GithubLocation:
    """`owner/repo`, any github.com URL form, or a `.../blob/<ref>/<path>` file URL."""
    cleaned = text.strip()
    match = _URL.match(cleaned) or _SHORT.match(cleaned) or _SSH.match(cleaned)
    if match is None:
        raise SourceError(
            f"{text!r} is not a GitHub repository: use owner/repo or a github.com URL."
        )
    parts = match.groupdict()
    url_ref = parts.get("ref")
    path = parts.get("path") if parts.get("kind") == "blob" else None
    if parts.get("kind") == "blob" and not path:
        raise SourceError(f"{text!r} names no file after /blob/<ref>/.")
    location = GithubLocation(parts["owner"], parts["repo"], (ref or "").strip() or url_ref, path)
    if (
        not _OWNER.fullmatch(location.owner)
        or not _NAME.fullmatch(location.repo)
        or (location.repo in (".", ".."))
    ):  # checked before any request: `../user` would otherwise call `GET /user`
        raise SourceError(
            f"{_shown(cleaned)!r} is not a GitHub repository: use owner/name, where the owner "
            "is a GitHub user or organisation and the name is made of letters, digits, . _ -."
        )
    if location.ref is not None and not _valid_ref(location.ref):
        raise SourceError(
            f"{_shown(location.ref)!r} is not a valid git branch, tag or commit name."
        )
    if path is not None and any(part in ("", ".", "..") for part in path.split("/")):
        raise SourceError(f"{path!r} is not a file path inside the repository.")
    return location


def _valid_ref(ref: str) -> bool:
    """git check-ref-format, at most MAX_REF_CHARS, and no invisible or control characters
    (bidi overrides and zero-width spaces make a ref look like another one); no `%` either,
    which an API path could decode into `..`."""
    return (
        len(ref) <= MAX_REF_CHARS
        and not _BAD_REF.search(ref)
        and "%" not in ref
        and not any(unicodedata.category(c)[0] in "CZ" for c in ref)
    )


def _too_much_text(listing: RepoListing, config: GithubConfig) -> str:
    return (
        f"The files wanted from {listing.full_name} hold more than "
        f"{config.max_text_bytes:,} bytes of text together; narrow the source with "
        "include/exclude filters."
    )


def _shown(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


class GithubClient:
    """PyGithub for metadata (repository, commit, tree); httpx for the one tarball download."""

    def __init__(self, config: GithubConfig, http: httpx.Client | None = None) -> None:
        self._config = config
        # the API host is the operator's choice (GITHUB_API_URL) and trusted with its
        # subdomains (GitHub Enterprise's codeload); any other redirect target is checked
        guard = NetGuard(
            allow_private=config.allow_private_urls,
            trusted_hosts=trusted_hosts([config.api_url]),
        )
        self._http = http or guarded_client(guard, timeout=config.timeout_seconds)

    @cached_property
    def _api(self) -> "github.Github":
        """PyGithub's client, built (and PyGithub imported, ~0.2 s) on the first request:
        commands that fetch nothing from GitHub start without it."""
        import github

        config = self._config
        return github.Github(
            auth=github.Auth.Token(config.token) if config.token else None,
            base_url=config.api_url,
            timeout=int(config.timeout_seconds),
            retry=None,  # a rate limit must fail clearly, never sleep until it resets
            seconds_between_requests=None,
        )

    def list_repository(self, location: GithubLocation, file_filter: FileFilter) -> RepoListing:
        """Resolve the ref to a commit and list its tree: three API requests."""
        with _translated(location, self._config.api_url):
            repo = self._api.get_repo(location.full_name)
            ref = location.ref or repo.default_branch
            commit = repo.get_commit(ref).sha
            tree = repo.get_git_tree(commit, recursive=True)
        if tree.raw_data.get("truncated"):
            raise SourceError(
                f"{location.full_name} has too many files for one tree listing; "
                "narrow it with include filters."
            )
        listing = RepoListing(repo.full_name, repo.html_url, repo.url, ref, commit)
        for element in tree.tree:
            if element.type == "tree":  # folders are implied by their files' paths
                continue
            reason = _tree_skip_reason(element.type, element.mode)
            size = element.size or 0
            reason = reason or file_filter.skip_reason(element.path, size)
            if reason:
                listing.skipped.append(SkippedItem(path=element.path, reason=reason))
            elif element.type == "blob":
                listing.files.append(RepoFile(element.path, element.sha, size))
        if len(listing.files) > self._config.max_files:
            raise SourceError(
                f"{location.full_name} has {len(listing.files):,} files after filters; the limit "
                f"is {self._config.max_files:,}. Narrow it with include/exclude filters."
            )
        return listing

    def download(self, listing: RepoListing, paths: Sequence[str]) -> dict[str, bytes]:
        """The wanted files' bytes from one tarball of the commit."""
        wanted = set(paths)
        if not wanted:
            return {}
        archive = self._get_archive(f"{listing.api_url}/tarball/{listing.commit}", listing)
        contents: dict[str, bytes] = {}
        read = 0
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as tar:
            for member in tar:
                path = member.name.split("/", 1)[1] if "/" in member.name else ""
                if member.isfile() and path in wanted:
                    handle = tar.extractfile(member)
                    if handle is not None:  # never trust a member's size: read at most the cap
                        contents[path] = handle.read(self._config.max_file_bytes + 1)
                        read += len(contents[path])
                        if read > self._config.max_text_bytes:
                            raise SourceError(_too_much_text(listing, self._config))
        missing = wanted - contents.keys()
        if missing:
            raise SourceError(
                f"The archive of {listing.full_name}@{listing.commit[:12]} lacks "
                f"{len(missing)} listed file(s), e.g. {sorted(missing)[0]}; try again."
            )
        return contents

    def get_file(self, location: GithubLocation) -> tuple[RepoListing, bytes]:
        """One file at the commit its ref resolves to."""
        assert location.path is not None
        with _translated(location, self._config.api_url):
            repo = self._api.get_repo(location.full_name)
            ref = location.ref or repo.default_branch
            commit = repo.get_commit(ref).sha
            content = repo.get_contents(location.path, ref=commit)
        if isinstance(content, list) or content.type != "file":
            raise SourceError(f"{location.path} in {location.full_name} is not a file.")
        if content.size > self._config.max_file_bytes or content.encoding != "base64":
            raise SourceError(
                f"{location.path} is {content.size:,} bytes; the limit is "
                f"{self._config.max_file_bytes:,}."
            )
        listing = RepoListing(repo.full_name, repo.html_url, repo.url, ref, commit)
        listing.files.append(RepoFile(content.path, content.sha, content.size))
        return listing, content.decoded_content

    def _get_archive(self, url: str, listing: RepoListing) -> bytes:
        headers = {"Accept": "application/vnd.github+json", "User-Agent": "ragspace"}
        if self._config.token:
            headers["Authorization"] = f"Bearer {self._config.token}"
        try:
            with self._http.stream("GET", url, headers=headers, follow_redirects=True) as response:
                if response.status_code != 200:
                    raise _http_error(response.status_code, response.headers, listing.full_name)
                body = bytearray()
                for piece in response.iter_bytes():
                    body += piece
                    if len(body) > self._config.max_archive_bytes:
                        raise SourceError(
                            f"The archive of {listing.full_name} is larger than "
                            f"{self._config.max_archive_bytes:,} bytes."
                        )
        except httpx.TooManyRedirects:
            raise SourceError(
                f"Downloading {listing.full_name} failed: too many redirects."
            ) from None
        except httpx.HTTPError as exc:
            problem = network_problem(exc, host_of(url))
            raise SourceError(f"Downloading {listing.full_name} failed: {problem}.") from None
        return bytes(body)


def _tree_skip_reason(kind: str, mode: str) -> str | None:
    if kind == "commit":
        return "git submodule"
    if kind == "blob" and mode == "120000":
        return "symbolic link"
    return None


@contextmanager
def _translated(location: GithubLocation, api_url: str) -> Iterator[None]:
    """Turn PyGithub and network exceptions into SourceErrors that name the repository."""
    from github.GithubException import GithubException

    try:
        yield
    except GithubException as exc:
        raise _http_error(exc.status, exc.headers or {}, location.full_name, location) from None
    except OSError as exc:  # requests' connection errors and timeouts are OSErrors
        problem = network_problem(exc, host_of(api_url))
        raise SourceError(
            f"GitHub could not be reached for {location.full_name}: {problem}."
        ) from None


def _http_error(
    status: int, headers: Any, full_name: str, location: GithubLocation | None = None
) -> SourceError:
    lowered = {str(k).lower(): str(v) for k, v in dict(headers).items()}
    if status in (403, 429) and (
        lowered.get("x-ratelimit-remaining") == "0" or "retry-after" in lowered
    ):
        return SourceError(_rate_limit_message(lowered, full_name))
    if status == 401:
        return SourceError("GitHub rejected GITHUB_TOKEN (401 Bad credentials).")
    if status in (404, 422):  # 422: "No commit found for SHA" when a ref does not exist
        what = full_name
        if location is not None and location.ref:
            what += f" at {location.ref}"
        if location is not None and location.path:
            what += f" (file {location.path})"
        return SourceError(
            f"GitHub has no {what}: check the name and ref; a private repository needs "
            "GITHUB_TOKEN."
        )
    return SourceError(f"GitHub answered HTTP {status} for {full_name}.")


def _rate_limit_message(headers: dict[str, str], full_name: str) -> str:
    now = datetime.now(UTC)
    if "x-ratelimit-reset" in headers:
        reset = datetime.fromtimestamp(int(headers["x-ratelimit-reset"]), UTC)
    else:
        reset = datetime.fromtimestamp(now.timestamp() + int(headers["retry-after"]), UTC)
    minutes = max(0, round((reset - now).total_seconds() / 60))
    return (
        f"GitHub rate limit exceeded while fetching {full_name}; it resets at "
        f"{reset:%Y-%m-%d %H:%M:%S} UTC (in about {minutes} min). Nothing was changed; "
        "re-sync after the reset, or set GITHUB_TOKEN for a higher limit."
    )
