"""Network failures in words: offline, DNS, proxy, firewall, TLS, timeout; never a class name."""

import socket
import ssl
from urllib.parse import urlsplit

_DNS_WORDS = (
    "name or service not known",
    "temporary failure in name resolution",
    "nodename nor servname",
    "getaddrinfo failed",
    "no address associated",
    "failed to resolve",
    "name resolution",
)


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and every cause or context behind it (requests and httpx nest them)."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
        for arg in seen[-1].args:  # urllib3 keeps the reason in args, not as a cause
            if isinstance(arg, BaseException) and arg not in seen and current is None:
                current = arg
        reason = getattr(seen[-1], "reason", None)
        if isinstance(reason, BaseException) and reason not in seen and current is None:
            current = reason
    return seen


def host_of(url: str) -> str:
    """The host name of a URL, or the text itself when it has none."""
    return urlsplit(url).hostname or url


def network_problem(exc: BaseException, host: str) -> str:
    """Why `host` could not be reached, in words a user can act on."""
    chain = _chain(exc)
    names = " ".join(type(e).__name__.lower() for e in chain)
    text = " ".join(str(e).lower() for e in chain)
    if "proxy" in names or "proxy" in text:
        return (
            f"the proxy refused or could not reach {host}; check the HTTPS_PROXY / HTTP_PROXY "
            "settings (and NO_PROXY for local addresses)"
        )
    if any(isinstance(e, socket.gaierror) for e in chain) or any(w in text for w in _DNS_WORDS):
        return (
            f"{host} could not be looked up: this computer seems to be offline, or its DNS "
            "does not work (behind a proxy? set HTTPS_PROXY)"
        )
    if any(isinstance(e, ssl.SSLError) for e in chain) or "ssl" in names or "certificate" in text:
        return (
            f"the secure connection to {host} failed (a certificate problem; a proxy or "
            "firewall inspecting HTTPS?)"
        )
    if "timeout" in names or "timed out" in text:
        return f"{host} did not answer in time (offline, or a slow network or proxy?)"
    if any(isinstance(e, ConnectionRefusedError) for e in chain) or "refused" in text:
        return f"{host} refused the connection (is a firewall blocking it, or a proxy needed?)"
    return (
        f"{host} could not be reached (offline, behind a proxy that is not configured, or "
        "blocked by a firewall?)"
    )
