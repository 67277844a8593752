"""Removing what a finished run leaves behind, off the path of the worker that ran it.

Deleting a workspace is metadata work the file system may make wait (unlink and rmdir on a busy
disk take milliseconds each), and nothing after the run needs it gone: its files were read and
stored, its processes killed. So the worker hands the removal to one background thread and
starts its next run. The guarantees stay: a queued workspace is still listed as live (a stop on
a signal removes it too), ``drain`` waits until every queued removal is done (the end of a
command), and one left by a kill -9 is found by name and removed by the next run.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable

_jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
_lock = threading.Lock()
_idle = threading.Condition(_lock)
_pending = 0
_thread: threading.Thread | None = None


def later(job: Callable[[], None]) -> None:
    """Run ``job`` (a removal that may not raise) soon, in the background."""
    global _pending, _thread
    with _lock:
        _pending += 1
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_work, name="skill-eval-janitor", daemon=True)
            _thread.start()
    _jobs.put(job)


def _work() -> None:
    global _pending
    while True:
        job = _jobs.get()
        try:
            job()
        except Exception:  # noqa: BLE001 - a removal that fails is retried by remove_stale
            pass
        finally:
            with _lock:
                _pending -= 1
                if not _pending:
                    _idle.notify_all()


def _forget_after_fork() -> None:
    # A forked child has no janitor thread and owes nothing of its parent's queue.
    global _jobs, _lock, _idle, _pending, _thread
    _jobs, _lock = queue.SimpleQueue(), threading.Lock()
    _idle, _pending, _thread = threading.Condition(_lock), 0, None


os.register_at_fork(after_in_child=_forget_after_fork)


def drain(timeout: float | None = None) -> bool:
    """Wait until every queued job is done; False when ``timeout`` passed first."""
    with _lock:
        return _idle.wait_for(lambda: _pending == 0, timeout)
