package shop

import scala.collection.mutable

/** A product on a shelf. */
case class Item(sku: String, quantity: Int)

trait Restocker {
  def restock(item: Item, amount: Int): Item
}

class Inventory extends Restocker {
  private val items = mutable.Map.empty[String, Item]

  def add(item: Item): Unit = {
    items(item.sku) = item
  }

  def restock(item: Item, amount: Int): Item = {
    val updated = item.copy(quantity = item.quantity + amount)
    items(item.sku) = updated
    updated
  }
}

object Inventory {
  def empty: Inventory = new Inventory

  def fromList(list: List[Item]): Inventory = {
    val inventory = new Inventory
    list.foreach(inventory.add)
    inventory
  }
}
