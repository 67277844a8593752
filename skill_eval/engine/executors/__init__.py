"""Executors: where the runs doit schedules are carried out.

doit still decides what is out of date and in what order (engine/tasks.py); the action of an
agent task hands the run spec to the executor, which returns the run's result or error. The
store has one writer, this process: an executor that runs adapters elsewhere returns their
output as data and the driver stores it (run/remote.py).

``threads`` runs each adapter from doit's worker thread, as always; ``ray`` hands each run to a
Ray task (a local Ray, or a cluster). Ray is an optional extra, imported only when chosen.
"""

from __future__ import annotations

import importlib
from typing import Protocol

from skill_eval.errors import SkillEvalError
from skill_eval.model.config import ExecutorConfig, Suite
from skill_eval.model.results import RunError, RunResult
from skill_eval.plan.types import RunSpec
from skill_eval.store.store import Store


class Executor(Protocol):
    name: str

    def open(self) -> None:
        """Get ready (start or join a cluster); SkillEvalError with one line when it cannot."""

    def run(self, spec: RunSpec, suite: Suite, store: Store) -> RunResult | RunError:
        """Carry out one run and store it; blocks the calling doit thread until it is done."""

    def cancel(self) -> None:
        """Ctrl-C: stop every run in flight (their errors are not recorded)."""

    def close(self) -> None:
        """Release what open() took (a local Ray is stopped)."""


# name -> "module:class", so choosing threads never imports Ray.
EXECUTORS: dict[str, str] = {
    "threads": "skill_eval.engine.executors.threads:ThreadsExecutor",
    "ray": "skill_eval.engine.executors.ray_tasks:RayExecutor",
}


def make_executor(config: ExecutorConfig, jobs: int) -> Executor:
    """The executor ``config`` names, sized for ``jobs`` runs in flight."""
    target = EXECUTORS.get(config.name)
    if target is None:
        raise SkillEvalError(f"unknown executor '{config.name}'; use one of {', '.join(EXECUTORS)}")
    module, cls = target.split(":")
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        if config.name == "ray" and (exc.name or "").split(".")[0] == "ray":
            raise SkillEvalError("the ray executor needs Ray: install skill-eval[ray] "
                                 "(pip install 'skill-eval[ray]')") from None
        raise
    executor: Executor = getattr(mod, cls)(config, jobs)
    return executor
