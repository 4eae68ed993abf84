"""A small inventory model used by the chunking tests."""

from dataclasses import dataclass, field


@dataclass
class Item:
    """One stock-keeping unit."""

    sku: str
    name: str
    quantity: int = 0
    tags: list[str] = field(default_factory=list)

    def restock(self, amount: int) -> None:
        """Add `amount` units to the shelf."""
        if amount <= 0:
            raise ValueError(f"restock amount must be positive, got {amount}")
        self.quantity += amount

    def take(self, amount: int) -> int:
        """Remove up to `amount` units; returns how many were taken."""
        taken = min(amount, self.quantity)
        self.quantity -= taken
        return taken


class Inventory:
    """Items by SKU with simple reporting."""

    def __init__(self) -> None:
        self._items: dict[str, Item] = {}

    def add(self, item: Item) -> None:
        """Register an item, merging quantities when the SKU exists."""
        existing = self._items.get(item.sku)
        if existing is None:
            self._items[item.sku] = item
        else:
            existing.restock(item.quantity)

    def low_stock(self, threshold: int = 5) -> list[Item]:
        """Items at or below the threshold, lowest first."""
        low = [item for item in self._items.values() if item.quantity <= threshold]
        return sorted(low, key=lambda item: (item.quantity, item.sku))

    @property
    def total_units(self) -> int:
        """Units across every item."""
        return sum(item.quantity for item in self._items.values())


def parse_line(line: str) -> Item:
    """An item from a `sku,name,quantity` CSV line."""
    sku, name, quantity = (part.strip() for part in line.split(","))
    return Item(sku=sku, name=name, quantity=int(quantity))


async def load_remote(client, url: str) -> list[Item]:
    """Fetch a CSV export and parse every non-empty line."""
    response = await client.get(url)
    response.raise_for_status()
    return [parse_line(line) for line in response.text.splitlines() if line.strip()]
