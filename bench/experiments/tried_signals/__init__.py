"""Ranking signals the retrieval protocol tried and left off (docs/benchmarks.md, "Retrieval
quality"): each a module with one function, as the app's (ragspace/ranking/signals/), with
its option in TriedOptions. `ranking.TRIED` lists them among the app's signals in the order
they applied when they were the app's, so bench/quality_pool.py keeps scoring them on every
set; one that wins on new sets moves back to ragspace/ranking/signals/ (docs/architecture.md,
"Ranking as a list of signals").
"""
