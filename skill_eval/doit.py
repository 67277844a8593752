"""skill-eval's tasks in your own dodo.py, beside your tasks, in one doit invocation::

    # dodo.py
    from skill_eval.doit import task_creators

    def task_fixtures():
        return {"actions": ["python make_fixtures.py"], "file_dep": ["make_fixtures.py"],
                "targets": ["skills/my-skill/evals/files/input.csv"]}

    globals().update(task_creators("evals/suite.yaml", task_dep=["fixtures"]))

`doit` then runs ``fixtures`` first, loads the suite (so generated fixtures are hashed as
generated), runs what is out of date, rebuilds the tables and ends with the ``verdict`` task,
which fails (doit exits 1) unless every skill passes. A second `doit` runs nothing.
`skill-eval doit SUITE [doit arguments]` is the same without a dodo.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from skill_eval.engine.dodo import SuiteTasks


class _TaskCreators:
    """A callable object, not a function: doit takes every *function* named ``task_*`` in a
    dodo's namespace for a task creator, and ``from skill_eval.doit import task_creators`` puts
    this one there."""

    def __call__(self, suite: str | Path, task_dep: Sequence[str] = (), split: str | None = None
                 ) -> dict[str, Callable[..., Any]]:
        """``task_agent``, ``task_grade``, ``task_bench``, ``task_summary`` and ``task_verdict``
        for a dodo's namespace. ``suite`` is resolved from the current folder; ``task_dep``: your
        tasks that must run before the suite is loaded (fixture generators, say)."""
        return SuiteTasks(suite, split, task_dep).creators()


task_creators = _TaskCreators()
