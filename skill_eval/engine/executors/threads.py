"""The default executor: the adapter runs from doit's worker thread, in this process's machine."""

from __future__ import annotations

from skill_eval.model.config import ExecutorConfig, Suite
from skill_eval.model.results import RunError, RunResult
from skill_eval.plan.types import RunSpec
from skill_eval.run import janitor
from skill_eval.run.process import kill_all
from skill_eval.run.runner import execute
from skill_eval.store.store import Store


class ThreadsExecutor:
    name = "threads"

    def __init__(self, config: ExecutorConfig | None = None, jobs: int = 1):
        self.jobs = jobs  # doit's thread pool is the bound; nothing to size here

    def open(self) -> None:
        pass

    def run(self, spec: RunSpec, suite: Suite, store: Store) -> RunResult | RunError:
        # The worker starts its next run while the finished one's workspace is deleted.
        return execute(spec, suite, store, tidy_later=True)

    def cancel(self) -> None:
        kill_all()

    def close(self) -> None:
        janitor.drain()  # every finished run's workspace is gone when the executor closes
