"""The symbol table's links between files (store/symbol_links.py), read from a real DocSet."""

import pytest

from ragspace.store import Store
from ragspace.store.symbol_links import MAX_DEFINERS, symbol_links


def _ids(store: Store) -> dict[str, int]:
    with store.pool.connection() as conn:
        rows = conn.execute("select path, id from documents").fetchall()
    return {path.rsplit("/", 1)[-1]: document for path, document in rows}


@pytest.mark.usefixtures("shop")
def test_files_are_linked_where_one_uses_a_name_the_other_defines(store: Store) -> None:
    ids = _ids(store)
    cart, pricing, test = ids["cart.py"], ids["pricing.py"], ids["test_cart.py"]
    every = set(ids.values())
    links = store.symbol_links(every, every)  # every document a seed: every link
    # cart.py calls total_price, defined in pricing.py alone: one name, weight 1, both ways
    assert links[cart][pricing] == links[pricing][cart] == 1.0
    # the test uses Cart, add and checkout (cart.py) and total_price (pricing.py)
    assert links[test] == {cart: 3.0, pricing: 1.0}
    # the Go server and the README share no name with anything
    assert ids["server.go"] not in links and ids["README.md"] not in links
    # only the documents asked about are linked, and one alone has no links
    pair = {cart: {test: 3.0}, test: {cart: 3.0}}
    assert symbol_links(store.pool, {cart, test}, {cart, test}) == pair
    assert store.symbol_links({cart}, {cart}) == {}
    # with pricing.py the one seed, the cart and the test are linked to it, not to each other
    assert store.symbol_links({pricing}, every) == {
        pricing: {cart: 1.0, test: 1.0},
        cart: {pricing: 1.0},
        test: {pricing: 1.0},
    }


@pytest.mark.usefixtures("shop")
def test_a_name_many_files_define_links_nothing(store: Store) -> None:
    ids = _ids(store)
    cart, pricing = ids["cart.py"], ids["pricing.py"]
    with store.pool.connection() as conn:  # total_price defined in more files than counts
        docset = conn.execute("select docset_id from documents where id = %s", (cart,))
        docset_id = docset.fetchone()[0]  # type: ignore[index]
        for n in range(MAX_DEFINERS):
            conn.execute(
                "insert into symbol_definitions (document_id, docset_id, name, qualified_name,"
                " kind, start_line, end_line) values (%s, %s, 'total_price', 'total_price',"
                " 'function', %s, %s)",
                (ids["server.go"] if n == 0 else ids["README.md"], docset_id, n + 1, n + 1),
            )
    every = set(ids.values())
    assert pricing not in store.symbol_links(every, every).get(cart, {})
