"""Which skill-eval process owns a workspace or an adapter, and whether it is still alive.

Each skill-eval process that starts adapters holds an exclusive ``flock`` on
``<tmp>/skill-eval-owner-<pid>.lock`` for as long as it lives. The kernel drops the lock when
the process dies, however it dies (kill -9 included), so the next run can tell a live owner's
workspaces and adapters from a killed one's without trusting pids alone (pids are reused).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import threading
from pathlib import Path

OWNER_PREFIX = "skill-eval-owner-"

_claimed: tuple[int, int] | None = None  # (pid, fd) of our own lock; re-claimed after a fork
_claim_lock = threading.Lock()


def lock_path(pid: int, base: Path | None = None) -> Path:
    return Path(base or tempfile.gettempdir()) / f"{OWNER_PREFIX}{pid}.lock"


def claim() -> int:
    """Hold this process's owner lock (idempotent); returns our pid, the owner id."""
    global _claimed
    pid = os.getpid()
    with _claim_lock:
        if _claimed is not None and _claimed[0] == pid:
            return pid
        try:
            fd = os.open(lock_path(pid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            # No writable temp folder or a lock we cannot take: our workspaces then look stale to
            # a concurrent run only if their owner lock is missing, which it is not (see alive()).
            return pid
        _claimed = (pid, fd)
        return pid


def release() -> None:
    """Drop our owner lock and its file (the end of a run; a later adapter claims it again)."""
    global _claimed
    with _claim_lock:
        if _claimed is None or _claimed[0] != os.getpid():
            return
        with contextlib.suppress(OSError):
            lock_path(_claimed[0]).unlink()
        os.close(_claimed[1])
        _claimed = None


def alive(pid: int, base: Path | None = None) -> bool:
    """Whether skill-eval process ``pid`` still runs: it holds its owner lock. Without a lock
    file the answer falls back to whether any process has that pid (older layouts, other temp
    folders): a wrong "alive" only delays a cleanup, a wrong "dead" would break a live run."""
    if pid == os.getpid():
        return True
    path = lock_path(pid, base)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return _pid_exists(pid)
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return True
    finally:
        os.close(fd)  # closing drops the lock we may have taken
    return False


def forget(pid: int, base: Path | None = None) -> None:
    """Remove a dead owner's lock file."""
    with contextlib.suppress(OSError):
        lock_path(pid, base).unlink()


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
