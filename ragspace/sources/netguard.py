"""Server-side request forgery guard for every fetch a user can direct.

A URL is fetched only when its scheme is http or https and every address its host resolves
to is a public one. The check runs in the HTTP transport, so it covers each redirect hop, and
the connection goes to the address that was checked (the URL is rewritten to that IP, with
the original name kept in the Host header and in TLS SNI / certificate checks), so a DNS
answer that changes between the check and the connection (DNS rebinding) cannot slip through.
"""

import functools
import ipaddress
import socket
import ssl
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx

from ragspace.errors import SourceError
from ragspace.sources.deadlines import bounded_transport
from ragspace.sources.network_errors import network_problem

Resolver = Callable[[str, int], list[str]]
"""host, port -> the IP addresses a connection could go to."""

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_SCHEMES = ("http", "https")
_METADATA = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class RefusedURLError(SourceError):
    """The URL points somewhere RAGSpace must not fetch (a private address, a bad scheme)."""


def system_resolver(host: str, port: int) -> list[str]:
    """Addresses from the operating system's resolver (what a socket would connect to)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        # in words: the resolver's own text (`[Errno -2] Name or service not known`) is not
        raise SourceError(f"Nothing could be fetched: {network_problem(exc, host)}.") from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def blocked_reason(address: IPAddress) -> str | None:
    """Why an address is off limits (loopback, private, ...), or None for a public one."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            return blocked_reason(embedded)
    checks = (
        (address in _METADATA, "a cloud metadata address"),
        (address.is_unspecified, "an unspecified address"),
        (address.is_loopback, "a loopback address"),
        (address.is_link_local, "a link-local address"),
        (getattr(address, "is_site_local", False), "a site-local address"),  # fec0::/10
        (address.is_multicast, "a multicast address"),
        (address.is_reserved, "a reserved address"),
        (address.is_private, "a private address"),
        (not address.is_global, "not a public address"),
    )
    return next((reason for hit, reason in checks if hit), None)


@dataclass(frozen=True)
class NetGuard:
    """Decides which URLs may be fetched; `allow_private` turns the address check off."""

    allow_private: bool = False
    resolver: Resolver = system_resolver
    trusted_hosts: frozenset[str] = field(default_factory=frozenset)

    def parse(self, url: str) -> httpx.URL:
        """The URL if its form is acceptable (http/https, a host, no credentials)."""
        try:
            parsed = httpx.URL(url)
        except (httpx.InvalidURL, ValueError, TypeError) as exc:
            raise RefusedURLError(f"{url!r} is not a valid web address ({exc}).") from None
        if parsed.scheme not in _SCHEMES:
            raise RefusedURLError(
                f"{url!r} uses {parsed.scheme or 'no'} scheme; only http:// and https:// "
                "addresses can be fetched."
            )
        if not parsed.host:
            raise RefusedURLError(f"{url!r} has no host name.")
        if "%" in parsed.host and ":" not in parsed.host:  # httpx percent-encodes spaces
            raise RefusedURLError(f"{url!r} has an invalid host name (spaces or % signs).")
        if parsed.userinfo:
            raise RefusedURLError(
                f"{parsed.copy_with(username=None, password=None)} contains a user name or "
                "password; RAGSpace does not send credentials to websites."
            )
        return parsed

    def check(self, url: str | httpx.URL) -> tuple[httpx.URL, str | None]:
        """The URL and the vetted address to connect to (None: connect by name as usual)."""
        parsed = self.parse(str(url))
        if self.allow_private:
            return parsed, None
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        addresses = self.resolver(parsed.host, port)
        if not addresses:
            raise SourceError(f"The host {parsed.host!r} has no address.")
        if self._trusted(parsed.host):  # configured by the operator, e.g. GITHUB_API_URL
            return parsed, addresses[0]
        for text in addresses:
            address = ipaddress.ip_address(text.split("%", 1)[0])
            reason = blocked_reason(address)
            if reason is not None:
                where = (
                    f"{parsed.host} is"
                    if _literal(parsed.host) == address
                    else f"{parsed.host} resolves to {address},"
                )
                raise RefusedURLError(
                    f"Refused to fetch {parsed.copy_with(query=None, fragment=None)}: "
                    f"{where} {reason}. Set "
                    "RAGSPACE_ALLOW_PRIVATE_URLS=true only if this server may read internal "
                    "addresses."
                )
        return parsed, addresses[0]

    def _trusted(self, host: str) -> bool:
        host = host.lower().rstrip(".")
        return any(host == t or host.endswith("." + t) for t in self.trusted_hosts)


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def trusted_hosts(urls: Iterable[str]) -> frozenset[str]:
    """Host names of operator-configured URLs (e.g. GITHUB_API_URL), trusted with subdomains."""
    return frozenset(httpx.URL(u).host.lower() for u in urls if u and httpx.URL(u).host)


@functools.cache
def default_tls_context() -> ssl.SSLContext:
    """httpx's default TLS context (certifi's CA bundle, or SSL_CERT_FILE / SSL_CERT_DIR),
    built once per process and shared (an SSLContext may serve many connections and
    threads): building one loads the whole bundle, about 25 ms of CPU that every fetch's
    connection pool per host used to pay."""
    return httpx.create_ssl_context()


class GuardedTransport(httpx.BaseTransport):
    """Checks every request (each redirect hop too) and connects to the vetted address."""

    def __init__(self, guard: NetGuard, **transport_options: Any) -> None:
        self._guard = guard
        self._options = transport_options
        self._transports: dict[str, httpx.HTTPTransport] = {}
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Refuse a private destination; otherwise send the request to the checked IP."""
        url, address = self._guard.check(request.url)
        transport = self._transport(url.host)  # one pool per host: TLS checked per name
        if address is None:
            return transport.handle_request(request)
        pinned = httpx.Request(
            request.method,
            url.copy_with(host=address),
            headers=request.headers,  # already holds Host: <original name>
            stream=request.stream,
            extensions={**request.extensions, "sni_hostname": url.host},
        )
        return transport.handle_request(pinned)

    def _transport(self, host: str) -> httpx.HTTPTransport:
        with self._lock:
            if host not in self._transports:
                options = {"verify": default_tls_context(), **self._options}
                # every request inside `deadlines.within` keeps to its total deadline
                self._transports[host] = bounded_transport(**options)
            return self._transports[host]

    def close(self) -> None:
        """Close every pooled connection."""
        with self._lock:
            for transport in self._transports.values():
                transport.close()
            self._transports.clear()


def guarded_client(guard: NetGuard, **client_options: Any) -> httpx.Client:
    """An httpx client whose every request passes the guard.

    Proxies from the environment are used only when the guard is off: a proxy resolves the
    name itself, so the guard could no longer know where the request goes.
    """
    return httpx.Client(
        transport=GuardedTransport(guard), trust_env=guard.allow_private, **client_options
    )
