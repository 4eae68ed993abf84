"""The retrieval protocol of bench/quality_pool.py (issue 35), by step: the sets (sets.py),
indexing them (indexing.py), their questions' candidates (candidates.py, questions.py),
scoring rankings over them (scoring.py), choosing under leave-one-set-out (choice.py), the
protocol's rows (variants.py, protocol.py) and its tables (report.py)."""
