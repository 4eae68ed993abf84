"""Step 1: each set indexed in its own data folder through the CLI, as a user would; then
the guards' DocSet, both corpus sets in one."""

import os
import subprocess
import sys
import tarfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.pool.sets import MIXED, MIXED_GUARDS, PoolSet, data_dir, load_questions, set_named


def index(work: Path, ragspace: Path, sets: Sequence[PoolSet]) -> None:
    """Fill each set's own data folder through the CLI, as a user would; skip finished ones.
    Then the guards' DocSet, when a guard's source set is among `sets`."""
    for pool_set in sets:
        folder = data_dir(work, pool_set)
        if (folder / "indexed").exists():
            print(f"{pool_set.name}: indexed already", file=sys.stderr)
            continue
        env = {**os.environ, "RAGSPACE_DATA_DIR": str(folder)}
        log = (work / f"index-{pool_set.name}.log").open("w")
        if pool_set.tarball is None:
            command = [str(ragspace), "eval", str(pool_set.questions), "--data-dir", str(folder)]
            run([*command, "--modes", "hybrid", "--limit", "1", "--no-grade"], env, log)
        else:
            with tarfile.open(pool_set.tarball) as archive:
                archive.extractall(work / "src", filter="data")
            checkout = work / "src" / pool_set.name
            run([str(ragspace), "docset", "create", pool_set.docset], env, log)
            run([str(ragspace), "add", "dir", pool_set.docset, str(checkout), "--wait"], env, log)
        (folder / "indexed").touch()
        print(f"{pool_set.name}: indexed", file=sys.stderr)
    if set(MIXED_GUARDS.values()) & {s.name for s in sets}:
        index_mixed(work)


def index_mixed(work: Path) -> None:
    """The guards' DocSet: both corpus sets' documents in one, stored and embedded the way
    `ragspace eval` stores one set's (evaluation.store_corpus, then the ingestor)."""
    from ragspace.actions.corpora import store_corpus
    from ragspace.runtime import open_runtime
    from ragspace.settings import load_settings

    folder = data_dir(work, MIXED)
    if (folder / "indexed").exists():
        print("guards: indexed already", file=sys.stderr)
        return
    runtime = open_runtime(load_settings(data_dir=folder, database_url=None), worker_threads=0)
    try:
        if MIXED.docset not in {d.name for d in runtime.store.docsets.all()}:
            runtime.actions.docsets.create(MIXED.docset)
            for source in MIXED_GUARDS.values():
                store_corpus(runtime.store, MIXED.docset, load_questions(set_named(source)))
        runtime.ingestor.process_all()
    finally:
        runtime.close()
    (folder / "indexed").touch()
    print("guards: indexed", file=sys.stderr)


def run(command: list[str], env: dict[str, str], log: Any) -> None:
    subprocess.run(command, env=env, stdout=log, stderr=subprocess.STDOUT, check=True)
