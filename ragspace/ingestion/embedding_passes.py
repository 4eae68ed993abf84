"""The embedding passes of an ingestion job: which one runs, and the quality pass's batches.

The keyword pass stores a new document's chunks without vectors, in milliseconds, so keyword
search finds it at once; the vector (quality) pass embeds what the cache lacks with the
configured model, in batches, recording progress and stopping as soon as the lease is lost.
"""

import threading
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from ragspace.embedding.embedders import Embedder, Vectors
from ragspace.ingestion.leases import LeaseLostError
from ragspace.models import ChunkDraft
from ragspace.store import ClaimedJob, JobQueue


def wants_keyword_pass(job: ClaimedJob, hashes: Sequence[str], cached: dict[str, Vectors]) -> bool:
    """A keyword pass first when the current content is not searchable yet and its vectors
    are not all in the cache (then the vector pass costs no more than it)."""
    if job.vector_tier is not None:  # already searchable: embed (or re-embed) directly
        return False
    return not all(h in cached for h in hashes)


def embeddable(chunks: list[ChunkDraft], embedder: Embedder) -> tuple[list[ChunkDraft], list[str]]:
    """Texts within the embedder's input limit; cut ones carry a note in their metadata."""
    limit: int | None = getattr(embedder, "max_input_chars", None)
    texts = [chunk.embedding_text for chunk in chunks]
    if limit is None:
        return chunks, texts
    kept: list[ChunkDraft] = []
    for index, (chunk, text) in enumerate(zip(chunks, texts, strict=True)):
        if len(text) > limit:
            note = (
                f"Only the first {limit:,} of {len(text):,} characters were embedded "
                f"({embedder.model_id} input limit)."
            )
            chunk = chunk.model_copy(update={"metadata": {**chunk.metadata, "note": note}})
            texts[index] = text[:limit]
        kept.append(chunk)
    return kept, texts


class QualityPass:
    """Embeds a job's uncached texts with the configured model, batch by batch."""

    def __init__(
        self, embedder: Embedder, jobs: JobQueue, batch_size: int, concurrency: int
    ) -> None:
        self._embedder = embedder
        self._jobs = jobs
        self._batch_size = batch_size
        self._concurrency = concurrency

    def embed_missing(
        self,
        job: ClaimedJob,
        hashes: Sequence[str],
        texts: Sequence[str],
        cached: dict[str, Vectors],
        lost: threading.Event,
    ) -> dict[str, Vectors]:
        """Embed each uncached text once, in batches, recording progress before the first
        and after each but the last (the job's completion records that)."""
        todo: dict[str, str] = {}
        for digest, text in zip(hashes, texts, strict=True):
            if digest not in cached:
                todo.setdefault(digest, text)
        weight = Counter(hashes)
        done = len(hashes) - sum(weight[h] for h in todo)
        self._jobs.set_progress(job, done, len(hashes))
        keys = list(todo)
        size = self._batch_size
        batches = [keys[i : i + size] for i in range(0, len(keys), size)]
        fresh: dict[str, Vectors] = {}

        def embed(batch: list[str]) -> Vectors:
            if lost.is_set():
                raise LeaseLostError(job.path)
            return self._embedder.embed([todo[h] for h in batch])

        with ThreadPoolExecutor(max(1, self._concurrency)) as pool:
            for batch, vectors in zip(batches, pool.map(embed, batches), strict=True):
                fresh.update(zip(batch, vectors, strict=True))
                done += sum(weight[h] for h in batch)
                if done < len(hashes):  # the last batch's count is the job's completion
                    self._jobs.set_progress(job, done, len(hashes))
        return fresh
