"""Every process an adapter starts dies with its run, even one that left the adapter's process group.

Killing the adapter's process group misses a descendant that called ``setsid()`` (or
``setpgid``). So each adapter call carries a token in its environment,
``SKILL_EVAL_RUN=<owner pid>.<n>``, which every descendant inherits; ``sweep`` kills each
process whose environment carries the token, and every descendant of such a process or of the
adapter itself (found through parent links, for one that rebuilt its environment). skill-eval
also makes itself a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``): a daemonized grandchild
is re-parented to us instead of to init, so its parent link still leads to us and we can reap it.

A descendant that both clears its environment and has no living ancestor in the run cannot be
tied to its run: as our adopted child it dies when skill-eval exits (``kill_adopted``); a
cgroup (run/containment/cgroup.py), where we may make one, closes that gap at the run's end. On systems
without ``/proc`` only the process group is killed.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

TOKEN_VAR = "SKILL_EVAL_RUN"
_PROC = "/proc"
_ROUNDS = 20  # sweeps until nothing carrying the token is left (a fork bomb gets this many)
_REAP_S = 1.0

_seq = itertools.count(1)
_subreaper_done = False
_lock = threading.Lock()


def enabled() -> bool:
    return sys.platform.startswith("linux") and os.path.isdir(_PROC)


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux only; idempotent)."""
    global _subreaper_done
    with _lock:
        if _subreaper_done:
            return True
        if not sys.platform.startswith("linux"):
            return False
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_child_subreaper = 36
            ok = libc.prctl(pr_set_child_subreaper, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            ok = False
        _subreaper_done = ok
        return ok


def new_token() -> str:
    return f"{os.getpid()}.{next(_seq)}"


def _read(path: str, limit: int) -> bytes:
    # os.open/os.read: half the cost of open() on the hundreds of files a sweep reads.
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        size = 0
        while size < limit:
            chunk = os.read(fd, limit - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _token_of(pid: str) -> str | None:
    try:
        data = _read(f"{_PROC}/{pid}/environ", 1 << 20)
    except OSError:
        return None
    marker = TOKEN_VAR.encode() + b"="
    start = data.find(b"\0" + marker)
    if start < 0:
        if not data.startswith(marker):
            return None
        start = 0
    else:
        start += 1
    end = data.find(b"\0", start)
    value = data[start + len(marker):end if end >= 0 else len(data)]
    return value.decode("ascii", "replace")


def _stat(pid: str) -> tuple[int, str, int] | None:
    """(ppid, state, start time in clock ticks) from /proc/<pid>/stat, or None when it is gone."""
    try:
        rest = _read(f"{_PROC}/{pid}/stat", 4096).rsplit(b")", 1)[1].split()
        return int(rest[1]), rest[0].decode("ascii", "replace"), int(rest[19])
    except (OSError, IndexError, ValueError):
        return None


def _parent_of(pid: str) -> tuple[int, str] | None:
    st = _stat(pid)
    return None if st is None else (st[0], st[1])


def snapshot(older: bool = False) -> dict[int, tuple[int, str, str | None]]:
    """pid -> (ppid, state, token) of every visible live process; tokens are read only for
    processes started after us, unless ``older``."""
    out: dict[int, tuple[int, str, str | None]] = {}
    try:
        names = os.listdir(_PROC)
    except OSError:
        return out
    me = os.getpid()
    mine = _stat(str(me))
    born = mine[2] if mine and not older else 0
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        st = _stat(name)
        if st is None or st[1] in ("Z", "X"):
            continue
        # Reading an environment costs more than the stat: a process older than us cannot
        # carry one of our tokens (a killed owner's adapters are looked for with older=True).
        out[int(name)] = (st[0], st[1], _token_of(name) if st[2] >= born else None)
    return out


def _targets(procs: dict[int, tuple[int, str, str | None]], match: str, roots: set[int]) -> set[int]:
    """Processes carrying a matching token (``match`` ending in '.' matches an owner prefix),
    plus every descendant of one of them or of ``roots``."""
    hit = {pid for pid, (_, _, tok) in procs.items()
           if tok is not None and (tok == match or (match.endswith(".") and tok.startswith(match)))}
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    todo = list(hit | roots)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in hit:
                hit.add(child)
                todo.append(child)
    return {pid for pid in hit if pid in procs}


def sweep(match: str, roots: tuple[int, ...] = (), keep: frozenset[int] = frozenset(),
          older: bool = False, reap: bool = True) -> int:
    """SIGKILL every process of the run ``match`` (a token, or ``"<owner>."`` for all of an
    owner's runs) and every descendant of ``roots``; reap the ones re-parented to us, except
    ``keep`` (children a Popen object waits for). Returns how many were killed."""
    if not enabled():
        return 0
    killed: set[int] = set()
    for _ in range(_ROUNDS):
        targets = _targets(snapshot(older), match, set(roots)) - killed
        if not targets:
            break
        for pid in targets:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed |= targets
    if reap:
        _reap(killed - set(roots) - keep)
    return len(killed)


def reap(pids: set[int]) -> None:
    """Collect killed processes that were re-parented to us (never a Popen child's pid)."""
    if enabled():
        _reap(pids)


def _reap(pids: set[int]) -> None:
    """Collect the exit status of killed orphans that became our children, so they do not stay
    zombies for the rest of a long run. Never touches a pid that is not our child."""
    deadline = time.monotonic() + _REAP_S
    me = os.getpid()
    pending = set(pids)
    while pending and time.monotonic() < deadline:
        for pid in list(pending):
            parent = _parent_of(str(pid))
            if parent is None:
                pending.discard(pid)  # gone: someone reaped it
                continue
            if parent[0] != me:
                if parent[1] in ("Z", "X"):
                    pending.discard(pid)  # dead, its own parent's business
                continue  # not yet re-parented (its parent is dying too): look again
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pending.discard(pid)
                continue
            if done:
                pending.discard(pid)
        if pending:
            time.sleep(0.005)


def kill_adopted() -> int:
    """At exit: kill every process still our child, and its descendants. As a subreaper we
    adopted the orphans of our adapters; by the time the command ends none of our own children
    is legitimately alive, and an orphan left now would outlive us (it goes to init). This
    catches the one kind the sweep cannot attribute to a run: an orphan that cleared its
    environment. Only for the console entry point, never inside a host process (tests)."""
    if not (enabled() and _subreaper_done):
        return 0
    me = os.getpid()
    procs = snapshot()
    children = {pid for pid, (ppid, _, _) in procs.items() if ppid == me}
    targets = children | _targets(procs, "\0", children)  # "\0": no token matches
    for pid in targets:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return len(targets)


def orphans_of_dead_owners(is_alive: Callable[[int], bool]) -> int:
    """Kill adapters (and their descendants) left by a skill-eval process that was killed
    (kill -9): their token names an owner pid whose owner lock nobody holds any more."""
    if not enabled():
        return 0
    owners = {tok.split(".", 1)[0] for _, _, tok in snapshot(older=True).values() if tok and "." in tok}
    killed = 0
    for owner in owners:
        if owner.isdigit() and int(owner) != os.getpid() and not is_alive(int(owner)):
            # Not reaped: they were never our children, unless we started them some other way.
            killed += sweep(f"{owner}.", older=True, reap=False)
    return killed
