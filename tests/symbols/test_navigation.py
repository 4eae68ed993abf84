"""Navigating code from the symbol table: the actions, chat's "where is X defined" and
"what calls X", the CLI's `symbols` and `map`, the MCP tools (over streamable HTTP with a
login)."""

import json
import re
from collections.abc import Callable

import httpx
import pytest

from ragspace.access import AUTH_HEADER, Credentials
from ragspace.embedding.embedders import Embedder
from ragspace.errors import NotFoundError, ValidationError
from ragspace.links import LineLink
from ragspace.models import Message, SearchQuery
from ragspace.runtime import build_actions
from ragspace.settings import load_settings
from ragspace.store import Store
from ragspace.symbols.questions import SymbolQuestion, symbol_question
from ragspace_mcp import symbol_tools as mcp_symbol_tools
from ragspace_ui.chat_tab import answer_turns, open_source
from ragspace_ui.viewer import open_line_link
from tests.cli.test_cli import Run, cli  # noqa: F401 (the `cli` fixture)
from tests.fakes.chat_server import FakeChat, chat_model_of
from tests.symbols.shop import Shop
from tests.ui.test_mcp import call, result_json

PRICING = "acme/shop/src/shop/pricing.py"


def blob(shop: Shop, path: str, lines: str) -> str:
    return f"https://github.com/acme/shop/blob/{shop.sha}/{path}#{lines}"


def test_definitions_by_plain_dotted_and_module_qualified_name(shop: Shop) -> None:
    symbols = shop.service.symbols
    [total] = symbols.definitions("total_price", ["shop"])
    assert (total.path, total.start_line, total.end_line, total.kind) == (PRICING, 6, 8, "function")
    assert total.signature == "def total_price(items: list[tuple[str, float]]) -> float"
    assert total.doc == "Sum of the prices with tax."
    assert total.content.startswith("def total_price(") and total.resolved_sha == shop.sha
    [method] = symbols.definitions("Cart.checkout", ["shop"])
    assert (method.qualified_name, method.kind, method.start_line) == (
        "Cart.checkout",
        "method",
        16,
    )
    assert symbols.definitions("shop.pricing.total_price") == [total]  # all DocSets
    assert symbols.definitions("cart.total_price", ["shop"]) == []  # not in cart.py
    assert symbols.definitions("TOTAL_PRICE", ["shop"]) == [total]  # case-insensitive fallback
    [start] = symbols.definitions("Server::Start()", ["shop"])
    assert (start.qualified_name, start.doc) == (
        "Server.Start",
        "Start listens on the server's address.",
    )
    with pytest.raises(ValidationError, match="not a symbol name"):
        symbols.definitions("total price", ["shop"])
    with pytest.raises(NotFoundError):
        symbols.definitions("total_price", ["ghost"])


def test_references_say_where_each_use_sits(shop: Shop) -> None:
    found = shop.service.symbols.references("total_price", ["shop"])
    assert found.total == 2
    assert [(p.path, p.start_line, p.qualified_name, p.kind) for p in found.places] == [
        ("acme/shop/src/shop/cart.py", 18, "Cart.checkout", "call"),
        ("acme/shop/tests/test_cart.py", 8, "test_checkout", "call"),
    ]
    assert found.places[0].content.strip() == "return total_price(self.items)"
    assert shop.service.symbols.references("total_price", ["shop"], limit=1).total == 2


def test_navigation_questions_are_recognised() -> None:
    assert symbol_question("Where is `url_for` defined?") == SymbolQuestion("definition", "url_for")
    assert symbol_question("where is the class Session defined") == SymbolQuestion(
        "definition", "Session"
    )
    assert symbol_question("Which file is Session.request implemented in?") == SymbolQuestion(
        "definition", "Session.request"
    )
    assert symbol_question("Where is the `Flask` class defined?") == SymbolQuestion(
        "definition", "Flask"
    )
    assert symbol_question("where is the definition of url_for") == SymbolQuestion(
        "definition", "url_for"
    )
    assert symbol_question("What calls send()?") == SymbolQuestion("references", "send")
    assert symbol_question("Which tests use the make_app function?") == SymbolQuestion(
        "references", "make_app"
    )
    assert symbol_question("Find all usages of ns::Widget") == SymbolQuestion(
        "references", "ns.Widget"
    )
    assert symbol_question("Where is the database configured?") is None
    assert symbol_question("How are widgets made?") is None


