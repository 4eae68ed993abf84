"""Answers without a key: do their lead sentences hold the reference answer?

For each question of the shared documentation set (`claude-docs`, 100 questions with a
reference answer written by the set's authors) this asks the DocSet with no chat model,
like the app without a key, takes the passages the extractive answer is built from, and
picks each top passage's lead sentence with two rules side by side:
- `words`: the sentence sharing most question words (ties: the first sentence);
- `words+pairs`: the same, ties broken by the question's word pairs found in order
  (`ragspace.answering.focus.lead`).
It prints, per rule, over the questions:
- answer-word recall of the first lead / of all leads (share of the reference answer's
  words, stemmed, stop words left out, that the lead sentences hold), mean;
- the share of first leads taken from a passage that overlaps a gold section.
The script reads passages through the actions, so run from another checkout it measures
that checkout's passages with the same two rules (`PYTHONPATH=OLD python bench/...`).

Run (the first command builds the corpora into DIR; later runs reuse them):
    ragspace eval --data-dir DIR --modes hybrid ../shared/eval/claude-docs
    python bench/experiments/lead_quality.py --data-dir DIR
"""

import argparse
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: shared helpers
from app_harness import default_eval_dir

from ragspace.answering.focus import is_prose_passage, sentences
from ragspace.embedding.embedders import LocalEmbedder
from ragspace.eval.evaluation import EvalQuery, Gold, Span, load_claude_docs
from ragspace.models import Passage, SearchQuery
from ragspace.runtime import build_actions
from ragspace.settings import load_settings
from ragspace.store import Database, Store
from ragspace.text.terms import term_pairs, terms

EVAL_DIR = default_eval_dir()  # shared/eval above the checkout or worktree
DOCSET = "eval-claude-docs"
LEAD_PASSAGES = 3

Rule = Callable[[str, str], tuple[int, ...]]


def words(sentence: str, question: str) -> tuple[int, ...]:
    return (len(terms(question) & terms(sentence)),)


def words_pairs(sentence: str, question: str) -> tuple[int, ...]:
    return (
        len(terms(question) & terms(sentence)),
        len(term_pairs(question) & term_pairs(sentence)),
    )


RULES: dict[str, Rule] = {"words": words, "words+pairs": words_pairs}


def lead(passage: Passage, question: str, rule: Rule) -> str | None:
    """The passage's lead sentence by a rule (ties: the first), if it shares a word."""
    scored = [(rule(s, question), -i, s) for i, s in enumerate(sentences(passage.content))]
    if not scored:
        return None
    best, _, text = max(scored)
    return text if best[0] else None


def recall(answer: str, text: str) -> float:
    wanted = terms(answer)
    return len(wanted & terms(text)) / len(wanted) if wanted else 0.0


def in_gold(passage: Passage, gold: Sequence[Gold]) -> bool:
    return any(
        isinstance(g, Span) and g.overlaps(passage.path, passage.start_line, passage.end_line)
        for g in gold
    )


def measure(queries: Sequence[EvalQuery], asked: Sequence[list[Passage]]) -> None:
    print(f"{len(queries)} questions, leads from the top {LEAD_PASSAGES} prose passages\n")
    print("| rule | answer-word recall, first lead | all leads | first lead in gold |")
    print("|---|---:|---:|---:|")
    for name, rule in RULES.items():
        first_recall: list[float] = []
        all_recall: list[float] = []
        gold_first: list[bool] = []
        for query, passages in zip(queries, asked, strict=True):
            leads = [
                (p, found)
                for p in passages[:LEAD_PASSAGES]
                if is_prose_passage(p) and (found := lead(p, query.text, rule)) is not None
            ]
            if not leads:
                first_recall.append(0.0)
                all_recall.append(0.0)
                gold_first.append(False)
                continue
            first_recall.append(recall(query.answer, leads[0][1]))
            all_recall.append(recall(query.answer, " ".join(text for _, text in leads)))
            gold_first.append(in_gold(leads[0][0], query.gold))
        print(
            f"| {name} | {statistics.mean(first_recall):.3f} | {statistics.mean(all_recall):.3f}"
            f" | {sum(gold_first) / len(gold_first):.2f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--eval-dir", type=Path, default=EVAL_DIR)
    args = parser.parse_args()
    dataset = load_claude_docs(args.eval_dir / "claude-docs")
    settings = load_settings(env_file=None, data_dir=args.data_dir, openai_api_key=None)
    database = Database.open(settings)
    try:
        actions = build_actions(settings, Store(database.pool), LocalEmbedder())
        asked = []
        for query in dataset.queries:
            *_, last = actions.answers.ask(SearchQuery(question=query.text, docsets=(DOCSET,)))
            asked.append(list(last.answer.passages) if last.answer else [])
    finally:
        database.close()
    measure(dataset.queries, asked)


if __name__ == "__main__":
    main()
