"""Search: a question embedded, the store's candidates ranked, the relevance floor applied."""
