"""`skill-eval gc`: drop store entries that no listed suite references any more.

Runs, grades and errors are content-addressed, so "referenced" means "a key the current plan of
some listed suite computes". Suites must share the store to be collected together; entries of
a suite not listed are removed, which is why gc takes every suite that uses the store.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from skill_eval.engine.engine import Engine, RunOptions
from skill_eval.errors import SkillEvalError
from skill_eval.model.project import load_project
from skill_eval.store.store import Store


def _referenced(suites: list[Path]) -> tuple[Path, set[str], set[str]]:
    root: Path | None = None
    runs: set[str] = set()
    grades: set[str] = set()
    for path in suites:
        project = load_project(path)
        store_root = project.suite.store
        if root is not None and store_root != root:
            raise SkillEvalError(f"{path}: uses store {store_root}, the others {root}; "
                                 "gc one store at a time")
        root = store_root
        engine = Engine(project, Store(store_root), RunOptions())
        for spec in engine.plan.runs:
            runs.add(spec.key)
            grades.add(engine.grade_key(spec))
        engine.cache.save()
    assert root is not None
    return root, runs, grades


def collect(suites: list[Path], dry_run: bool = False) -> tuple[int, int]:
    """Returns (removed, kept) entry counts."""
    root, runs, grades = _referenced(suites)
    store = Store(root)
    removed = kept = 0
    with store.lock(wait=True):
        for shard in sorted((root / "runs").glob("??")):
            for entry in shard.iterdir():
                if entry.name in runs:
                    kept += 1
                    continue
                removed += 1
                if not dry_run:
                    store.discard_run(entry.name)
        # Judge verdicts (kind "judge") are keyed by output hashes, not plan keys: they are small
        # and kept; a judge failure is keyed by its grade's key.
        for kind, live in (("grades", grades), ("errors", runs), ("judge_errors", grades)):
            for f in sorted((root / kind).rglob("*.json")):
                if f.stem in live:
                    kept += 1
                    continue
                removed += 1
                if not dry_run:
                    os.unlink(f)
        if not dry_run:
            shutil.rmtree(root / "tmp", ignore_errors=True)
    return removed, kept
