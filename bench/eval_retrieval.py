"""Retrieval quality per mode on both evaluation sets: a thin wrapper around `ragspace eval`.

Run: python bench/eval_retrieval.py [--out results.json] [--data-dir DIR] [-- extra eval options]
Same as `ragspace eval --data-dir <throwaway folder> ../shared/eval/claude-docs
../shared/eval/codebase [--json results.json]`: a throwaway embedded Postgres unless
--data-dir is given (then its DocSets are reused), both corpora ingested with the
default chunker and the configured embedder, every question searched in every mode.
Data: anthropic-cookbook (MIT).
"""

import argparse
import sys
import tempfile
from pathlib import Path

from ragspace_cli.main import main as ragspace_main

# ../shared/eval next to the checkout (also found from a worktree one level deeper)
EVAL_DIR = next(
    (p / "shared" / "eval" for p in Path(__file__).resolve().parents if (p / "shared").is_dir()),
    Path("../shared/eval"),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--eval-dir", type=Path, default=EVAL_DIR)
    parser.add_argument("--out", type=Path, help="also write the JSON report here")
    parser.add_argument("--data-dir", type=Path, help="keep the database here, reuse DocSets")
    parser.add_argument("extra", nargs="*", help="passed on to `ragspace eval`")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        argv = ["eval", "--data-dir", str(args.data_dir or folder), *args.extra]
        argv += [str(args.eval_dir / "claude-docs"), str(args.eval_dir / "codebase")]
        if args.out:
            argv += ["--json", str(args.out)]
        return ragspace_main(argv)


if __name__ == "__main__":
    sys.exit(main())
