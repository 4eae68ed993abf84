"""A small repository with Python and Go code, served by the fake GitHub and ingested."""

from dataclasses import dataclass

from ragspace.actions import Actions
from ragspace.chunking.chunker import Chunker
from ragspace.embedding.embedders import Embedder
from ragspace.ingestion.worker import Ingestor
from ragspace.models import SourceKind
from ragspace.store import Store
from tests.fakes.github_server import FakeGithub, FakeRepo
from tests.sources.test_github_source import make_service

PRICING = b'''"""Prices."""

TAX = 0.2


def total_price(items: list[tuple[str, float]]) -> float:
    """Sum of the prices with tax."""
    return with_tax(sum(price for _, price in items))


def with_tax(amount: float) -> float:
    """The amount with tax added."""
    return round(amount * (1 + TAX), 2)
'''
CART = b'''"""Shopping cart."""

from shop.pricing import total_price


class Cart:
    """A cart of items."""

    def __init__(self) -> None:
        self.items: list[tuple[str, float]] = []

    def add(self, name: str, price: float) -> None:
        """Add an item."""
        self.items.append((name, price))

    def checkout(self) -> float:
        """Pay for everything in the cart."""
        return total_price(self.items)
'''
TEST_CART = b"""from shop.cart import Cart
from shop.pricing import total_price


def test_checkout() -> None:
    cart = Cart()
    cart.add("pen", 1.0)
    assert cart.checkout() == total_price([("pen", 1.0)])
"""
SERVER_GO = b"""package server

// Server answers requests for the shop.
type Server struct {
	addr string
}

// Start listens on the server's address.
func (s *Server) Start() error {
	return listen(s.addr)
}

func listen(addr string) error {
	return nil
}
"""
SHOP = {
    "README.md": b"# Shop\n\nA tiny shop.\n",
    "src/shop/pricing.py": PRICING,
    "src/shop/cart.py": CART,
    "tests/test_cart.py": TEST_CART,
    "cmd/server.go": SERVER_GO,
}


@dataclass
class Shop:
    """A DocSet `shop` holding acme/shop at one commit, ingested by a real worker."""

    service: Actions
    ingestor: Ingestor
    repo: FakeRepo
    sha: str
    source_id: int


def ingested_shop(store: Store, embedder: Embedder, github: FakeGithub) -> Shop:
    repo = github.add_repo("acme", "shop", default_branch="main")
    sha = repo.commit(SHOP)
    service = make_service(store, embedder, github)
    service.docsets.create("shop")
    ingestor = Ingestor(store, Chunker(1200, 1000, 100), embedder)
    report = service.sources.add("shop", SourceKind.GITHUB_REPO, "acme/shop")
    assert ingestor.process_all() == len(SHOP)
    return Shop(service, ingestor, repo, sha, report.source_id)