def test_chat_answers_where_defined_and_what_calls_from_the_table_with_pinned_links(
    shop: Shop,
) -> None:
    answer = shop.service.answers.answer(
        SearchQuery(question="Where is total_price defined?", docsets=("shop",))
    )
    assert "`total_price` is defined once" in answer.text
    [citation] = answer.citations
    assert citation.url == blob(shop, "src/shop/pricing.py", "L6-L8")
    assert (citation.ref, citation.resolved_sha) == ("main", shop.sha) or citation.ref is None
    calls = shop.service.answers.answer(
        SearchQuery(question="What calls total_price?", docsets=("shop",))
    )
    assert "referenced 2 times" in calls.text and "Cart.checkout" in calls.text
    assert [c.url for c in calls.citations] == [
        blob(shop, "src/shop/cart.py", "L18"),
        blob(shop, "tests/test_cart.py", "L8"),
    ]
    # a name the table does not know goes to search as before
    other = shop.service.answers.answer(
        SearchQuery(question="Where is frobnicate defined?", docsets=("shop",))
    )
    assert "frobnicate` is defined" not in other.text


def test_search_answers_navigation_questions_with_the_places_the_table_gives(
    shop: Shop,
) -> None:
    """`search` (CLI, MCP, HTTP) for "what calls X" returns the callers, as `ask` lists
    them, not X's definition ranked first by its name."""
    search = shop.service.search
    callers = search.hits(SearchQuery(question="What calls total_price?", docsets=("shop",)))
    assert [
        (h.path, h.start_line <= line <= h.end_line)
        for h, line in zip(callers, (18, 8), strict=True)
    ] == [("acme/shop/src/shop/cart.py", True), ("acme/shop/tests/test_cart.py", True)]
    [definition] = search.hits(
        SearchQuery(question="Where is total_price defined?", docsets=("shop",), limit=1)
    )
    assert definition.path == PRICING and definition.start_line <= 6 <= definition.end_line


def test_a_follow_up_is_answered_about_the_subject_of_the_question_before(shop: Shop) -> None:
    history: tuple[Message, ...] = (
        {"role": "user", "content": "What does total_price return?"},
        {"role": "assistant", "content": "The sum of the prices with tax [1]."},
    )
    answer = shop.service.answers.answer(
        SearchQuery(question="And where is it defined?", docsets=("shop",), history=history)
    )
    assert answer.text.startswith("_Read as: Where is total\\_price defined?_")
    assert "`total_price` is defined once" in answer.text
    assert answer.notes[0] == "Read as: Where is total_price defined?"
    [citation] = answer.citations
    assert citation.url == blob(shop, "src/shop/pricing.py", "L6-L8")


def test_repo_map_ranks_the_most_referenced_first_within_the_budget(shop: Shop) -> None:
    full = shop.service.symbols.repo_map("shop", 2000)
    lines = full.text.splitlines()
    # total_price is used twice, the most of any definition: its file leads
    assert lines[:3] == [
        f"{PRICING}:",
        "  6: def total_price(items: list[tuple[str, float]]) -> float",
        "  11: def with_tax(amount: float) -> float",
    ]
    # a method is shown under its type, one level further in
    assert "  4: Server struct" in lines and "    9: func (s *Server) Start() error" in lines
    assert not full.truncated and full.files_total == 4  # README has no definitions
    small = shop.service.symbols.repo_map("shop", 45)  # room for one file and definition
    assert small.truncated and small.tokens <= 45
    assert small.text.splitlines() == full.text.splitlines()[:2]


def test_cli_symbols_and_map(shop: Shop, cli: Run) -> None:  # noqa: F811
    found = cli("symbols", "shop", "total_price")
    assert found.code == 0
    assert f"{PRICING}:6-8  function total_price" in found.out
    assert blob(shop, "src/shop/pricing.py", "L6-L8") in found.out
    uses = cli("symbols", "shop", "total_price", "--refs", "--json")
    data = json.loads(uses.out)
    assert data["total"] == 2 and data["places"][0]["qualified_name"] == "Cart.checkout"
    shown = cli("map", "shop", "--tokens", "500")
    assert shown.code == 0 and "pricing.py:" in shown.out and "total_price" in shown.out
    missing = cli("symbols", "ghost", "x")
    assert missing.code != 0 and "ghost" in missing.err


def test_mcp_tools_return_pinned_locations(shop: Shop) -> None:
    data = json.loads(mcp_symbol_tools.find_definition(shop.service, "with_tax", ["shop"]))
    [definition] = data["definitions"]
    assert definition["url"] == blob(shop, "src/shop/pricing.py", "L11-L13")
    assert (definition["start_line"], definition["end_line"]) == (11, 13)
    assert definition["doc"] == "The amount with tax added."
    uses = json.loads(mcp_symbol_tools.find_references(shop.service, "with_tax", k=5))
    assert uses["total"] == 1 and uses["references"][0]["in"] == "total_price"
    mapped = json.loads(mcp_symbol_tools.repo_map(shop.service, "shop", max_tokens=100))
    assert mapped["map"] and mapped["tokens"] <= 100


