"""One writer of a DocSet's documents, chunks and jobs at a time.

A sync, a worker finishing a document and a deletion each change several rows in one
transaction: the document, its queued job (one per document, a unique index), its chunks
and the per-DocSet counters the chunk triggers keep (`docset_terms`, `docset_lengths`).
Each statement locks its rows in a sound order, but two such transactions lock them in
different orders (a sync locks the document, then inserts its queued job; a keyword pass
requeues the job, then updates the document), and Postgres ends the cycle by failing one
of them with a deadlock. Taking this lock first, before any row lock, puts the writers of a
DocSet in a line; every chunk change already waited on the DocSet's counter rows, so little
parallelism is given up.
"""

from collections.abc import Sequence
from typing import Any

import psycopg

# advisory locks with two int4 keys are a key space of their own (the single-bigint locks
# of migrations and graph builds cannot collide with these); the first key names the use
_DOCSET_WRITES = 7_301
_INT4 = 2**31 - 1


def lock_docset_writes(conn: psycopg.Connection[Any], docset_id: int) -> None:
    """Wait for the DocSet's other writers; held until the caller's transaction ends."""
    # ids past int4 share a lock with another DocSet: that only serializes the two
    conn.execute("select pg_advisory_xact_lock(%s, %s)", (_DOCSET_WRITES, docset_id % _INT4))


def lock_writes_of_documents(conn: psycopg.Connection[Any], document_ids: Sequence[int]) -> None:
    """`lock_docset_writes` for every DocSet these documents belong to, in id order (two
    transactions locking several DocSets then cannot each hold one the other waits for)."""
    rows = conn.execute(
        "select distinct docset_id from documents where id = any(%s) order by 1",
        (list(document_ids),),
    ).fetchall()
    for row in rows:
        lock_docset_writes(conn, int(row[0]))
