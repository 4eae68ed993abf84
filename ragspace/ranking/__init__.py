"""Ranking: plain Python over the candidate lists that search SQL returns (fusion, boosts,
selection), so that every rule is readable, unit-testable and swappable."""
