"""Whole documents' BM25 (the document side, read by document_side.py) lifts their chunks:
a file about the question as a whole rises even when no single chunk says it all."""

from typing import cast

from bench.experiments.tried_signals.options import TriedOptions
from ragspace.ranking.candidates import Side
from ragspace.ranking.file_lift import lift_documents
from ragspace.ranking.offer import Offer

# the document side's evidence key in a candidate (the saved candidates' "document"); the
# app's store offers no such side, so it is no member of Side
DOCUMENT = cast(Side, "document")


def whole_documents(offer: Offer, scores: dict[int, float], options: TriedOptions) -> None:
    """Each scored document's chunks (its best one, with `lift_best_chunk`) gain
    `document_weight` x the document's 0-1 score, in place."""
    if options.document_weight:  # the document side offers each document by one chunk
        per_document = offer.documents_scaled(DOCUMENT, options.scaling)
        lift_documents(
            offer, scores, per_document, options.document_weight, options.lift_best_chunk
        )
