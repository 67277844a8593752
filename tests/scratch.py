"""Where the suite keeps what it throws away: its projects (``tmp_path``, the fuzzer's and the
state machine's folders) and the workspaces skill-eval makes for their runs (``TMPDIR``). On a
RAM-backed folder where the machine has one, else in the system's temp folder.

The suite creates and deletes hundreds of thousands of small files (a run's workspace, its store
entry and results, a warm store copied per fuzz example). On a disk file system each new file
costs the kernel a tenth of a millisecond or more (ext4 steps past every recently freed inode
when it allocates one), and removing the workspaces took as much again; on a tmpfs both cost a
fiftieth of that.

One exception, ``system_tmp``: codex runs the agent's commands in a sandbox of its own, which
mounts a fresh /dev, and the helper it starts them with sits under the run's HOME, inside the
workspace; with the workspace under /dev/shm the helper is not there and every command fails.
A test in which codex runs a command takes its workspaces from the system's temp folder.

``PYTEST_DEBUG_TEMPROOT`` (pytest's own setting) or ``--basetemp`` puts the projects elsewhere;
``SKILL_EVAL_TEST_TMPDIR`` the workspaces.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

_RAM = "/dev/shm"
_ENOUGH = 2 << 30  # bytes free: the suite keeps about 300 MB of its last three sessions
# The system's temp folder as the suite found it (the conftest passes it on to its workers, which
# start with TMPDIR already changed).
SYSTEM_TMP = os.environ.get("SKILL_EVAL_TEST_SYSTEM_TMP") or tempfile.gettempdir()


def _usable(folder: str) -> bool:
    try:
        st = os.statvfs(folder)
    except OSError:
        return False
    # Adapter scripts are run from the projects: a noexec mount would refuse them.
    return (os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK)
            and not st.f_flag & (os.ST_NOEXEC | os.ST_RDONLY) and st.f_bavail * st.f_frsize >= _ENOUGH)


def _chosen(setting: str) -> str:
    return os.environ.get(setting) or (_RAM if _usable(_RAM) else SYSTEM_TMP)


def temp_root() -> str:
    """The folder the suite's throw-away projects go in."""
    return _chosen("PYTEST_DEBUG_TEMPROOT")


def workspace_root() -> str:
    """The folder the runs' workspaces go in (TMPDIR for the suite and what it starts)."""
    return _chosen("SKILL_EVAL_TEST_TMPDIR")


_KEPT: dict[str, tuple[tempfile.TemporaryDirectory[str], Path]] = {}


def kept(name: str, build: Callable[[Path], Path]) -> Path:
    """What ``build(folder)`` returns, built once per test process in a private folder of the
    suite's (removed with the process): a warm project that each test copies instead of paying
    for its first run again."""
    if name not in _KEPT:
        tmp = tempfile.TemporaryDirectory(prefix=f"{name}-", dir=temp_root())
        _KEPT[name] = (tmp, build(Path(tmp.name)))
    return _KEPT[name][1]
