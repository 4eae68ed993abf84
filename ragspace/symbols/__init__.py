"""Code symbols: a DocSet's definitions and references, as parsed and as stored."""
