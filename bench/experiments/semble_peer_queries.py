"""semble's own figures per question on semble-dev, for comparing rankings question by question
(issue 68): its BM25 alone (no code ranking) and BM25 with its ranking (alpha = 0, as
semble_peer.py). Runs in the peer's virtualenv, not the project's:

    PEER_VENV/bin/python bench/experiments/semble_peer_queries.py --corpus CORPUS \
        --tokenizer ragspace/data/minilm-tokenizer.json --out peer-questions.jsonl

Each line: repo, question id, and per variant the NDCG@10, the first relevant rank and the
top 10 (path, start line, end line).
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve()
SEMBLE_DEV = next(
    p / "shared/eval/semble-dev" for p in HERE.parents if (p / "shared/eval").is_dir()
)
sys.path.insert(0, str(SEMBLE_DEV))
from score_semble import first_hit_rank, load_questions, semble_ndcg  # noqa: E402
from semble_peer import stand_in_model  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--tokenizer", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--repo", action="append")
    args = parser.parse_args()
    from semble import SembleIndex

    repos = args.repo or sorted(p.name for p in args.corpus.iterdir() if p.is_dir())
    model_dir = stand_in_model(args.tokenizer, Path(tempfile.mkdtemp()) / "stand-in-m2v")
    with args.out.open("w") as out:
        for repo in repos:
            index = SembleIndex.from_path(args.corpus / repo, model_path=str(model_dir))
            for q in load_questions(SEMBLE_DEV / f"{repo}.jsonl"):
                row = {"repo": repo, "id": q["id"], "question": q["question"]}
                for name, rerank in (("bm25", False), ("peer", True)):
                    results = index.search(q["question"], top_k=10, alpha=0.0, rerank=rerank)
                    hits = [
                        (r.chunk.file_path, r.chunk.start_line, r.chunk.end_line) for r in results
                    ]
                    row[name] = {
                        "ndcg@10": semble_ndcg(hits, q["targets"], 10),
                        "rank": first_hit_rank(hits, q["targets"]),
                        "top": hits,
                    }
                out.write(json.dumps(row) + "\n")
            print(repo, file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
