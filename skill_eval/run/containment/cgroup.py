"""Where the kernel lets us, each adapter also runs in a cgroup (v2) of its own.

A cgroup holds every process forked inside it, whatever it does to its session, process group
or environment, so killing the cgroup closes the one gap of the token sweep (run/containment/reaper.py): a
descendant that clears its environment and loses its parents. We need a cgroup v2 hierarchy
in which we may create a child of our own cgroup and move a process into it: root, or a
systemd delegation; elsewhere ``Group.create`` returns None and the sweep alone applies.

Python cannot start a process inside a cgroup without an unsafe preexec_fn, so the adapter is
started through ``/bin/sh``, which writes its own pid into the cgroup and then execs the
adapter (same pid): nothing the adapter forks can be outside. The shell would run a file
without a ``#!`` line as a script and report a missing program only by its exit status, so
``launch`` first checks what ``exec`` would refuse and raises the error Popen would have.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

PREFIX = "skill-eval-"
_NAME = re.compile(re.escape(PREFIX) + r"(\d+)\.\d+")
_REMOVE_S = 2.0

_base_lock = threading.Lock()
_base: tuple[Path | None] | None = None  # cached answer of base()


def _own_cgroup() -> Path | None:
    """Our cgroup v2 folder: the cgroup2 mount point joined with our path in it."""
    try:
        rel = next(line[3:].strip() for line in Path("/proc/self/cgroup").read_text().splitlines()
                   if line.startswith("0::"))
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            if right.split()[:1] == ["cgroup2"]:
                root, mount = left.split()[3:5]
                if rel.startswith(root):
                    return Path(mount) / rel[len(root):].lstrip("/")
    except (OSError, StopIteration, ValueError, IndexError):
        return None
    return None


def base() -> Path | None:
    """The folder our adapters' cgroups go in, or None when we cannot make them there."""
    global _base
    with _base_lock:
        if _base is None:
            _base = (_probe(),)
        return _base[0]


def _probe() -> Path | None:
    if os.environ.get("SKILL_EVAL_NO_CGROUP"):
        return None  # to use (and test) the token sweep alone
    own = _own_cgroup()
    if own is None or not (own / "cgroup.procs").exists():
        return None
    probe = own / f"{PREFIX}{os.getpid()}.probe"
    try:
        probe.mkdir()
    except OSError:
        return None
    with contextlib.suppress(OSError):
        probe.rmdir()
    return own


def check_exec(argv: list[str], cwd: Path, env: dict[str, str]) -> None:
    """Raise FileNotFoundError, PermissionError or OSError(ENOEXEC) where ``exec`` of ``argv``
    would: a wrapper that execs it later (a shell, a launcher) could only report an exit status."""
    exe = argv[0]
    if "/" in exe:
        path: str | None = exe if os.path.isabs(exe) else os.path.join(cwd, exe)
    else:
        path = shutil.which(exe, path=env.get("PATH", os.defpath))
    if path is None or not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), exe)
    if os.path.isdir(path) or not os.access(path, os.X_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), exe)
    with open(path, "rb") as f:
        head = f.read(7)
    # "#!" or an ELF header with a valid class, byte order and version.
    elf = head[:4] == b"\x7fELF" and len(head) == 7 and head[4] in (1, 2) and head[5] in (1, 2) \
        and head[6] == 1
    if not (head.startswith(b"#!") or elf):
        raise OSError(errno.ENOEXEC, os.strerror(errno.ENOEXEC), exe)


class Group:
    def __init__(self, path: Path):
        self.path = path

    @classmethod
    def create(cls, token: str) -> Group | None:
        folder = base()
        if folder is None:
            return None
        try:
            (folder / f"{PREFIX}{token}").mkdir()
        except OSError:
            return None
        return cls(folder / f"{PREFIX}{token}")

    def launch(self, argv: list[str], cwd: Path, env: dict[str, str]) -> list[str]:
        """``argv`` wrapped so that it starts inside this cgroup; raises FileNotFoundError,
        PermissionError or OSError(ENOEXEC) as starting ``argv`` directly would."""
        check_exec(argv, cwd, env)
        return ["/bin/sh", "-c", 'echo $$ > "$0" 2>/dev/null; exec "$@"',
                str(self.path / "cgroup.procs"), *argv]

    def pids(self) -> list[int]:
        try:
            return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def kill(self) -> list[int]:
        """SIGKILL everything inside; returns the pids that were there."""
        seen = self.pids()
        try:
            (self.path / "cgroup.kill").write_text("1")  # Linux 5.14+: atomic, forks included
        except OSError:
            for _ in range(20):
                pids = self.pids()
                if not pids:
                    break
                seen += pids
                for pid in pids:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, signal.SIGKILL)
        return seen

    def remove(self) -> None:
        deadline = time.monotonic() + _REMOVE_S
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() >= deadline:
                    return  # the next run's remove_stale tries again
                self.kill()
                time.sleep(0.01)


def remove_stale(is_alive: Callable[[int], bool]) -> int:
    """Kill and remove the cgroups of skill-eval processes that died (kill -9)."""
    folder = base()
    if folder is None:
        return 0
    removed = 0
    with contextlib.suppress(OSError):
        for entry in folder.iterdir():
            m = _NAME.fullmatch(entry.name)
            if m and int(m.group(1)) != os.getpid() and not is_alive(int(m.group(1))):
                group = Group(entry)
                group.kill()
                group.remove()
                removed += 1
    return removed
