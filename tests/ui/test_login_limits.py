"""Guessing passwords against the real app: the `/login` form and the `X-Ragspace-Auth`
header (also on MCP). The attacker is 127.0.0.1; the real user signs in from 127.0.0.2 and
a second attacker from 127.0.0.3 (all loopback: Linux answers the whole 127/8). Every loop
is bounded; waits are for the app's own answers, never a fixed sleep."""

import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx
import pytest
from pydantic import SecretStr

from ragspace.access import AUTH_HEADER, parse_auth
from ragspace.actions import Actions
from ragspace.settings import Settings
from tests.ui.test_access import MCP_HEADERS, TOOLS_LIST
from tests.waiting import wait_for

ATTACKER, USER, OTHER_ATTACKER = "127.0.0.1", "127.0.0.2", "127.0.0.3"
FREE = 3
DELAY = 0.15  # the first wait in the test of doubling
GUESSES = 40
ACCOUNTS = "alice:s3cret,bob:pw"


@contextmanager
def client_from(url: str, address: str) -> Iterator[httpx.Client]:
    """An HTTP client whose connections come from `address`."""
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=url, transport=transport, timeout=30) as client:
        yield client


def _login(client: httpx.Client, password: str, user: str = "alice") -> httpx.Response:
    return client.post("/login", data={"username": user, "password": password})


def _limited(settings: Settings, delay: float) -> Settings:
    return settings.replace(
        login_free_failures=FREE, login_delay_seconds=delay, login_max_delay_seconds=600
    )


@pytest.fixture
def slow_app(service: Actions, launch_app: Callable[..., str], settings: Settings) -> str:
    """The app with two accounts; after FREE failures a client waits a minute."""
    return launch_app(service, parse_auth(SecretStr(ACCOUNTS)), _limited(settings, 60))


def test_guessing_at_the_login_form_is_refused_unchecked_but_the_user_gets_in(
    slow_app: str,
) -> None:
    with client_from(slow_app, ATTACKER) as attacker:
        answers = [_login(attacker, f"guess-{n}").status_code for n in range(GUESSES)]
        # FREE free failures, one more admitted (it starts the wait), the rest unchecked
        assert answers.count(400) == FREE + 1, answers
        assert answers.count(429) == GUESSES - FREE - 1, answers
        refused = _login(attacker, "s3cret")  # the right password: not even checked now
        assert refused.status_code == 429 and not refused.cookies
        assert 0 < int(refused.headers["retry-after"]) <= 60
        assert "Too many failed logins" in refused.json()["error"]
    with client_from(slow_app, USER) as user:  # the real user, elsewhere: let in at once
        signed_in = _login(user, "s3cret")
        assert signed_in.status_code == 200 and signed_in.json() == {"success": True}
        assert user.get("/config").status_code == 200
    # another address guessing the same account: its first guess is checked (it could be
    # the user), the next waits for the account
    with client_from(slow_app, OTHER_ATTACKER) as other:
        assert _login(other, "guess-a").status_code == 400
        assert _login(other, "guess-b").status_code == 429
        # failing now, it waits for alice's account even with her password; not for bob's
        assert _login(other, "s3cret").status_code == 429
        assert _login(other, "pw", user="bob").status_code == 200


def test_guessing_the_auth_header_is_slowed_on_every_route_and_mcp(slow_app: str) -> None:
    with client_from(slow_app, ATTACKER) as attacker:
        statuses = []
        for n in range(GUESSES):
            guess = {AUTH_HEADER: f"alice:guess-{n}"}
            route = "gradio_api/mcp/" if n % 2 else "gradio_api/info"
            if n % 2:
                answer = attacker.post(route, json=TOOLS_LIST, headers={**MCP_HEADERS, **guess})
            else:
                answer = attacker.get(route, headers=guess)
            statuses.append(answer.status_code)
        assert statuses.count(401) == FREE + 1, statuses
        assert statuses.count(429) == GUESSES - FREE - 1, statuses
        right = {**MCP_HEADERS, AUTH_HEADER: "alice:s3cret"}
        assert attacker.post("gradio_api/mcp/", json=TOOLS_LIST, headers=right).status_code == 429
    with client_from(slow_app, USER) as user:
        right = {**MCP_HEADERS, AUTH_HEADER: "alice:s3cret"}
        listed = user.post("gradio_api/mcp/", json=TOOLS_LIST, headers=right)
        assert listed.status_code == 200 and "search" in listed.text


def _until_checked(client: httpx.Client, password: str) -> httpx.Response:
    """Try until the app checks the password again (the wait ended): its answer."""
    answers: list[httpx.Response] = []

    def checked() -> bool:
        answers.append(_login(client, password))
        return answers[-1].status_code != 429

    wait_for(checked, "the wait to end", 30)
    return answers[-1]


def test_each_wait_doubles_the_last_and_ends(
    service: Actions, launch_app: Callable[..., str], settings: Settings
) -> None:
    url = launch_app(service, parse_auth(SecretStr(ACCOUNTS)), _limited(settings, DELAY))
    waits: list[float] = []
    with client_from(url, ATTACKER) as attacker:
        for n in range(FREE + 1):  # the free failures and the one that starts the first wait
            assert _login(attacker, f"guess-{n}").status_code == 400
        for n in range(3):
            refused = _login(attacker, "guess")
            assert refused.status_code == 429
            waits.append(refused.json()["retry_after"])
            assert _until_checked(attacker, f"late-guess-{n}").status_code == 400
        assert 0 < waits[0] <= DELAY
        assert all(b > 1.6 * a for a, b in itertools.pairwise(waits)), waits
        # the wait is a delay, not a lock: once it ends, the right password works again
        assert _until_checked(attacker, "s3cret").status_code == 200
