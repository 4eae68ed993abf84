package com.example.shop.orders;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Places and cancels orders against an injected repository.
 */
public class OrderService {

    private final OrderRepository repository;
    private final PriceCalculator calculator;

    public OrderService(OrderRepository repository, PriceCalculator calculator) {
        this.repository = repository;
        this.calculator = calculator;
    }

    /**
     * Creates an order for the given lines and stores it.
     */
    public Order place(String customerId, List<OrderLine> lines) {
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("An order needs at least one line");
        }
        BigDecimal total = calculator.total(lines);
        Order order = new Order(customerId, new ArrayList<>(lines), total);
        repository.save(order);
        return order;
    }

    public boolean cancel(String orderId) {
        Optional<Order> order = repository.find(orderId);
        if (order.isEmpty() || order.get().isShipped()) {
            return false;
        }
        repository.delete(orderId);
        return true;
    }

    @Override
    public String toString() {
        return "OrderService[" + repository + "]";
    }

    public interface OrderRepository {
        void save(Order order);

        Optional<Order> find(String orderId);

        void delete(String orderId);
    }

    enum Status {
        NEW,
        PAID,
        SHIPPED
    }
}
