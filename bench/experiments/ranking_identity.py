"""Does a change to ranking's code leave every ranking as it was? (issue 65: ranking as a list
of signals, the tried ones moved to bench/experiments/tried_signals/.)

Over a saved pool (`bench/quality_pool.py candidates`: real candidates from the real store),
each question is ranked under many options (the shipped ones, fusion alone, each signal on
at a few values on top of both, every tried signal at once) with and without one hit per
section, and the whole ranking (chunk ids in order, each with its score's exact repr) is
hashed. `record` writes the hashes (and the first rankings in full); `check` ranks again
with this checkout's code and compares: any ranking that differs is named. Options of the
app's alone rank through the app's ranker, the others through the protocol's
(tried_signals.ranking); `check` also ranks every option through the protocol's.

Usage (after `quality_pool.py candidates --work DIR --sets claude-docs,codebase`):
    python bench/experiments/ranking_identity.py record --work DIR --out rankings.json
    python bench/experiments/ranking_identity.py check --work DIR --out rankings.json
        [--sets "claude-docs,codebase beside docs"]
"""

import argparse
import dataclasses
import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.experiments.tried_signals import ranking as tried_ranking
from bench.experiments.tried_signals.options import TriedOptions, fusion_only
from bench.pool.questions import Question, load_questions_with_candidates
from bench.pool.sets import GUARDS, set_named
from ragspace.models import Fusion, Hit
from ragspace.ranking import ranker
from ragspace.ranking.offer import Offer
from ragspace.ranking.options import RankingOptions
from ragspace.ranking.options import fusion_only as app_fusion_only

SETS = ("claude-docs", "codebase", "claude-docs beside code", "codebase beside docs")
VALUES: dict[str, list[Any]] = {
    "vector_share": [0.3, 0.7],
    "fusion": ["rrf"],
    "rrf_k": [30],
    "keyword_weight": [0.75],
    "scaling": ["distribution"],
    "file_weight": [0.0, 0.25, 1.0],
    "lift_best_chunk": [False, True],
    "file_confidence_power": [0.0, 4.0],
    "definition_boost": [0.0, 0.5],
    "prose_factor": [1.0, 0.3],
    "neighbour_weight": [0.0, 0.5],
    "document_weight": [0.1, 0.5],
    "file_vector_weight": [0.1, 1.0],
    "file_keyword_weight": [0.1, 1.0],
    "symbol_vector_share": [0.3],
    "confidence_power": [0.5, 2.0],
    "name_boost": [0.25, 0.5],
    "coherence_boost": [0.1, 0.4],
    "secondary_factor": [0.5, 0.85],
    "file_decay": [0.5, 0.85],
    "sub_question_weight": [0.5, 0.9],
}
EVERY_TRIED: dict[str, Any] = {
    "document_weight": 0.25,
    "file_vector_weight": 0.1,
    "file_keyword_weight": 0.5,
    "symbol_vector_share": 0.4,
    "confidence_power": 1.0,
    "name_boost": 0.25,
    "coherence_boost": 0.2,
    "secondary_factor": 0.7,
    "file_decay": 0.7,
    "sub_question_weight": 0.75,
}
FULL = 15  # questions a set whose first rankings are kept whole (to read a difference)
Config = tuple[str, dict[str, Any]]  # (base: shipped or fusion_only, the fields changed)


def configs() -> list[Config]:
    """Every option ranked: each signal's values on the shipped options and on fusion alone
    (a document-level weight on fusion alone with each file's best chunk lifted), then
    every tried signal at once on four bases."""
    found: list[Config] = [("shipped", {}), ("fusion_only", {})]
    for base in ("shipped", "fusion_only"):
        for field, values in VALUES.items():
            lifts = field.endswith("weight") and field.startswith(("file", "document"))
            extra = {"lift_best_chunk": True} if base == "fusion_only" and lifts else {}
            found += [(base, {field: value, **extra}) for value in values]
    found.append(("shipped", EVERY_TRIED))
    found.append(("shipped", {**EVERY_TRIED, "fusion": "rrf"}))
    found.append(("shipped", {**EVERY_TRIED, "scaling": "distribution", "lift_best_chunk": False}))
    found.append(("fusion_only", EVERY_TRIED))
    return found


