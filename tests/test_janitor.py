"""Finished runs' workspaces are removed in the background, and are all gone once drained."""

from __future__ import annotations

import threading
from pathlib import Path

from skill_eval.engine.executors.threads import ThreadsExecutor
from skill_eval.model.results import RunResult
from skill_eval.run import janitor
from skill_eval.store.store import Store


def test_drain_waits_for_every_queued_removal() -> None:
    release = threading.Event()
    done: list[int] = []

    def slow(i: int) -> None:
        release.wait(5)
        done.append(i)

    for i in range(3):
        janitor.later(lambda i=i: slow(i))
    assert not janitor.drain(timeout=0.05)  # still working: drain says so
    release.set()
    assert janitor.drain(timeout=5)
    assert sorted(done) == [0, 1, 2]


def test_a_failing_job_does_not_stop_the_ones_after_it() -> None:
    done: list[str] = []

    def boom() -> None:
        raise OSError("gone already")

    janitor.later(boom)
    janitor.later(lambda: done.append("next"))
    assert janitor.drain(timeout=5)
    assert done == ["next"]


def test_the_threads_executor_leaves_no_workspace_once_closed(run_setup, write_adapter, tmp_path):
    adapter = write_adapter("#!/bin/sh\ncat >/dev/null\npwd > outputs/where.txt\n"
                            "printf '%s' '{\"output\": \"ok\", \"events\": [], \"usage\": {}}'\n")
    suite, spec = run_setup([str(adapter)])
    store = Store(tmp_path / "store")
    executor = ThreadsExecutor()
    executor.open()
    results = [executor.run(spec(arm, key=str(i) * 64), suite, store)
               for i, arm in enumerate(("with_skill", "without_skill"), start=1)]
    executor.close()
    for result in results:
        assert isinstance(result, RunResult), result
        where = (result.files_dir / "outputs" / "where.txt").read_text().strip()
        assert where.startswith("/")
        assert not Path(where).exists()  # removed in the background, gone once closed
