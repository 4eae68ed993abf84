"""Evaluation corpora: a data set's documents stored in a DocSet and embedded in this process.

`ragspace eval` (and the benchmarks) build the DocSet that holds a shared set's corpus through
these functions, so no front end drives the store or the ingestor itself.
"""

from collections.abc import Callable

from ragspace.eval.evaluation import Dataset
from ragspace.ingestion.worker import Ingestor
from ragspace.models import SourceKind
from ragspace.store import NewDocument, ReembedRequests, Store
from ragspace.text.hashing import content_hash

PROGRESS_EVERY = 25  # documents embedded between two progress lines


def store_corpus(store: Store, docset_name: str, dataset: Dataset) -> None:
    """Add the data set's documents (full paths) to a DocSet, pending embedding."""
    service_docset = store.docsets.named(docset_name)
    source = store.sources.create(service_docset.id, SourceKind.UPLOAD, dataset.name)
    store.documents.upsert(
        service_docset.id,
        source.id,
        [
            NewDocument(d.path, d.path, d.language, d.content, content_hash(d.content))
            for d in dataset.documents
        ],
    )


def ingest(store: Store, ingestor: Ingestor, docset_name: str, dataset: Dataset) -> int:
    """Store the data set's documents in an existing DocSet and embed them; the jobs run."""
    store_corpus(store, docset_name, dataset)
    return ingestor.process_all()


def embed_pending(
    store: Store, ingestor: Ingestor, docset_name: str, report: Callable[[int], None]
) -> int:
    """Run the pending jobs in this process; `report(documents with vectors)` every
    PROGRESS_EVERY documents. Returns how many jobs ran.

    With the keyword pass first a document takes two jobs (keyword pass, vector pass), so
    progress counts documents with their vectors, not jobs."""
    docset_id = store.docsets.named(docset_name).id
    requests = ReembedRequests(store.pool)
    jobs, reported = 0, 0
    while ingestor.process_next():
        jobs += 1
        done, _total = requests.docset_progress(docset_id)
        if done >= reported + PROGRESS_EVERY:
            reported = done - done % PROGRESS_EVERY
            report(done)
    return jobs
