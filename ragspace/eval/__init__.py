"""Evaluation: data sets, retrieval metrics, the runner and answer grading (knows no service)."""
