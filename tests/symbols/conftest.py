"""The `shop` fixture: acme/shop ingested into the DocSet `shop`."""

import pytest

from ragspace.embedding.embedders import Embedder
from ragspace.store import Store
from tests.fakes.github_server import FakeGithub
from tests.symbols.shop import Shop, ingested_shop


@pytest.fixture
def shop(store: Store, embedder: Embedder, github: FakeGithub) -> Shop:
    """acme/shop at one commit in the DocSet `shop`, embedded by a real worker."""
    return ingested_shop(store, embedder, github)
