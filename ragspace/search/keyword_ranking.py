"""The ranking of a search that has only its keyword side: keyword mode, and a hybrid search
of DocSets whose vectors are not embedded yet (between "keywords 230/230" and "vectors
230/230", the first minutes after adding a repository).

Its side alone (`fusion_only`) was all such a search got. These are the ranking's signals
that need no vector, at the values bench/experiments/keyword_ranking.py chose under
leave-one-set-out over semble-dev's 15 repositories (each a set), with docs-dev's two sites and
the protocol's codebase and claude-docs sets as guards (issue 68; docs/benchmarks.md): the
file cards, a file whose name the question uses, and files the symbol table links to the best
ones; and the hybrid's definitions, weighed by how few files define the name
(bench/experiments/keyword_definitions.py: every fold chose the boost; held out, semble-dev
0.787 -> 0.791, codebase chunk R@10 / MRR 0.913 / 0.755 -> 0.921 / 0.776, no guard lower);
and code files spread when they compete for a question that names no code symbol
(signals/documents_spread.py; bench/experiments/keyword_files_spread.py, the protocol's choice
with its guards: every fold but codebase's chose decay 0.7, power 4; held out, semble-dev
0.791 -> 0.799; codebase's fold, which sees no set of questions about one file's details,
chose the strongest spread and holds it out at 0.876 / 0.759, where the point chosen on every
set keeps it at 0.921 / 0.776).

The file-level signals semble-dev's whole-file answers also reward (a file with several
matching chunks, each further chunk of a listed file counted less, tests lowered) cost
codebase's chunk-level answers (chunk R@10 0.902 -> 0.764) and are left off: held out,
semble-dev's repo mean NDCG@10 0.680 -> 0.773 (0.850 with them, unguarded). semble's own
values on top of this ranking (each further chunk of a file halved, tests and examples times
0.3): semble-dev 0.793 -> 0.825, codebase chunk R@10 0.921 -> 0.812 (in sample, 2026-12-04):
codebase asks about one file's details, a quarter of its gold in test files. They and the
cards lift every section of a documentation page alike and cost docs-dev's Recall@5 (vite
0.708 -> 0.667), so a question whose keyword candidates are mostly prose keeps its side's own
order.
"""

import dataclasses
from collections.abc import Sequence

from ragspace.ranking.candidates import Candidate, Side
from ragspace.ranking.options import RankingOptions, fusion_only
from ragspace.ranking.selection import hit_is_prose

# a question is about prose when at least this share of the keyword side's first PROSE_TOP
# candidates is prose (docs pages)
PROSE_SHARE = 0.5
PROSE_TOP = 10


def keyword_only_ranking(hybrid: RankingOptions | None = None) -> RankingOptions:
    """The options for a search without a vector side, from the hybrid ones (their fusion
    settings and weighed definitions kept: with one side, only its scaling matters)."""
    return dataclasses.replace(
        hybrid or RankingOptions(),
        file_weight=0.5,
        lift_best_chunk=True,
        file_confidence_power=2.0,
        name_boost=0.5,
        prose_factor=0.5,
        neighbour_weight=0.3,
        page_decay=1.0,  # not tried for it (bench/experiments/keyword_ranking.py): no spread
        file_decay=0.7,  # code files spread for a question naming no symbol (see above)
        file_spread_power=4.0,
    )


def mostly_prose(candidates: Sequence[Candidate]) -> bool:
    """The keyword side's first PROSE_TOP candidates are mostly prose."""
    keyword = [c for c in candidates if c.on(Side.KEYWORD)]
    keyword.sort(key=lambda c: c.evidence[Side.KEYWORD].rank)
    first = keyword[:PROSE_TOP]
    return bool(first) and sum(hit_is_prose(c.hit) for c in first) >= PROSE_SHARE * len(first)


def for_candidates(options: RankingOptions, candidates: Sequence[Candidate]) -> RankingOptions:
    """The keyword-only options for this question: its side's own order when it is about
    prose (see the module's docstring)."""
    return fusion_only(options) if mostly_prose(candidates) else options
