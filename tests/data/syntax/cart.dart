import 'dart:math';

/// An item in a shopping cart.
class CartItem {
  final String name;
  final double price;
  int quantity;

  CartItem(this.name, this.price, {this.quantity = 1});

  double get total => price * quantity;
}

mixin Discountable {
  double discount(double amount, double rate) {
    return amount * (1 - rate);
  }
}

class Cart with Discountable {
  final List<CartItem> _items = [];

  void add(CartItem item) {
    _items.add(item);
  }

  double subtotal() {
    return _items.fold(0, (sum, item) => sum + item.total);
  }
}

double roundPrice(double value) {
  return (value * 100).round() / 100;
}

void main() {
  final cart = Cart()..add(CartItem('tea', 3.5, quantity: 2));
  print(roundPrice(cart.subtotal()));
}
