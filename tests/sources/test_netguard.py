"""SSRF guard: private addresses refused directly, through DNS, after redirects, in IPv6 forms.

The guard is ON in these tests (conftest turns it off for the other fake-server tests). Names
like docs.test are mapped to 127.0.0.1 by a resolver passed in, so the local site can play a
public one while every other private destination stays refused.
"""

import datetime
import ipaddress
import ssl
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from ragspace.actions import Actions
from ragspace.errors import SourceError
from ragspace.models import SourceKind, WebOptions
from ragspace.runtime import build_actions
from ragspace.settings import load_settings
from ragspace.sources.fetcher import FetchResult, PreviousSync
from ragspace.sources.filters import FileFilter
from ragspace.sources.github_client import GithubClient, GithubConfig, RepoListing, parse_location
from ragspace.sources.github_fetcher import GithubFetcher
from ragspace.sources.netguard import (
    GuardedTransport,
    NetGuard,
    RefusedURLError,
    blocked_reason,
    default_tls_context,
    guarded_client,
)
from ragspace.sources.sync import SourceSyncer
from ragspace.sources.web import WebConfig, WebCrawler
from ragspace.store import Store
from tests.fakes.docs_site import DocsSite, page, running_site
from tests.fakes.github_server import FakeGithub, running_github
from tests.fakes.serving import serving

DOCS = WebOptions(depth=2, path_prefix="/docs/", max_pages=20)


def resolver_of(table: dict[str, list[str]]) -> Callable[[str, int], list[str]]:
    """A DNS stand-in: names from the table; IP literals resolve to themselves."""

    def resolve(host: str, _port: int) -> list[str]:
        if host in table:
            return table[host]
        try:
            return [str(ipaddress.ip_address(host))]
        except ValueError:
            raise SourceError(f"The host {host!r} could not be resolved.") from None

    return resolve


def crawler(guard: NetGuard, **config: object) -> WebCrawler:
    """A crawler with small timeouts whose every request passes `guard`."""
    return WebCrawler(WebConfig(timeout_seconds=3, concurrency=2, **config), guard=guard)  # type: ignore[arg-type]


def crawl(crawler: WebCrawler, start: str, options: WebOptions) -> FetchResult:
    """A first crawl: nothing stored yet."""
    return crawler.fetch(SourceKind.WEB, start, options, PreviousSync())


@pytest.fixture
def site() -> Iterator[DocsSite]:
    """The fake documentation site on 127.0.0.1."""
    with running_site() as running:
        yield running


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("100.64.0.1", "not a public"),
        ("169.254.169.254", "cloud metadata"),
        ("169.254.1.1", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("fec0::1", "site-local"),
        ("feff:ffff::1", "site-local"),
        ("fd00:ec2::254", "cloud metadata"),
        ("ff02::1", "multicast"),
        ("::ffff:127.0.0.1", "loopback"),
        ("::ffff:169.254.169.254", "cloud metadata"),
        ("::ffff:10.0.0.1", "private"),
        ("2002:7f00:1::", "loopback"),  # 6to4 wrapping 127.0.0.1
        ("64:ff9b::a00:1", "private"),  # NAT64 wrapping 10.0.0.1
    ],
)
def test_blocked_addresses(address: str, reason: str) -> None:
    found = blocked_reason(ipaddress.ip_address(address))
    assert found is not None and reason in found


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"])
def test_public_addresses_pass(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://127.0.0.1:8000/docs/", "127.0.0.1 is a loopback address"),
        ("http://[::1]/", "::1 is a loopback address"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
        ("http://[fd00:ec2::254]/latest/", "cloud metadata"),
        ("http://localhost/", "localhost resolves to"),
        ("http://2130706433/", "2130706433 resolves to 127.0.0.1"),  # decimal IPv4
        ("http://0x7f000001/", "resolves to 127.0.0.1"),  # hexadecimal IPv4
        ("http://127.1/", "resolves to 127.0.0.1"),  # short IPv4
        ("ftp://example.com/file", "only http:// and https://"),
        ("file:///etc/passwd", "only http:// and https://"),
        ("javascript:alert(1)", "only http:// and https://"),
        ("http:///path", "has no host name"),
        ("http://exa mple.com/", "invalid host name"),
        ("http://user:secret@example.com/", "user name or password"),
    ],
)
def test_system_resolver_sees_through_address_forms(url: str, message: str) -> None:
    """Real getaddrinfo (numeric forms need no network): every form is refused."""
    with pytest.raises(RefusedURLError) as caught:
        NetGuard().check(url)
    assert message in str(caught.value)
    assert "secret" not in str(caught.value)


def test_a_name_resolving_to_a_private_address_is_refused() -> None:
    guard = NetGuard(resolver=resolver_of({"intranet.example.com": ["93.184.216.34", "10.0.0.5"]}))
    with pytest.raises(RefusedURLError, match=r"intranet\.example\.com resolves to 10\.0\.0\.5"):
        guard.check("https://intranet.example.com/wiki")


