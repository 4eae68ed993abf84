"""Ranking's signals, one module each, each with one function: the fusion that gives every
candidate its first score, then the evidence that lifts or lowers it. `ranker.SIGNALS` lists
them in the order they apply (the order matters for the numbers: boosts add fractions of
one best score, factors multiply); RankingOptions holds each one's option."""
