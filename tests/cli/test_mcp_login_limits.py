"""Guessing the login of the standalone `ragspace mcp --http`: the same limiter as the web
app's, for `X-Ragspace-Auth` and the bearer token. The attacker is 127.0.0.1, the real user
127.0.0.2; the loop is bounded."""

from pathlib import Path

from ragspace.access import AUTH_HEADER
from tests.cli.test_mcp_command import INITIALIZE, running_http_server, server_env
from tests.ui.test_login_limits import ATTACKER, FREE, GUESSES, USER, client_from

ACCEPT = {"Accept": "application/json, text/event-stream"}


def test_guessing_the_standalone_servers_login_is_slowed(database_url: str, tmp_path: Path) -> None:
    env = server_env(
        database_url,
        tmp_path / "data",
        RAGSPACE_AUTH="ann:s3cret",
        RAGSPACE_LOGIN_FREE_FAILURES=str(FREE),
        RAGSPACE_LOGIN_DELAY_SECONDS="60",
    )
    with running_http_server(env) as url:
        with client_from(url, ATTACKER) as attacker:
            statuses = []
            for n in range(GUESSES):
                guess = (
                    {AUTH_HEADER: f"ann:guess-{n}"}
                    if n % 2
                    else {"Authorization": f"Bearer ann:guess-{n}"}
                )
                answer = attacker.post(url, json=INITIALIZE, headers={**ACCEPT, **guess})
                statuses.append(answer.status_code)
            assert statuses.count(401) == FREE + 1, statuses
            assert statuses.count(429) == GUESSES - FREE - 1, statuses
            right = {**ACCEPT, "Authorization": "Bearer ann:s3cret"}
            refused = attacker.post(url, json=INITIALIZE, headers=right)
            assert refused.status_code == 429 and int(refused.headers["retry-after"]) <= 60
            assert "Too many failed logins" in refused.json()["error"]
        with client_from(url, USER) as user:
            for header in ({AUTH_HEADER: "ann:s3cret"}, {"Authorization": "Bearer ann:s3cret"}):
                welcomed = user.post(url, json=INITIALIZE, headers={**ACCEPT, **header})
                assert welcomed.status_code == 200 and "serverInfo" in welcomed.text
