"""Slowing password guessing: each failed login makes its client and its account wait.

One limiter per process serves every door a password is checked at: the web app's
`/login` form, the `X-Ragspace-Auth` header (and its bearer form) on the web app's routes
and MCP, and the standalone `ragspace mcp --http`. A client may fail `free_failures` times;
each failure after that makes it wait `delay_seconds`, doubled at each further failure, at
most `max_delay_seconds`; while it waits its attempts are refused unchecked (429), so they
tell it nothing. The same count is kept per account, against guessing from many addresses:
a client that has failed recently also waits for the account it tries. A client that has
not failed is always checked, so an attacker cannot lock the real user out: a correct
password from another address still works. An attempt counts as failed from the moment it
is admitted until it succeeds, so parallel attempts are counted too.

Clients are told apart by address (an IPv6 client by its /64: one host holds many of its
addresses); behind a proxy the address is the proxy's unless the server trusts its
forwarded header (uvicorn's `FORWARDED_ALLOW_IPS`). Account names that are not configured
share one count, so guessed names cannot fill memory; at most `MAX_TRACKED` clients are
kept (the least recently failing go first), and a record is forgotten
`FORGET_AFTER_DELAYS` longest delays after its last failure.
"""

import ipaddress
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection
from dataclasses import dataclass

from ragspace.access.credentials import Credentials
from ragspace.settings import Settings
from ragspace.settings.access import AccessSettings
from ragspace.settings.area import default_of

MAX_TRACKED = 10_000
FORGET_AFTER_DELAYS = 4
_UNKNOWN_ACCOUNT = ""  # every name no account has


@dataclass(frozen=True)
class LoginLimits:
    """How many failures are free, and the waits after them (defaults: the settings')."""

    free_failures: int = default_of(AccessSettings, "login_free_failures")
    delay_seconds: float = default_of(AccessSettings, "login_delay_seconds")
    max_delay_seconds: float = default_of(AccessSettings, "login_max_delay_seconds")

    @classmethod
    def from_settings(cls, settings: Settings) -> "LoginLimits":
        """The limits as configured (RAGSPACE_LOGIN_*)."""
        access = settings.access
        return cls(
            access.login_free_failures, access.login_delay_seconds, access.login_max_delay_seconds
        )

    def delay(self, failures: int) -> float:
        """The wait after this many failures (0 while they are free)."""
        excess = failures - self.free_failures
        if excess <= 0:
            return 0.0
        doubled = self.delay_seconds * 2.0 ** min(excess - 1, 64)
        return min(self.max_delay_seconds, doubled)


@dataclass(frozen=True)
class LoginCheck:
    """A checked login (`ok`), or one refused unchecked: `retry_after` seconds to wait."""

    ok: bool
    retry_after: float = 0.0

    @property
    def refused(self) -> bool:
        """True when the password was not even checked: the client must wait."""
        return self.retry_after > 0


@dataclass
class _Record:
    failures: int = 0
    last: float = 0.0


class LoginLimiter:
    """Failure counts per client and per account; thread-safe."""

    def __init__(
        self,
        limits: LoginLimits,
        accounts: Collection[str],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._limits = limits
        self._accounts = frozenset(accounts)
        self._clock = clock
        self._clients: OrderedDict[str, _Record] = OrderedDict()
        self._by_account: OrderedDict[str, _Record] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def for_accounts(
        cls, credentials: Credentials, limits: LoginLimits | None = None
    ) -> "LoginLimiter":
        """A limiter for the accounts of `credentials`."""
        return cls(limits or LoginLimits(), [user for user, _ in credentials.pairs])

    @staticmethod
    def refusal(wait: float) -> str:
        """What a client that must wait is told."""
        return (
            f"Too many failed logins: try again in {math.ceil(wait)} s (each failed login "
            "from this address, or for this account, makes the next wait longer)."
        )

    def check(
        self, credentials: Credentials, client: str, username: str, password: str
    ) -> LoginCheck:
        """Admit the attempt, check the password, and count the outcome."""
        wait = self.admit(client, username)
        if wait > 0:
            return LoginCheck(ok=False, retry_after=wait)
        ok = credentials.verify(username, password)
        if ok:
            self.succeeded(client, username)
        return LoginCheck(ok=ok)

    def check_header(self, credentials: Credentials, client: str, value: str) -> LoginCheck:
        """`check` for a `user:password` header value (a malformed one fails)."""
        username, _, password = value.strip().partition(":")
        return self.check(credentials, client, username, password)

    def admit(self, client: str, username: str) -> float:
        """0 when the client may try `username` now (the attempt counts as failed until
        `succeeded`), else the seconds it must wait."""
        with self._lock:
            now = self._clock()
            mine = self._record(self._clients, _client_key(client), now)
            theirs = self._record(self._by_account, self._account_key(username), now)
            wait = self._wait(mine, now)
            if mine.failures:  # a failing client also waits for the account it tries
                wait = max(wait, self._wait(theirs, now))
            if wait > 0:
                return wait
            for record in (mine, theirs):
                record.failures += 1
                record.last = now
            return 0.0

    def succeeded(self, client: str, username: str) -> None:
        """The admitted attempt was right: the client starts afresh; the account's count
        loses that attempt only (others' failures on it still count)."""
        with self._lock:
            self._clients.pop(_client_key(client), None)
            theirs = self._by_account.get(self._account_key(username))
            if theirs is not None:
                theirs.failures = max(0, theirs.failures - 1)

    def _wait(self, record: _Record, now: float) -> float:
        return max(0.0, record.last + self._limits.delay(record.failures) - now)

    def _record(self, records: OrderedDict[str, _Record], key: str, now: float) -> _Record:
        record = records.get(key)
        forget = FORGET_AFTER_DELAYS * self._limits.max_delay_seconds
        if record is None or now - record.last > forget:
            record = records[key] = _Record()
            while len(records) > MAX_TRACKED:
                records.popitem(last=False)
        records.move_to_end(key)
        return record

    def _account_key(self, username: str) -> str:
        name = username.strip()  # as Gradio's login reads it
        return name if name in self._accounts else _UNKNOWN_ACCOUNT


def _client_key(client: str) -> str:
    """The client's address; an IPv6 one by its /64."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return client
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:  # ::ffff:a.b.c.d is that IPv4 client
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)
