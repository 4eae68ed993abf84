"""Issue 70: should a vector pass write its vectors into its keyword pass's rows in place?

Every new document gets a keyword pass (chunks without vectors) and then a vector pass over
the same content. Until this experiment the vector pass deleted the keyword pass's rows and
copied them in again with their vectors, so every chunk's full-text vector, its GIN entries
and BM25's statistics (`docset_terms`, `docset_lengths`: every lexeme taken away and added
back) were computed twice. Now (`chunk_rows.fill_vectors`) it updates the `embedding` column
of the same rows when they hold exactly the chunks it has, and the statistics triggers skip
rows whose text an UPDATE left alone (migration 20261208000000).

Here, on a SWE-QA pool checkout: each document's keyword pass, then its vector pass either
in place (`new`) or swapping the rows (`old`: `fill_vectors` made to decline), the two kinds
alternating from one document to the next and from run to run, summed per run over the
documents, after one warm-up run. The embedder returns a constant vector, so the time is
the pass's own work (claim, chunking, the write), not the model's.

Usage (from the repository root):
    python bench/experiments/vector_pass_in_place.py [--checkout pytest] [--runs 3]
"""

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from experiments.vector_pass_symbols import vector_pass_seconds

import ragspace.store.chunk_rows as chunk_rows_module

IN_PLACE = chunk_rows_module.fill_vectors


def swap_always(before: bool) -> None:
    """Switch the vector pass between writing in place and swapping the rows as before."""

    def decline(*_args: Any) -> bool:
        return False

    setattr(chunk_rows_module, "fill_vectors", decline if before else IN_PLACE)  # noqa: B010


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--checkout", default="pytest")
    options.add_argument("--runs", type=int, default=3)
    args = options.parse_args()
    totals = vector_pass_seconds(args.checkout, args.runs, swap_always)
    saved = [old - new for old, new in zip(totals["old"], totals["new"], strict=True)]
    print(
        f"{args.checkout}: vector passes"
        f" swapping the rows {statistics.median(totals['old']):.3f} s"
        f" (runs {', '.join(f'{t:.2f}' for t in totals['old'])}),"
        f" in place {statistics.median(totals['new']):.3f} s"
        f" (runs {', '.join(f'{t:.2f}' for t in totals['new'])}),"
        f" saved (median of the runs' differences) {statistics.median(saved):.3f} s"
    )


if __name__ == "__main__":
    main()
