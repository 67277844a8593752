"""Where the suite keeps its throw-away projects (``tmp_path``, the fuzzer's and the state
machine's folders): a RAM-backed folder where the machine has one, else the system's temp folder.

The suite creates and deletes hundreds of thousands of small files (a run's store entry and
results, a warm store copied per fuzz example). On a disk file system each new file costs the
kernel a tenth of a millisecond or more (ext4 steps past every recently freed inode when it
allocates one), which was a third of the suite's CPU; on a tmpfs it costs a fiftieth of that.
Only the projects move: the workspaces skill-eval makes for its runs stay in the system's temp
folder, as a user's would (a sandbox mounts a fresh /dev, so an agent CLI whose own helper
sits in a workspace under /dev/shm could not find it there).

``PYTEST_DEBUG_TEMPROOT`` (pytest's own setting) or ``--basetemp`` chooses another place.
"""

from __future__ import annotations

import os
import tempfile

_RAM = "/dev/shm"
_ENOUGH = 2 << 30  # bytes free: the suite keeps about 300 MB of its last three sessions


def _usable(folder: str) -> bool:
    try:
        st = os.statvfs(folder)
    except OSError:
        return False
    # Adapter scripts are run from the projects: a noexec mount would refuse them.
    return (os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK)
            and not st.f_flag & (os.ST_NOEXEC | os.ST_RDONLY) and st.f_bavail * st.f_frsize >= _ENOUGH)


def temp_root() -> str:
    """The folder the suite's throw-away projects go in."""
    chosen = os.environ.get("PYTEST_DEBUG_TEMPROOT")
    if chosen:
        return chosen
    return _RAM if _usable(_RAM) else tempfile.gettempdir()