def test_find_definition_over_streamable_http_with_a_login(
    shop: Shop, launch_app: Callable[..., str]
) -> None:
    url = launch_app(shop.service, Credentials((("alice", "s3cret"),)))
    arguments = {"name": "Cart", "docsets": ["shop"]}
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    refused = httpx.post(  # the login guard answers before MCP does
        f"{url.rstrip('/')}/gradio_api/mcp/",
        json=request | {"params": {"name": "find_definition", "arguments": arguments}},
        headers={"accept": "application/json, text/event-stream", AUTH_HEADER: "alice:wrong"},
        timeout=10,
    )
    assert refused.status_code == 401 and "requires a login" in refused.text
    data = result_json(
        call(url, "find_definition", arguments, headers={AUTH_HEADER: "alice:s3cret"})
    )
    [cart] = data["definitions"]
    assert (cart["path"], cart["start_line"], cart["kind"]) == (
        "acme/shop/src/shop/cart.py",
        6,
        "class",
    )
    assert cart["view_url"].startswith(url.rstrip("/") + "/?")


def test_an_architecture_question_without_a_model_is_answered_from_the_repo_map(
    shop: Shop,
) -> None:
    answer = shop.service.answers.answer(
        SearchQuery(question="Give me an overview of the architecture", docsets=("shop",))
    )
    head, _, rest = answer.text.partition("```\n")
    assert head.startswith("How the code is organised, from the repository map")
    repo_map = rest.split("\n```", 1)[0]
    assert repo_map.startswith("DocSet shop:") and "total_price" in repo_map
    other = shop.service.answers.answer(
        SearchQuery(question="What does total_price return?", docsets=("shop",))
    )
    assert "repository map" not in other.text


@pytest.mark.usefixtures("shop")
def test_a_chat_model_gets_the_repo_map_for_architecture_questions_only(
    store: Store, embedder: Embedder, fake_chat: FakeChat
) -> None:
    fake_chat.reply = lambda _request: "Pricing sits apart from the cart [1]."
    actions = build_actions(
        load_settings(None, rerank=False), store, embedder, chat=chat_model_of(fake_chat)
    )
    actions.answers.answer(
        SearchQuery(question="What is the overall architecture of the shop?", docsets=("shop",))
    )
    prompt = fake_chat.prompt_of()
    assert "<repo_map>" in prompt and "never cite it" in prompt
    assert f"DocSet shop:\n{PRICING}:\n  6: def total_price(" in prompt
    assert prompt.index("<repo_map>") < prompt.index("Passages:")
    actions.answers.answer(SearchQuery(question="How is tax added to a price?", docsets=("shop",)))
    assert "<repo_map>" not in fake_chat.prompt_of()
    # a question that only looks like navigation ("the checkout flow") goes to search
    actions.answers.answer(
        SearchQuery(question="Where is the checkout flow implemented?", docsets=("shop",))
    )
    assert "Passages:" in fake_chat.prompt_of()


def test_the_viewer_links_identifiers_lists_uses_and_outlines(shop: Shop) -> None:
    cart = open_line_link(
        shop.service, LineLink("shop", "acme/shop/src/shop/cart.py", 16, 18, "main")
    )
    to_pricing = (
        "?docset=shop&amp;path=acme%2Fshop%2Fsrc%2Fshop%2Fpricing.py&amp;lines=6-8&amp;ref=main"
    )
    assert f'<a class="rs-sym" href="{to_pricing}"' in cart
    assert re.search(
        rf'href="{re.escape(to_pricing)}"[^>]*><span class="n">total_price</span></a>', cart
    )
    assert "Outline (4)" in cart and "method Cart.checkout" in cart
    pricing = open_line_link(shop.service, LineLink("shop", PRICING, 6, 8, "main"))
    uses = pricing[
        pricing.index('class="rs-refs"') : pricing.index("</div>", pricing.index("rs-refs"))
    ]
    assert "<code>total_price</code> is used 2 times" in uses
    assert "cart.py:18 (Cart.checkout)" in uses and "test_cart.py:8 (test_checkout)" in uses
    readme = open_line_link(shop.service, LineLink("shop", "acme/shop/README.md", 1, 3, "main"))
    assert "rs-sym" not in readme and "Outline" not in readme


def test_lookups_take_a_ref_like_search(shop: Shop) -> None:
    [found] = shop.service.symbols.definitions("with_tax", ["shop"], ref="main")
    assert (found.ref, found.resolved_sha) == ("main", shop.sha)
    with pytest.raises(NotFoundError, match="v9"):
        shop.service.symbols.references("with_tax", ["shop"], ref="v9")


def test_the_chat_tab_shows_a_table_answer_and_opens_its_source_with_links(shop: Shop) -> None:
    *_, last = answer_turns(
        shop.service, "Where is Cart.checkout defined?", [], ["shop"], "hybrid", False
    )
    chat, panel, openable = last
    assert "`Cart.checkout` is defined once" in chat[-1]["content"]
    assert "cart.py" in panel
    shown = open_source(shop.service, 1, openable)
    assert "cart.py" in shown and "Pay for everything in the cart." in shown
    assert 'class="rs-sym"' in shown  # total_price, called in the method, links to pricing.py
