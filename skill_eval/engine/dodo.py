"""A suite's tasks for doit's own command line: `skill-eval doit SUITE ...` and a user's dodo.py.

The suite is loaded when doit first asks for its tasks (after the user's own tasks named in
``task_dep`` ran, so a fixture they generate is hashed as generated), with its path resolved from
the caller's folder. Every run, grade and table is a task whose up-to-date check asks the store;
a last task, ``verdict``, fails (doit exits 1) when the suite's verdict is not a pass, as a
failing test task would, and is up to date while the summary it read is unchanged.
"""

from __future__ import annotations

import atexit
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from doit import create_after
from doit.exceptions import TaskFailed

from skill_eval.engine.engine import Engine
from skill_eval.engine.tasks import doit_config, task_dicts
from skill_eval.errors import InvalidInput
from skill_eval.model.project import load_project
from skill_eval.review.folder.staleness import skill_files
from skill_eval.store.store import Store

BASES = ("agent", "grade", "bench", "summary", "verdict")
INPUTS = "skill-eval-inputs"  # the group of the user's tasks the suite's tasks wait for


class SuiteTasks:
    def __init__(self, suite: str | Path, split: str | None = None, task_dep: Sequence[str] = ()):
        self.suite_path = Path(suite).resolve()  # from the caller's folder, before doit changes it
        self.split = split
        self.task_dep = list(task_dep)
        self._engine: Engine | None = None
        self._groups: dict[str, list[dict[str, Any]]] | None = None

    def engine(self) -> Engine:
        if self._engine is None:
            project = load_project(self.suite_path, self.split)
            if project.errors:
                raise InvalidInput(project.problems)
            self._engine = Engine(project, Store(project.suite.store))
            # What ran is recorded for `skill-eval status` (its reasons), as after `skill-eval run`.
            atexit.register(self._engine.save_state)
        return self._engine

    def config(self) -> dict[str, Any]:
        """doit's settings for `skill-eval doit`: the suite's own doit DB, the verdict by default."""
        config = doit_config(self.engine())
        config["default_tasks"] = ["verdict"]
        return config

    def groups(self) -> dict[str, list[dict[str, Any]]]:
        if self._groups is None:
            engine = self.engine()
            skills = [se.skill.name for se in engine.project.skills]
            groups = task_dicts(engine, [], [], skills, all_tasks=True)
            summary = engine.suite.results / "summary.json"
            groups["summary"][0]["targets"] = [str(summary)]
            # The skills' tables too: a new version of a skill can leave the summary as it was,
            # and its history record is still due.
            tables = [str(p) for name in skills for p in skill_files(engine, name) if p.suffix == ".json"]
            groups["verdict"] = [{"basename": "verdict", "actions": [self._verdict],
                                  "task_dep": ["summary"], "file_dep": [str(summary), *tables],
                                  "verbosity": 0,
                                  "doc": "fails (exit 1) unless every skill's verdict is pass"}]
            self._groups = groups
        return self._groups

    def _verdict(self) -> TaskFailed | None:
        from skill_eval.review.comparison.verdict import complete, verdict_text
        from skill_eval.review.folder.tables import load_benches, verdict_exit_code

        benches = load_benches(self.engine())
        if benches and all(complete(b) for b in benches):
            from skill_eval.review.versions.history_records import record_run

            # Every table complete, as after a complete `skill-eval run`: what compare and the
            # review page's history read (a repeat of a pair's last record is not added).
            record_run(self.engine(), benches)
        if verdict_exit_code(benches) == 0 and benches:
            return None
        shown = "; ".join(f"{b['skill']} [{b['model']}]: {verdict_text(b)}" for b in benches) or "no results"
        return TaskFailed(f"verdict: {shown} (see {self.engine().suite.results / 'summary.md'})")

    def creators(self) -> dict[str, Callable[..., Any]]:
        """``task_<base>`` creators for a dodo's namespace. With ``task_dep``: a group of those
        tasks, and one creator of every base that doit calls once they ran (doit's delayed
        creators cannot name each other's tasks, so there is one)."""
        if not self.task_dep:
            return {f"task_{base}": self._creator(base) for base in BASES}

        def inputs() -> dict[str, Any]:
            return {"actions": None, "task_dep": self.task_dep,
                    "doc": "the tasks skill-eval's tasks wait for"}

        @create_after(executed=INPUTS, creates=list(BASES))
        def every() -> Iterator[dict[str, Any]]:
            for base in BASES:
                dicts = self.groups()[base]
                if base in ("summary", "verdict"):
                    yield dicts[0]
                else:
                    yield from _group(base, dicts)

        return {f"task_{INPUTS}": inputs, "task_skill_eval": every}

    def _creator(self, base: str) -> Callable[[], Any]:
        def creator() -> Iterator[dict[str, Any]] | dict[str, Any]:
            dicts = self.groups()[base]
            if base in ("summary", "verdict"):
                return {k: v for k, v in dicts[0].items() if k != "basename"}
            return _group(base, dicts)

        creator.__name__ = f"task_{base}"
        return creator


def _group(base: str, dicts: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    yield {"basename": base, "name": None, "doc": f"{base} tasks"}
    for d in dicts:
        yield {"basename": base, **d}


def doit_main(suite: str | Path, argv: Sequence[str], split: str | None = None) -> int:
    """doit's own command line (run, list, info, forget, -n, --always, strict, ...) over the
    suite's tasks, from the caller's folder: `skill-eval doit SUITE [doit arguments]`."""
    from doit.cmd_base import ModuleTaskLoader
    from doit.doit_cmd import DoitMain

    tasks = SuiteTasks(suite, split)
    namespace: dict[str, Any] = {**tasks.creators(), "DOIT_CONFIG": tasks.config()}
    return int(DoitMain(ModuleTaskLoader(namespace)).run(list(argv)) or 0)
