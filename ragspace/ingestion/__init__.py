"""Ingestion: jobs claimed from the queue, chunked, embedded and swapped in; re-sync schedules."""