def options_of(config: Config, protocol: bool) -> tuple[Any, bool]:
    """The config's options and whether they are the app's alone (ranked by its ranker)."""
    base, changes = config
    app_fields = {f.name for f in dataclasses.fields(RankingOptions)}
    app = not protocol and set(changes) <= app_fields
    options: Any = RankingOptions() if app else TriedOptions()
    if base == "fusion_only":
        options = app_fusion_only(options) if app else fusion_only(options)
    typed = {k: Fusion(v) if k == "fusion" else v for k, v in changes.items()}
    return dataclasses.replace(options, **typed), app


def rankings(question: Question, protocol: bool) -> Iterator[tuple[Config, bool, list[Hit]]]:
    """The question ranked under every config, with and without one hit per section."""
    offer = Offer(question.text, question.candidates)
    parts = [Offer(text, found) for text, found in question.parts]
    links = question.links

    def read(*_: Any) -> Any:
        return links

    for config in configs():
        options, app = options_of(config, protocol)
        for per_section in (True, False):
            if app:
                hits = ranker.rank_offer(offer, options, None, per_section, read)
            else:
                hits = tried_ranking.rank_offer(offer, options, None, per_section, parts, read)
            yield config, per_section, hits


def digest(hits: list[Hit]) -> str:
    return hashlib.sha256(repr([(h.chunk_id, h.score) for h in hits]).encode()).hexdigest()[:16]


def record(work: Path, out: Path) -> None:
    result: dict[str, Any] = {"configs": configs(), "digests": {}, "full": {}}
    for name in SETS:
        digests, full = [], []
        for i, question in enumerate(_questions(work, name)):
            row = []
            for config, per_section, hits in rankings(question, protocol=False):
                row.append(digest(hits))
                if i < FULL and per_section:
                    top = [(h.chunk_id, repr(h.score)) for h in hits[:20]]
                    full.append([question.text, *config, top])
            digests.append(row)
        result["digests"][name], result["full"][name] = digests, full
        print(f"{name}: {len(digests)} questions recorded", file=sys.stderr)
    out.write_text(json.dumps(result))


def check(work: Path, out: Path, sets: tuple[str, ...] = SETS) -> int:
    """The number of rankings of `sets` that differ from the recorded ones (each named)."""
    saved = json.loads(out.read_text())
    assert [tuple(c) for c in saved["configs"]] == [tuple(c) for c in configs()], "configs"
    differ = total = 0
    for name in sets:
        for protocol in (False, True):
            found = _compare(work, name, saved["digests"][name], protocol, print)
            differ, total = differ + found[0], total + found[1]
    print(f"{total} rankings compared, {differ} differ")
    return differ


def _compare(
    work: Path, name: str, recorded: list[list[str]], protocol: bool, say: Callable[..., None]
) -> tuple[int, int]:
    differ = total = 0
    for question, row in zip(_questions(work, name), recorded, strict=True):
        for (config, per_section, hits), expected in zip(
            rankings(question, protocol), row, strict=True
        ):
            total += 1
            if digest(hits) != expected:
                differ += 1
                say(f"DIFFERS {name} {question.text[:60]!r} {config} per_section={per_section}")
    path = "the protocol's ranking" if protocol else "the app's ranker where it can"
    say(f"{name} through {path}: {total} rankings, {differ} differ")
    return differ, total


def _questions(work: Path, name: str) -> list[Question]:
    return load_questions_with_candidates(work / name, set_named(GUARDS.get(name, name)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("record", "check"))
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--sets", default=",".join(SETS), help="check: a comma-separated subset")
    args = parser.parse_args()
    if args.step == "record":
        record(args.work, args.out)
    else:
        sys.exit(1 if check(args.work, args.out, tuple(args.sets.split(","))) else 0)


if __name__ == "__main__":
    main()
