"""DNS rebinding on the web app's MCP route: a page on another site, its name pointed at
127.0.0.1, reaches an open loopback app with its own name as Host and its own Origin. The
route answers only the loopback names, as the standalone `ragspace mcp --http` does."""

from collections.abc import Callable
from urllib.parse import urlsplit

import httpx

from ragspace.actions import Actions
from tests.ui.test_access import MCP_HEADERS, TOOLS_LIST

LIST_DOCSETS = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "list_docsets", "arguments": {}},
}


def test_the_mcp_route_of_an_open_loopback_app_answers_only_its_own_names(
    service: Actions, launch_app: Callable[..., str]
) -> None:
    service.docsets.create("private-code")
    url = launch_app(service)  # no login, on 127.0.0.1: the default for a local app
    port = urlsplit(url).port
    endpoint = f"{url}gradio_api/mcp/"
    with httpx.Client(timeout=30) as client:
        for host in ("attacker.example", f"attacker.example:{port}", f"127.0.0.1.nip.io:{port}"):
            for body in (TOOLS_LIST, LIST_DOCSETS):
                rebound = client.post(endpoint, json=body, headers={**MCP_HEADERS, "Host": host})
                assert rebound.status_code == 421, (host, rebound.text[:200])
                assert "private-code" not in rebound.text
        # the page's own Origin, with the Host its browser sends after rebinding to loopback
        for origin in ("http://attacker.example", f"http://attacker.example:{port}", "null"):
            headers = {**MCP_HEADERS, "Host": f"127.0.0.1:{port}", "Origin": origin}
            foreign = client.post(endpoint, json=LIST_DOCSETS, headers=headers)
            assert foreign.status_code == 403, (origin, foreign.text[:200])
            assert "private-code" not in foreign.text
        # Gradio's other MCP routes under the same prefix: the SSE transport and its messages
        for route in ("sse", "messages/?session_id=0", "schema"):
            answer = client.get(f"{endpoint}{route}", headers={"Host": "attacker.example"})
            assert answer.status_code == 421, (route, answer.status_code)
        # the app's own names, with or without their Origin, still get the tools
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            scheme_host = f"http://{host}"
            for extra in ({}, {"Origin": scheme_host}):
                headers = {**MCP_HEADERS, "Host": host, **extra}
                listed = client.post(endpoint, json=LIST_DOCSETS, headers=headers)
                assert listed.status_code == 200 and "private-code" in listed.text, host
