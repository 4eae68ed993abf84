"""The shared sets the protocol scores, one row each in SETS, and the guards beside them.

Adding a set is one row: its name, its questions (a corpus folder for `ragspace eval`, or a
JSONL question set), the DocSet that holds its corpus, the checkout's tarball when the
corpus is a repository (indexed with `ragspace add dir`; its top folder must be the set's
name), and which two figures head its column (HEADLINE_FILES for a repository's questions
about files). `index` then `candidates --sets NAME` fill it, and every step after reads it
from here.

semble-dev's repositories (issue 68) are one row each, read from its `published.json`
(SEMBLE_SETS): each its own set and fold, with its language, headed by semble's chunk
NDCG@10 and MRR@10, and all of one training group (`group_of`; choice.py says why).
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _shared_eval() -> Path:
    """`shared/eval` next to the checkout or one of its parents (worktrees live deeper)."""
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "eval"
        if candidate.is_dir():
            return candidate
    return Path(__file__).resolve().parents[3] / "shared" / "eval"


ROOT = Path(__file__).resolve().parents[2]
SHARED = _shared_eval()
RESULTS = ROOT / "bench" / "results" / "quality_pool.json"
DEPTH = 100  # candidates saved per side; the app takes RAGSPACE_RETRIEVAL_CANDIDATES of them
K = 10

# a set's headline figures (its column in the tables): a recall and MRR@10
HEADLINE_SECTIONS = ("chunk recall@5", "chunk mrr@10")
HEADLINE_CHUNKS = ("chunk recall@10", "chunk mrr@10")
HEADLINE_FILES = ("file recall@10", "file mrr@10")
HEADLINE_NDCG = ("chunk ndcg@10", "chunk mrr@10")  # semble's metric (score_semble.py's)


@dataclass(frozen=True)
class PoolSet:
    """One shared set: its questions, the DocSet that holds its corpus, how it is indexed,
    and what its headline figures are about."""

    name: str
    questions: Path
    docset: str
    tarball: Path | None = None  # a checkout, added with `ragspace add dir`
    headline: tuple[str, str] = HEADLINE_FILES
    label: str = ""  # what the headline figures are about, in the README's table
    language: str = ""  # a semble-dev repository's (published.json's)
    group: str = ""  # the training group it counts in (group_of): its own name when ""


CORE_SETS = (  # the five sets of issue 35
    PoolSet(
        "claude-docs",
        SHARED / "claude-docs",
        "eval-claude-docs",
        headline=HEADLINE_SECTIONS,
        label="docs sections",
    ),
    PoolSet(
        "codebase",
        SHARED / "codebase",
        "eval-codebase",
        headline=HEADLINE_CHUNKS,
        label="code chunks",
    ),
    PoolSet(
        "pytest",
        SHARED / "sweqa-dev/pytest.jsonl",
        "pytest",
        SHARED / "sweqa-dev/pytest-5989efe.tar.gz",
        label="pytest files",
    ),
    PoolSet(
        "sphinx",
        SHARED / "sweqa-dev/sphinx.jsonl",
        "sphinx",
        SHARED / "sweqa-dev/sphinx-6c9e320.tar.gz",
        label="sphinx files",
    ),
    PoolSet(
        "pylint",
        SHARED / "sweqa-dev/pylint.jsonl",
        "pylint",
        SHARED / "sweqa-dev/pylint-44740e5.tar.gz",
        label="pylint files",
    ),
)

SEMBLE = SHARED / "semble-dev"
SEMBLE_GROUP = "semble-dev"
SEMBLE_LABEL = "semble-dev code chunks, repo mean"  # its row in the README's table


def semble_sets() -> tuple[PoolSet, ...]:
    """One row per semble-dev repository: its tarball (top folder `<name>/`), its questions,
    its language, headed by chunk NDCG@10 and MRR@10; none when semble-dev is absent."""
    published = SEMBLE / "published.json"
    if not published.exists():
        return ()
    repos = json.loads(published.read_text())["repos"]
    return tuple(
        PoolSet(
            name,
            SEMBLE / f"{name}.jsonl",
            name,
            SEMBLE / f"{name}.tar.gz",
            headline=HEADLINE_NDCG,
            label=SEMBLE_LABEL,
            language=repos[name]["language"],
            group=SEMBLE_GROUP,
        )
        for name in sorted(repos)
    )


SEMBLE_SETS = semble_sets()
SETS = (*CORE_SETS, *SEMBLE_SETS)

# docs-dev's two documentation sites (docs-mcp-server's questions over the FastAPI and Vite
# sources, issue 68 item 4): guards of their own DocSet each, indexed as the SWE-QA sets are,
# headed by page-level Recall@5 and MRR@10 (that benchmark's figures)
DOCS = SHARED / "docs-dev"
HEADLINE_PAGES = ("file recall@5", "file mrr@10")
DOCS_GUARDS = tuple(
    PoolSet(
        name,
        DOCS / f"{name}.jsonl",
        name,
        DOCS / f"{name}.tar.gz",
        headline=HEADLINE_PAGES,
        label=f"{name} docs pages",
    )
    for name in ("fastapi", "vite")
    if (DOCS / f"{name}.jsonl").exists()
)
HEADLINE = {s.name: s.headline for s in (*SETS, *DOCS_GUARDS)}
HEADLINE_LABELS = {s.name: s.label for s in (*SETS, *DOCS_GUARDS)}


# Guards: two sets' questions asked of one DocSet that holds both corpora (the docs pages
# and the code files side by side, as in a repository with its documentation), so that a
# ranking that favours code for code questions is also seen on docs questions beside code.
# A guard is never a fold of its own (its questions are its source set's): a fold that
# holds its source set out does not see it. Each fold's choice must keep every guard it
# sees within 0.01 of today's ranking (Choice), and a row is kept only when its default
# keeps every guard within 0.01 of the row it replaces (wins). docs-dev's sites are guards
# whose source is themselves, no fold: every fold sees them.
MIXED_GUARDS = {"claude-docs beside code": "claude-docs", "codebase beside docs": "codebase"}
GUARDS = {**MIXED_GUARDS, **{s.name: s.name for s in DOCS_GUARDS}}
MIXED = PoolSet("mixed", SHARED, "eval-mixed")  # the mixed guards' data folder and DocSet


def headline_of(name: str) -> tuple[str, ...]:
    """A set's headline figures, or a guard's (its source set's)."""
    return HEADLINE[GUARDS.get(name, name)]


def data_dir(work: Path, pool_set: PoolSet) -> Path:
    return work / f"data-{pool_set.name}"


def set_named(name: str) -> PoolSet:
    return next(s for s in (*SETS, *DOCS_GUARDS) if s.name == name)


def group_of(name: str) -> str:
    """The training group a set (or guard) counts in: its `group`, else its own name."""
    return GROUPS.get(name, name)


GROUPS = {s.name: s.group for s in SETS if s.group}


def chosen_sets(names: Any) -> tuple[PoolSet, ...]:
    """The sets named (a sequence of names), all of them for None; docs-dev's guards too
    (a guard of its own DocSet is indexed and its candidates saved as a set's)."""
    return tuple(s for s in (*SETS, *DOCS_GUARDS) if names is None or s.name in names)


def candidates_file(work_and_name: Path) -> Path:
    """Where a set's (or guard's) candidates are saved: `candidates-<name>.jsonl`."""
    return work_and_name.parent / f"candidates-{work_and_name.name.replace(' ', '-')}.jsonl"


def load_questions(pool_set: PoolSet) -> Any:
    from ragspace.eval.datasets import load_dataset

    return load_dataset(pool_set.questions)