def test_a_public_name_is_pinned_to_its_checked_address() -> None:
    guard = NetGuard(resolver=resolver_of({"docs.example.com": ["93.184.216.34"]}))
    url, address = guard.check("https://docs.example.com/a?b=1")
    assert (url.host, address) == ("docs.example.com", "93.184.216.34")


def test_allow_private_turns_the_guard_off() -> None:
    assert NetGuard(allow_private=True).check("http://127.0.0.1/")[1] is None


def test_crawling_a_private_address_is_refused_before_any_request(site: DocsSite) -> None:
    with pytest.raises(SourceError, match=r"127\.0\.0\.1 is a loopback address") as caught:
        crawl(crawler(NetGuard()), f"{site.origin}/docs/", DOCS)
    assert "RAGSPACE_ALLOW_PRIVATE_URLS" in str(caught.value)
    assert site.requests == []


@pytest.mark.parametrize("name_address", ["127.0.0.1", "::1", "::ffff:127.0.0.1", "10.9.8.7"])
def test_crawling_a_name_that_resolves_privately_is_refused(
    site: DocsSite, name_address: str
) -> None:
    port = site.origin.rsplit(":", 1)[1]
    guard = NetGuard(resolver=resolver_of({"docs.evil.test": [name_address]}))
    with pytest.raises(SourceError, match=r"docs\.evil\.test resolves to"):
        crawl(crawler(guard), f"http://docs.evil.test:{port}/docs/", DOCS)
    assert site.requests == []


def _redirecting_site(site: DocsSite) -> str:
    """docs.test pages that redirect to private destinations; returns the docs.test origin."""
    port = site.origin.rsplit(":", 1)[1]
    public = f"http://docs.test:{port}"
    site.routes["/robots.txt"] = (
        200,
        {"Content-Type": "text/plain"},
        b"Sitemap: http://169.254.169.254/latest/meta-data/sitemap.xml\n",
    )
    links = "".join(f'<a href="/docs/{n}.html">{n}</a> ' for n in ("to-ip", "to-v6", "to-name"))
    site.html("/docs/", page("Start", f"<h1>Start</h1><p>A public start page. {links}</p>"))
    targets = {
        "to-ip": f"http://127.0.0.1:{port}/docs/secret.html",
        "to-v6": f"http://[::ffff:127.0.0.1]:{port}/docs/secret.html",
        "to-name": "http://intranet.test/docs/secret.html",
    }
    for name, target in targets.items():
        site.routes[f"/docs/{name}.html"] = (302, {"Location": target}, b"")
    site.routes["/docs/go"] = (302, {"Location": targets["to-ip"]}, b"")
    site.html("/docs/secret.html", page("Secret", "<h1>Secret</h1><p>Internal only.</p>"))
    return public


def test_redirects_to_private_addresses_are_refused_at_each_hop(site: DocsSite) -> None:
    public = _redirecting_site(site)
    resolve = resolver_of({"docs.test": ["127.0.0.1"], "intranet.test": ["10.0.0.7"]})
    # docs.test plays a public site: trusted by name, reached through the injected resolver
    guard = NetGuard(resolver=resolve, trusted_hosts=frozenset({"docs.test"}))
    crawled = crawl(crawler(guard), f"{public}/docs/", DOCS)
    assert [d.path for d in crawled.documents] == [f"{public}/docs/"]
    reasons = {item.path: item.reason for item in crawled.skipped}
    assert "127.0.0.1 is a loopback address" in reasons[f"{public}/docs/to-ip.html"]
    assert "::ffff:127.0.0.1 is a loopback address" in reasons[f"{public}/docs/to-v6.html"]
    assert "intranet.test resolves to 10.0.0.7" in reasons[f"{public}/docs/to-name.html"]
    assert "/docs/secret.html" not in site.requests  # never reached by any redirect


def test_a_start_url_redirecting_to_a_private_address_is_a_source_error(
    site: DocsSite,
) -> None:
    public = _redirecting_site(site)
    guard = NetGuard(
        resolver=resolver_of({"docs.test": ["127.0.0.1"]}), trusted_hosts=frozenset({"docs.test"})
    )
    with pytest.raises(SourceError, match=r"could not be crawled: Refused to fetch .*loopback"):
        crawl(crawler(guard), f"{public}/docs/go", DOCS.model_copy(update={"path_prefix": "/"}))
    assert "/docs/secret.html" not in site.requests


def test_service_keeps_the_refusal_on_the_source(store: Store, site: DocsSite) -> None:
    """Through the real service: the source records the clear error, nothing is stored."""
    settings = load_settings(env_file=None)  # the guard's default: on
    assert settings.sources.allow_private_urls is False
    service: Actions = build_actions(settings, store, _NoEmbedder())  # type: ignore[arg-type]
    service.docsets.create("guarded")
    with pytest.raises(SourceError, match="loopback"):
        service.sources.add("guarded", SourceKind.WEB, f"{site.origin}/docs/", DOCS)
    (source,) = service.sources.all("guarded")
    assert "loopback" in (source.error_message or "")
    assert service.documents.all("guarded") == [] and site.requests == []


class _NoEmbedder:
    model_id = "none"
    dimensions = 3


@pytest.fixture
def github() -> Iterator[FakeGithub]:
    """The fake GitHub API with one small repository."""
    with running_github() as state:
        state.add_repo("acme", "widgets").commit({"README.md": b"# Widgets\n\nSmall parts.\n"})
        yield state


def test_github_api_host_is_trusted_and_its_tarball_downloads(github: FakeGithub) -> None:
    """GITHUB_API_URL is the operator's choice: the guard (on) lets it and its redirect through."""
    client = GithubClient(GithubConfig(api_url=github.base_url, timeout_seconds=5))
    listing = client.list_repository(parse_location("acme/widgets"), FileFilter((), (), 10**6))
    assert client.download(listing, ["README.md"]) == {"README.md": b"# Widgets\n\nSmall parts.\n"}


def test_github_tarball_on_another_private_host_is_refused(github: FakeGithub) -> None:
    """The API is configured as `localhost`; a listing points the tarball at 127.0.0.1."""
    port = github.base_url.rsplit(":", 1)[1]
    client = GithubClient(GithubConfig(api_url=f"http://localhost:{port}", timeout_seconds=5))
    commit = github.repos["acme/widgets"].refs["trunk"]
    listing = RepoListing(
        "acme/widgets",
        "https://github.com/acme/widgets",
        f"{github.base_url}/repos/acme/widgets",
        "trunk",
        commit,
    )
    with pytest.raises(SourceError, match=r"Refused to fetch .*127\.0\.0\.1 is a loopback"):
        client.download(listing, ["README.md"])
    assert github.count("/codeload") == 0 and github.count("/repos/acme/widgets/tarball") == 0


def test_source_syncer_with_guard_refuses_like_the_crawler(store: Store, site: DocsSite) -> None:
    github = GithubFetcher(GithubClient(GithubConfig()), max_file_bytes=10**6)
    syncer = SourceSyncer(store, [github, crawler(NetGuard())])
    with pytest.raises(SourceError, match="loopback"):
        syncer.preview(SourceKind.WEB, f"{site.origin}/docs/", DOCS)


# TLS: the connection goes to the pinned IP, yet the certificate is checked for the name.


def _certificate(folder: Path, name: str) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / f"{name}.pem", folder / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture
def https_server(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """An HTTPS server on 127.0.0.1 with a certificate for docs.test; yields port and cert."""
    cert, key = _certificate(tmp_path, "docs.test")
    hosts: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hosts.append(self.headers.get("Host", ""))
            body = b"hello over tls"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    with serving(server):
        yield server.server_address[1], cert


def test_pinned_tls_connection_verifies_the_original_name(https_server: tuple[int, Path]) -> None:
    port, cert = https_server
    trust = ssl.create_default_context(cafile=str(cert))
    resolve = resolver_of({"docs.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
    guard = NetGuard(resolver=resolve, trusted_hosts=frozenset({"docs.test", "other.test"}))
    with httpx.Client(transport=GuardedTransport(guard, verify=trust)) as client:
        response = client.get(f"https://docs.test:{port}/")
        assert response.text == "hello over tls"
        assert str(response.url) == f"https://docs.test:{port}/"  # the name, not the IP
        with pytest.raises(httpx.ConnectError, match="certificate"):
            client.get(f"https://other.test:{port}/")  # same IP, certificate not for this name


def test_default_tls_checks_certificates_with_one_context_per_process(
    https_server: tuple[int, Path],
) -> None:
    port, _cert = https_server  # self-signed: no CA in the default bundle vouches for it
    guard = NetGuard(
        resolver=resolver_of({"docs.test": ["127.0.0.1"]}), trusted_hosts=frozenset({"docs.test"})
    )
    with (
        httpx.Client(transport=GuardedTransport(guard)) as client,
        pytest.raises(httpx.ConnectError, match="certificate"),
    ):
        client.get(f"https://docs.test:{port}/")
    context = default_tls_context()
    assert context is default_tls_context()  # built once, shared by every host's pool
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname


def test_guarded_client_ignores_environment_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy would resolve names itself, out of the guard's sight."""
    monkeypatch.setenv("HTTP_PROXY", "http://10.0.0.1:3128")
    with guarded_client(NetGuard()) as client:
        assert client.trust_env is False
        with pytest.raises(RefusedURLError, match="loopback"):
            client.get("http://127.0.0.1:9/")
